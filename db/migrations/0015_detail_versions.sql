-- A version of what only the preview's details show : a product's values (any attribute, any
-- channel), its media links, and the options of SELECT and MULTI_SELECT attributes. The lists' versions (0011, 0012)
-- do not move on these: no list shows them. A detail's ETag and page-cache entry are keyed by the versions of
-- everything it shows (a product's: products, attributes, media and details), read in one statement; so a detail
-- read again, or revalidated, costs what a polled first page costs, and a change made by anyone (this API, the seed,
-- the product-information application with plain SQL) moves its tag in the transaction that makes it.
-- Runs on Postgres 15 (Debian) and on PGlite (Postgres 18).

alter table catalog_resource_versions drop constraint if exists catalog_resource_versions_resource_check;
alter table catalog_resource_versions add constraint catalog_resource_versions_resource_check
  check (resource in ('products', 'families', 'attributes', 'categories', 'media', 'channels', 'details'));
insert into catalog_resource_versions (org_id, resource, version)
select org_id, 'details', version from catalog_versions
on conflict do nothing;

-- Any row of these tables written, in any organization of the statement's rows: its details (one statement-level
-- trigger per table and operation, noted for the commit's bump as 0011's are).
do $$
declare
  t text;
begin
  foreach t in array array['product_values', 'media_links', 'attribute_options']
  loop
    execute format('drop trigger if exists %I on %I', t || '_detail_versions_ins', t);
    execute format('drop trigger if exists %I on %I', t || '_detail_versions_del', t);
    execute format('drop trigger if exists %I on %I', t || '_detail_versions_upd', t);
    execute format('drop trigger if exists %I on %I', t || '_detail_versions_trunc', t);
    execute format('create trigger %I after insert on %I referencing new table as catalog_new_rows
                    for each statement execute function catalog_versions_rows(%L)',
                   t || '_detail_versions_ins', t, 'details');
    execute format('create trigger %I after delete on %I referencing old table as catalog_old_rows
                    for each statement execute function catalog_versions_rows(%L)',
                   t || '_detail_versions_del', t, 'details');
    execute format('create trigger %I after update on %I
                    referencing old table as catalog_old_rows new table as catalog_new_rows
                    for each statement execute function catalog_versions_rows(%L)',
                   t || '_detail_versions_upd', t, 'details');
    execute format('create trigger %I after truncate on %I for each statement execute function
                    catalog_versions_truncate(%L)', t || '_detail_versions_trunc', t, 'details');
  end loop;
end $$;

-- The seed's bump (after loading without triggers): every version, the details' included.
create or replace function catalog_bump_versions(orgs text[]) returns void
  language sql
  as $$
    select catalog_versions_bump(array(
      select r || '/' || o from unnest(orgs) o
       cross join unnest(array['products', 'families', 'attributes', 'categories', 'media', 'channels', 'details']) r))
  $$;
