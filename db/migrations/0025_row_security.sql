-- Row-level security on the catalog (defense in depth): the public API's catalog reads run as the
-- role catalog_reader, under a policy that shows it the rows of one organization only, the one set for the
-- transaction in `app.org_id` (lib/catalog/row-security.ts: SET LOCAL ROLE and set_config in the round trip of the
-- BEGIN, when DB_ROW_SECURITY is on). A statement that forgot its `org_id = $1` then still reads one organization.
--
-- Only that role is bound. Row security is enabled, not forced, so the connecting role (a superuser, or the owner of
-- these tables: the role that ran the migrations) reads and writes as before: the console, the seed, the migrations,
-- the write preview, the background work. Any other role (the product-information application's own, with its
-- grants) is let through by a second policy that holds for every role but catalog_reader: with row security enabled
-- and no policy of its own, such a role would see and change no row at all. catalog_reader can only read (SELECT),
-- and only the catalog's tables; it cannot log in.
-- Runs on Postgres 15 (Debian) and on PGlite (Postgres 18).

-- Roles belong to the server, not to one database: several databases of one server (the tests') migrate at the same
-- moment, so the one that loses the race to create it goes on.
do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'catalog_reader') then
    begin
      create role catalog_reader nologin nosuperuser nobypassrls noinherit;
    exception when duplicate_object or unique_violation then
      null;
    end;
  end if;
  -- SET ROLE needs membership unless the connecting role is a superuser (a managed Postgres' owner role is not;
  -- having created the role, it may grant it to itself).
  if not (select rolsuper from pg_roles where rolname = current_user) then
    execute format('grant catalog_reader to %I', current_user);
  end if;
end
$$;

-- Every table with an organization's rows that the public API reads: the catalog, its versions (ETags, counts), the
-- change feed and the products' documents (exports, details).
do $$
declare
  t text;
begin
  foreach t in array array[
    'channels', 'families', 'attributes', 'family_attributes', 'attribute_options', 'categories', 'products',
    'product_values', 'media', 'media_links', 'catalog_resource_versions',
    'catalog_change_heads', 'catalog_change_floors', 'catalog_change_commits', 'catalog_changes',
    'catalog_product_documents', 'catalog_product_document_marks'
  ] loop
    execute format('grant select on %I to catalog_reader', t);
    execute format('alter table %I enable row level security', t);
    execute format('drop policy if exists catalog_reader_org on %I', t);
    execute format('drop policy if exists other_roles_unbound on %I', t);
    -- Unset (current_setting's missing_ok gives null), the policy shows nothing.
    execute format(
      'create policy catalog_reader_org on %I for select to catalog_reader '
      'using (org_id = current_setting(''app.org_id'', true))', t);
    -- Permissive policies are or-ed: this one is false for catalog_reader, which the first one alone binds.
    execute format(
      'create policy other_roles_unbound on %I for all to public '
      'using (current_user <> ''catalog_reader'') with check (current_user <> ''catalog_reader'')', t);
  end loop;
end
$$;
