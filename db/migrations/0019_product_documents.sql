-- Products' documents (preview features `export` and `changes`): each product's detail as the API
-- answers it, kept as JSON text, so that an export streams stored text instead of building each product from its
-- rows again (too slow for an export; measured: bench/README.md#export).
--
-- A document is a cache, never the truth: it is written by the runtime's refresher (lib/catalog/feed/product-documents.ts)
-- after the commits that changed its product, and a reader uses it only when the change log proves it current in
-- the reader's own snapshot (no event of its product after the document's cursor). Whatever the refresher's delay,
-- a reader therefore serves what a fresh read would: the document, or the product read anew.
-- Runs on Postgres 15 (Debian) and on PGlite (Postgres 18).

-- One product's document: its detail (unscoped values, media URLs under the mark's base URL) as read in a snapshot
-- whose feed head was `cursor`.
create table if not exists catalog_product_documents (
  org_id text not null references organizations (id) on delete cascade,
  id text not null,
  cursor bigint not null,
  body text not null,
  primary key (org_id, id)
);

-- Per organization, the refresher's progress. `mark`: every product changed at a cursor up to it has its document
-- rewritten since (or none), so a reader checks only the changes after it; null while no document may be used.
-- `base_url`: the URL the documents' media links start with (another one drops them all). A build (the first one,
-- or again when the refresher fell too far behind) writes every product's document in id order, a batch per
-- transaction: `build_after` is the last id written, `build_mark` the head when it began (the mark once it ends).
create table if not exists catalog_product_document_marks (
  org_id text primary key references organizations (id) on delete cascade,
  base_url text not null,
  mark bigint,
  build_after text,
  build_mark bigint
);
