-- The public media in each documented order, as a list reads them (every list is of public media only): a deep
-- page's ids come from the index alone (the deferred join) instead of reading each skipped row for is_public
-- (measured: bench/README.md, "an index of the public media per order"). The slug order had no index of its own.
-- They replace the indexes of 0001 in the same orders over every media, which no statement reads without is_public.
-- Runs on Postgres 15 (Debian) and on PGlite (Postgres 18).
create index if not exists media_org_public_updated on media (org_id, updated_at, id) where is_public;
create index if not exists media_org_public_name on media (org_id, original_name_sort, id) where is_public;
create index if not exists media_org_public_slug on media (org_id, slug, id) where is_public;
create index if not exists media_org_public_type on media (org_id, type, id) where is_public;
create index if not exists media_org_public_category on media (org_id, category_sort, id) where is_public;
drop index if exists media_org_updated;
drop index if exists media_org_name;
drop index if exists media_org_type;
drop index if exists media_org_category;
