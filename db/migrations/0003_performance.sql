-- Performance at catalog scale.
-- 1. A per-organization catalog version, bumped in the same transaction as any change to a table that a
--    list's `total` depends on. The query layer caches exact counts under (organization, version, filter):
--    a cached count is reused only while the version it was read with is still the current one.
-- 2. Indexes that the measured scenarios call for (org first, then the filters, then the sort, then id).

create sequence if not exists catalog_version_seq;

create table if not exists catalog_versions (
  org_id text primary key,
  version bigint not null
);

-- Records a new version for every organization in the given set (values are unique across the database).
create or replace function catalog_bump_versions(orgs text[]) returns void
  language sql
  as $$
    insert into catalog_versions (org_id, version)
    select o, nextval('catalog_version_seq') from (select distinct unnest(orgs) as o) d where o is not null
    order by o
    on conflict (org_id) do update set version = excluded.version
  $$;

-- Statement-level triggers read the transition tables, so a bulk load costs one bump per organization.
create or replace function catalog_bump_on_insert() returns trigger
  language plpgsql
  as $$ begin perform catalog_bump_versions(array(select distinct org_id from catalog_new_rows)); return null; end $$;

create or replace function catalog_bump_on_delete() returns trigger
  language plpgsql
  as $$ begin perform catalog_bump_versions(array(select distinct org_id from catalog_old_rows)); return null; end $$;

create or replace function catalog_bump_on_update() returns trigger
  language plpgsql
  as $$
  begin
    perform catalog_bump_versions(array(
      select org_id from catalog_old_rows union select org_id from catalog_new_rows));
    return null;
  end $$;

create or replace function catalog_bump_all() returns trigger
  language plpgsql
  as $$ begin perform catalog_bump_versions(array(select id from organizations)); return null; end $$;

do $$
declare
  t text;
begin
  foreach t in array array['products', 'families', 'attributes', 'family_attributes', 'categories', 'media', 'media_links']
  loop
    execute format('drop trigger if exists %I on %I', t || '_catalog_version_ins', t);
    execute format('drop trigger if exists %I on %I', t || '_catalog_version_del', t);
    execute format('drop trigger if exists %I on %I', t || '_catalog_version_upd', t);
    execute format('drop trigger if exists %I on %I', t || '_catalog_version_trunc', t);
    execute format('create trigger %I after insert on %I referencing new table as catalog_new_rows
                    for each statement execute function catalog_bump_on_insert()', t || '_catalog_version_ins', t);
    execute format('create trigger %I after delete on %I referencing old table as catalog_old_rows
                    for each statement execute function catalog_bump_on_delete()', t || '_catalog_version_del', t);
    execute format('create trigger %I after update on %I
                    referencing old table as catalog_old_rows new table as catalog_new_rows
                    for each statement execute function catalog_bump_on_update()', t || '_catalog_version_upd', t);
    execute format('create trigger %I after truncate on %I
                    for each statement execute function catalog_bump_all()', t || '_catalog_version_trunc', t);
  end loop;
end $$;

-- Products filtered by family and category together, newest first (the two single-filter indexes of 0001
-- would read every product of the family and filter out the other categories).
create index if not exists products_org_family_category on products (org_id, family_id, category_id, updated_at, id);
