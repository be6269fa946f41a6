-- A version per organization and resource. One catalog version per organization (0003, 0008)
-- moved every list's ETag, count and page-cache entry on any change: one product created changed the tags of
-- families, attributes, categories and media too. Each list now has its own version, moved by triggers (whoever
-- writes: the API's write preview, the seed, the product-information application with plain SQL) when something
-- that list's answers show, filter, sort or count changes, and only then:
--
--   products    products; product_values of the name attribute in a channel (the label read with channelId);
--               a family's or category's label (product items show them); an attribute that becomes or stops
--               being `name`; a channel deleted or given another id (channelId is then a 400)
--   families    families
--   attributes  attributes; family_attributes (the familyId filter)
--   categories  categories (parentId, isMaster included)
--   media       media; its link count crossing zero (orphansOnly), which media_links' triggers keep (0004)
--
-- Versions are bumped at commit, not at the write. An UPDATE of a version row holds its lock until the transaction
-- ends: with one row per (organization, resource) locked at each write, two transactions writing two resources in
-- opposite orders (a family label, then an attribute; an attribute, then a product) would deadlock, and a long
-- import would hold up every other writer of its organization until it commits. Statement-level triggers (one call
-- per statement, whatever its number of rows, reading the transition tables) therefore only note the pairs
-- (organization, resource) in a transaction-local setting; one deferred trigger per transaction bumps them all at
-- commit, in one order, holding their locks for the commit alone. (A REPEATABLE READ or SERIALIZABLE writer still gets
-- a serialization failure when another transaction committed a change to the same list of its organization since its
-- snapshot, as it did with 0003's single row for any change of its organization.)
-- Runs on Postgres 15 (Debian) and on PGlite (Postgres 18).

create table if not exists catalog_resource_versions (
  org_id text not null,
  resource text collate "C" not null
    check (resource in ('products', 'families', 'attributes', 'categories', 'media')),
  version bigint not null,
  primary key (org_id, resource)
);

-- Every resource starts at the organization's catalog version: tags taken before the upgrade stay valid.
insert into catalog_resource_versions (org_id, resource, version)
select v.org_id, r.resource, v.version
  from catalog_versions v
 cross join unnest(array['products', 'families', 'attributes', 'categories', 'media']) r(resource)
on conflict do nothing;

-- The triggers of 0003 and 0008 (one version per organization).
do $$
declare
  t text;
  op text;
begin
  foreach t in array array['products', 'families', 'attributes', 'family_attributes', 'categories', 'media',
                           'media_links', 'product_values', 'channels']
  loop
    foreach op in array array['ins', 'del', 'upd', 'trunc']
    loop
      execute format('drop trigger if exists %I on %I', t || '_catalog_version_' || op, t);
    end loop;
  end loop;
end $$;

-- The catalog's version as a whole (the latest of its resources' versions), for readers of 0003's table.
drop table if exists catalog_versions;
create or replace view catalog_versions as
  select org_id, max(version) as version from catalog_resource_versions group by org_id;

-- Moves the versions of the pairs 'resource/org_id' now, locking their rows in one order (resource, organization)
-- so that two bumps never wait for each other in a cycle.
create or replace function catalog_versions_bump(pairs text[]) returns void
  language sql
  as $$
    insert into catalog_resource_versions (org_id, resource, version)
    select o, r, nextval('catalog_version_seq')
      from (select distinct split_part(p, '/', 1) as r, substr(p, strpos(p, '/') + 1) as o
              from unnest(pairs) p where p is not null) d
     order by r collate "C", o collate "C"
    on conflict (org_id, resource) do update set version = excluded.version
  $$;

-- One row per transaction that noted versions to bump: its deferred trigger bumps them at commit. Unlogged: a row
-- lives within its transaction only (inserted by the first note, deleted at commit), so it needs no WAL.
create unlogged table if not exists catalog_version_commits (
  txid xid8 primary key default pg_current_xact_id()
);

-- Notes that the given resources of the given organizations change in this transaction (bumped at commit). The
-- notes are a text[] in the transaction-local setting catalog.pending_versions: a rolled-back savepoint takes its
-- notes back with its writes. This function and the commit's run as their owner (security definer, with the search
-- path of this migration): a role that may write the catalog tables (the product-information application's) needs
-- no grant on the version tables, as it needed one on 0003's catalog_versions.
create or replace function catalog_versions_touch(orgs text[], resources text[]) returns void
  language plpgsql
  security definer set search_path from current
  as $$
  declare
    pending text := coalesce(current_setting('catalog.pending_versions', true), '');
    pairs text[];
  begin
    if orgs is null or cardinality(orgs) = 0 then return; end if;
    pairs := array(select distinct r || '/' || o from unnest(orgs) o cross join unnest(resources) r
                    where o is not null);
    if pending <> '' then
      pairs := array(select distinct p from unnest(pending::text[] || pairs) p order by 1);
    end if;
    -- The setting first: with SET CONSTRAINTS ALL IMMEDIATE the commit trigger fires as soon as the row is in.
    perform set_config('catalog.pending_versions', pairs::text, true);
    if pending = '' then
      insert into catalog_version_commits default values on conflict do nothing;
    end if;
  end $$;

-- At commit (deferred constraint trigger of catalog_version_commits): bumps every noted version.
create or replace function catalog_versions_commit() returns trigger
  language plpgsql
  security definer set search_path from current
  as $$
  declare
    pending text := coalesce(current_setting('catalog.pending_versions', true), '');
  begin
    delete from catalog_version_commits where txid = new.txid;
    perform set_config('catalog.pending_versions', '', true);
    if pending <> '' then
      perform catalog_versions_bump(pending::text[]);
    end if;
    return null;
  end $$;

drop trigger if exists catalog_version_commits_bump on catalog_version_commits;
create constraint trigger catalog_version_commits_bump after insert on catalog_version_commits
  deferrable initially deferred
  for each row execute function catalog_versions_commit();

-- Every organization of a statement's rows: the resources in the trigger's arguments (products, media inserted or
-- deleted, family_attributes → attributes).
create or replace function catalog_versions_rows() returns trigger
  language plpgsql
  as $$
  begin
    if tg_op = 'INSERT' then
      perform catalog_versions_touch(array(select distinct org_id from catalog_new_rows), tg_argv);
    elsif tg_op = 'DELETE' then
      perform catalog_versions_touch(array(select distinct org_id from catalog_old_rows), tg_argv);
    else
      perform catalog_versions_touch(
        array(select org_id from catalog_old_rows union select org_id from catalog_new_rows), tg_argv);
    end if;
    return null;
  end $$;

-- TRUNCATE: the resources in the trigger's arguments, for every organization.
create or replace function catalog_versions_truncate() returns trigger
  language plpgsql
  as $$ begin perform catalog_versions_touch(array(select id from organizations), tg_argv); return null; end $$;

-- Families and categories (the resource in the trigger's argument): their list, and products when a label changes
-- (product items show family.label and category.label). A new one, or one deleted, is in no product (the products'
-- foreign keys refuse to delete or renumber a family or category that a product is in).
create or replace function catalog_versions_labelled() returns trigger
  language plpgsql
  as $$
  begin
    if tg_op = 'INSERT' then
      perform catalog_versions_touch(array(select distinct org_id from catalog_new_rows), tg_argv);
    elsif tg_op = 'DELETE' then
      perform catalog_versions_touch(array(select distinct org_id from catalog_old_rows), tg_argv);
    else
      perform catalog_versions_touch(
        array(select org_id from catalog_old_rows union select org_id from catalog_new_rows), tg_argv);
      perform catalog_versions_touch(
        array(select distinct n.org_id from catalog_new_rows n join catalog_old_rows o on o.id = n.id
               where o.label is distinct from n.label),
        array['products']);
    end if;
    return null;
  end $$;

-- Attributes: their list, and products when the organization's `name` attribute changes (gained, lost or
-- renumbered): a products list read with channelId takes its labels from that attribute's values.
create or replace function catalog_versions_attributes() returns trigger
  language plpgsql
  as $$
  begin
    if tg_op = 'INSERT' then
      perform catalog_versions_touch(array(select distinct org_id from catalog_new_rows), array['attributes']);
      perform catalog_versions_touch(
        array(select distinct org_id from catalog_new_rows where code = 'name'), array['products']);
    elsif tg_op = 'DELETE' then
      perform catalog_versions_touch(array(select distinct org_id from catalog_old_rows), array['attributes']);
      perform catalog_versions_touch(
        array(select distinct org_id from catalog_old_rows where code = 'name'), array['products']);
    else
      perform catalog_versions_touch(
        array(select org_id from catalog_old_rows union select org_id from catalog_new_rows), array['attributes']);
      perform catalog_versions_touch(
        array(select org_id
                from ((select org_id, id from catalog_old_rows where code = 'name'
                       except select org_id, id from catalog_new_rows where code = 'name')
                      union all
                      (select org_id, id from catalog_new_rows where code = 'name'
                       except select org_id, id from catalog_old_rows where code = 'name')) d),
        array['products']);
    end if;
    return null;
  end $$;

-- Product values: products when a value of the name attribute in a channel changes (the label read with
-- channelId); other values are in no list. Values cascaded away with their attribute are the attribute's trigger's.
create or replace function catalog_versions_product_values() returns trigger
  language plpgsql
  as $$
  begin
    if tg_op = 'INSERT' then
      perform catalog_versions_touch(
        array(select distinct v.org_id from catalog_new_rows v
                join attributes a on a.org_id = v.org_id and a.id = v.attribute_id and a.code = 'name'
               where v.channel_id is not null),
        array['products']);
    elsif tg_op = 'DELETE' then
      perform catalog_versions_touch(
        array(select distinct v.org_id from catalog_old_rows v
                join attributes a on a.org_id = v.org_id and a.id = v.attribute_id and a.code = 'name'
               where v.channel_id is not null),
        array['products']);
    else
      perform catalog_versions_touch(
        array(select v.org_id
                from (select org_id, attribute_id, channel_id from catalog_old_rows
                      union all
                      select org_id, attribute_id, channel_id from catalog_new_rows) v
                join attributes a on a.org_id = v.org_id and a.id = v.attribute_id and a.code = 'name'
               where v.channel_id is not null
               group by v.org_id),
        array['products']);
    end if;
    return null;
  end $$;

-- Channels: products when a channel goes or takes another id (a products list's channelId must be a channel of
-- the organization: its 200 becomes a 400). A new channel changes no 200 answer (its channelId was a 400, which has
-- no tag).
create or replace function catalog_versions_channels() returns trigger
  language plpgsql
  as $$
  begin
    if tg_op = 'DELETE' then
      perform catalog_versions_touch(array(select distinct org_id from catalog_old_rows), array['products']);
    elsif tg_op = 'UPDATE' then
      perform catalog_versions_touch(
        array(select org_id
                from (select org_id, id from catalog_old_rows except select org_id, id from catalog_new_rows) d),
        array['products']);
    end if;
    return null;
  end $$;

-- Media updated: media, unless the statement only moved link counts (media_links' triggers keep them, 0004) without
-- one crossing zero (orphansOnly): from one link to two, no answer changes. A row whose link count stayed is taken as
-- changed without comparing it (a bulk update of titles costs no comparison); one whose count moved is compared
-- whole, but for the count (the link statements' few rows).
create or replace function catalog_versions_media() returns trigger
  language plpgsql
  as $$
  begin
    perform catalog_versions_touch(
      array(select n.org_id from catalog_new_rows n
              left join catalog_old_rows o on o.id = n.id and o.org_id = n.org_id
             where o.id is null
                or o.link_count = n.link_count
                or (o.link_count = 0) <> (n.link_count = 0)
                or (to_jsonb(o) - 'link_count') <> (to_jsonb(n) - 'link_count')
            union
            select o.org_id from catalog_old_rows o
             where not exists (select 1 from catalog_new_rows n where n.id = o.id and n.org_id = o.org_id)),
      array['media']);
    return null;
  end $$;

-- The triggers, one per table and operation, each once per statement.
do $$
declare
  t record;
begin
  for t in
    select * from (values
      ('products', 'catalog_versions_rows', 'products'),
      ('family_attributes', 'catalog_versions_rows', 'attributes'),
      ('families', 'catalog_versions_labelled', 'families'),
      ('categories', 'catalog_versions_labelled', 'categories'),
      ('attributes', 'catalog_versions_attributes', ''),
      ('product_values', 'catalog_versions_product_values', ''),
      ('channels', 'catalog_versions_channels', '')
    ) v(tbl, fn, arg)
  loop
    execute format('drop trigger if exists %I on %I', t.tbl || '_resource_versions_ins', t.tbl);
    execute format('drop trigger if exists %I on %I', t.tbl || '_resource_versions_del', t.tbl);
    execute format('drop trigger if exists %I on %I', t.tbl || '_resource_versions_upd', t.tbl);
    execute format('create trigger %I after insert on %I referencing new table as catalog_new_rows
                    for each statement execute function %I(%L)', t.tbl || '_resource_versions_ins', t.tbl, t.fn, t.arg);
    execute format('create trigger %I after delete on %I referencing old table as catalog_old_rows
                    for each statement execute function %I(%L)', t.tbl || '_resource_versions_del', t.tbl, t.fn, t.arg);
    execute format('create trigger %I after update on %I
                    referencing old table as catalog_old_rows new table as catalog_new_rows
                    for each statement execute function %I(%L)', t.tbl || '_resource_versions_upd', t.tbl, t.fn, t.arg);
  end loop;
  -- TRUNCATE: every organization's versions of what the table's rows can move.
  for t in
    select * from (values
      ('products', array['products']),
      ('family_attributes', array['attributes']),
      ('families', array['families', 'products']),
      ('categories', array['categories', 'products']),
      ('attributes', array['attributes', 'products']),
      ('product_values', array['products']),
      ('channels', array['products']),
      ('media', array['media'])
    ) v(tbl, resources)
  loop
    execute format('drop trigger if exists %I on %I', t.tbl || '_resource_versions_trunc', t.tbl);
    execute format('create trigger %I after truncate on %I for each statement execute function
                    catalog_versions_truncate(%s)', t.tbl || '_resource_versions_trunc', t.tbl,
                   (select string_agg(quote_literal(r), ', ') from unnest(t.resources) r));
  end loop;
end $$;

-- Media: rows inserted or deleted, and rows updated (catalog_versions_media).
drop trigger if exists media_resource_versions_ins on media;
drop trigger if exists media_resource_versions_del on media;
drop trigger if exists media_resource_versions_upd on media;
create trigger media_resource_versions_ins after insert on media referencing new table as catalog_new_rows
  for each statement execute function catalog_versions_rows('media');
create trigger media_resource_versions_del after delete on media referencing old table as catalog_old_rows
  for each statement execute function catalog_versions_rows('media');
create trigger media_resource_versions_upd after update on media
  referencing old table as catalog_old_rows new table as catalog_new_rows
  for each statement execute function catalog_versions_media();

-- The functions of 0003, kept for any trigger still calling them: every resource of the organizations.
create or replace function catalog_bump_versions(orgs text[]) returns void
  language sql
  as $$
    select catalog_versions_bump(array(
      select r || '/' || o from unnest(orgs) o
       cross join unnest(array['products', 'families', 'attributes', 'categories', 'media']) r))
  $$;

create or replace function catalog_bump_on_insert() returns trigger
  language plpgsql
  as $$ begin
    perform catalog_versions_touch(array(select distinct org_id from catalog_new_rows),
                                   array['products', 'families', 'attributes', 'categories', 'media']);
    return null;
  end $$;

create or replace function catalog_bump_on_delete() returns trigger
  language plpgsql
  as $$ begin
    perform catalog_versions_touch(array(select distinct org_id from catalog_old_rows),
                                   array['products', 'families', 'attributes', 'categories', 'media']);
    return null;
  end $$;

create or replace function catalog_bump_on_update() returns trigger
  language plpgsql
  as $$ begin
    perform catalog_versions_touch(array(select org_id from catalog_old_rows union select org_id from catalog_new_rows),
                                   array['products', 'families', 'attributes', 'categories', 'media']);
    return null;
  end $$;

create or replace function catalog_bump_all() returns trigger
  language plpgsql
  as $$ begin
    perform catalog_versions_touch(array(select id from organizations),
                                   array['products', 'families', 'attributes', 'categories', 'media']);
    return null;
  end $$;
