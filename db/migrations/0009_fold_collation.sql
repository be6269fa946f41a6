-- catalog_fold lowered its text with the collation of its argument. Identifiers, codes and slugs are `collate "C"`,
-- where lower() changes ASCII letters only, while a search term (q) is folded with the database's collation: a
-- product whose SKU holds a capital outside ASCII that unaccent leaves alone (Greek, Cyrillic: "ЧАЙ-01") could not be
-- found by its own SKU (found by the write preview's property test). The fold now lowers with the database's
-- collation whatever its argument's, so both sides of a search fold alike.
-- Runs on Postgres 15 (Debian) and on PGlite (Postgres 18).
create or replace function catalog_fold(t text) returns text
  language sql immutable parallel safe strict
  as $$ select lower(public.unaccent('public.unaccent'::regdictionary, t) collate "default") $$;

-- Stored columns are computed when a row is written: rewrite the rows whose C-collated texts are not all ASCII (the
-- only ones whose fold changes), so that their search columns follow the new fold.
update products set identifier = identifier where identifier !~ '^[\x01-\x7f]*$';
update families set code = code where code !~ '^[\x01-\x7f]*$' or slug !~ '^[\x01-\x7f]*$';
update attributes set code = code where code !~ '^[\x01-\x7f]*$' or slug !~ '^[\x01-\x7f]*$';
update categories set slug = slug where slug !~ '^[\x01-\x7f]*$';
update media set slug = slug where slug !~ '^[\x01-\x7f]*$';
