-- The change feed (preview features `changes` and `export`): one ordered log per organization of the
-- objects whose public shape changed, written by triggers in the transaction of the change, whoever writes (this
-- API's write preview, the seed, the product-information application with plain SQL).
--
-- What is logged is "object (type, id) may have changed": the reader serves each one as it is when read (its public
-- shape, or a delete when it no longer is), so a log row needs no copy of the object and an indirect change is one
-- more row: a family's or category's label moves each of its products, an attribute's code or type each product
-- with a value of it, a media file renamed or made private each product that shows it.
--
-- Cursors follow commit order. A writer's rows carry its transaction id and an ordinal (per organization, in the
-- order they were written); at commit, the deferred trigger of 0011 (catalog_versions_commit, which this migration
-- extends) takes the organization's head row lock, gives the transaction's rows the next cursors (head + 1 …) and
-- records them in catalog_change_commits. The lock is held until the commit is visible, so a transaction that gets
-- later cursors commits later: a reader that has seen cursor N has seen every cursor below N, and an export's
-- snapshot holds exactly the cursors up to its head. One row per transaction and organization is written at commit;
-- the events are written once.
-- Runs on Postgres 15 (Debian) and on PGlite (Postgres 18).

-- Per organization: the last cursor given.
create table if not exists catalog_change_heads (
  org_id text primary key,
  head bigint not null default 0
);

-- Per organization: the last cursor pruned by the retention (a cursor below it cannot be followed: 410). Apart from
-- the heads so that pruning never waits for a committing writer, nor a writer for the pruning.
create table if not exists catalog_change_floors (
  org_id text primary key,
  floor bigint not null default 0
);

-- The events of one committed transaction for one organization: cursors first_cursor … last_cursor, for its rows of
-- catalog_changes with ordinals ord_from … ord_to. A page of the feed reads them by the primary key, in order.
create table if not exists catalog_change_commits (
  org_id text not null,
  last_cursor bigint not null,
  first_cursor bigint not null,
  txid xid8 not null,
  ord_from bigint not null,
  ord_to bigint not null,
  at timestamptz(3) not null default now(),
  primary key (org_id, last_cursor)
);
create index if not exists catalog_change_commits_at on catalog_change_commits (at);

-- The objects a transaction changed, in the order it changed them (ordinal, per organization and transaction).
create table if not exists catalog_changes (
  org_id text not null,
  txid xid8 not null,
  ordinal bigint not null,
  type text collate "C" not null
    check (type in ('products', 'families', 'attributes', 'categories', 'media', 'channels')),
  id text not null,
  primary key (org_id, txid, ordinal)
);

-- Notes that the objects (orgs[i], types[i], ids[i]) change in this transaction: their rows, with the next ordinals
-- of each organization (a transaction-local counter per organization, taken back with a rolled-back savepoint as its
-- rows are), and the transaction's commit row of 0011, whose deferred trigger gives them their cursors. Security
-- definer: a role that writes the catalog needs no grant on the log.
create or replace function catalog_changes_note(orgs text[], types text[], ids text[]) returns void
  language plpgsql
  security definer set search_path from current
  as $$
  declare
    o text;
    n bigint;
    added bigint;
    touched text := coalesce(current_setting('catalog.change_orgs', true), '');
  begin
    if orgs is null or cardinality(orgs) = 0 then return; end if;
    for o in select distinct x from unnest(orgs) x where x is not null loop
      n := coalesce(nullif(current_setting('catalog.change_n_' || md5(o), true), ''), '0')::bigint;
      insert into catalog_changes (org_id, txid, ordinal, type, id)
      select o, pg_current_xact_id(), n + row_number() over (order by t.i), t.type, t.id
        from unnest(orgs, types, ids) with ordinality t(org, type, id, i)
       where t.org = o;
      get diagnostics added = row_count;
      perform set_config('catalog.change_n_' || md5(o), (n + added)::text, true);
      if touched = '' then
        touched := array[o]::text;
      elsif not (o = any(touched::text[])) then
        touched := (touched::text[] || o)::text;
      end if;
    end loop;
    -- The setting first: with SET CONSTRAINTS ALL IMMEDIATE the commit trigger fires as soon as the row is in.
    perform set_config('catalog.change_orgs', touched, true);
    insert into catalog_version_commits default values on conflict do nothing;
  end $$;

-- At commit: each organization's new rows get the next cursors, in organization order (two committing transactions
-- never wait for each other in a cycle); a notification per organization wakes the feed's long polls.
create or replace function catalog_changes_commit(orgs text[]) returns void
  language plpgsql
  security definer set search_path from current
  as $$
  declare
    o text;
    n bigint;
    done bigint;
    first bigint;
  begin
    for o in select distinct x from unnest(orgs) x order by 1 loop
      n := coalesce(nullif(current_setting('catalog.change_n_' || md5(o), true), ''), '0')::bigint;
      done := coalesce(nullif(current_setting('catalog.change_done_' || md5(o), true), ''), '0')::bigint;
      continue when n <= done;
      insert into catalog_change_heads as h (org_id, head) values (o, n - done)
        on conflict (org_id) do update set head = h.head + excluded.head
        returning h.head - (n - done) + 1 into first;
      insert into catalog_change_commits (org_id, last_cursor, first_cursor, txid, ord_from, ord_to)
        values (o, first + (n - done) - 1, first, pg_current_xact_id(), done + 1, n);
      perform set_config('catalog.change_done_' || md5(o), n::text, true);
      perform pg_notify('catalog_changes', o);
    end loop;
  end $$;

-- 0011's commit trigger, extended: the versions noted, then the change log's cursors (one trigger, one order of
-- locks: versions, then heads).
create or replace function catalog_versions_commit() returns trigger
  language plpgsql
  security definer set search_path from current
  as $$
  declare
    pending text := coalesce(current_setting('catalog.pending_versions', true), '');
    changed text := coalesce(current_setting('catalog.change_orgs', true), '');
  begin
    delete from catalog_version_commits where txid = new.txid;
    perform set_config('catalog.pending_versions', '', true);
    perform set_config('catalog.change_orgs', '', true);
    if pending <> '' then
      perform catalog_versions_bump(pending::text[]);
    end if;
    if changed <> '' then
      perform catalog_changes_commit(changed::text[]);
    end if;
    return null;
  end $$;

-- The capture: one statement-level trigger per table and operation (transition tables), each noting the objects
-- whose public shape the statement may have changed. An update that leaves a row as it was notes nothing.

-- Rows of a table that are themselves the objects of a type (the type in the trigger's argument): products, families,
-- attributes, categories, channels. An update notes the rows that changed.
create or replace function catalog_changes_rows() returns trigger
  language plpgsql
  as $$
  declare
    t text := tg_argv[0];
    r record;
  begin
    if tg_op = 'INSERT' then
      select array_agg(org_id) o, array_agg(id) i into r from catalog_new_rows;
    elsif tg_op = 'DELETE' then
      select array_agg(org_id) o, array_agg(id) i into r from catalog_old_rows;
    else
      select array_agg(org_id) o, array_agg(id) i into r
        from (select n.org_id, n.id from catalog_new_rows n
                left join catalog_old_rows o on o.id = n.id
               where o.id is null or to_jsonb(o) is distinct from to_jsonb(n)
              union
              select o.org_id, o.id from catalog_old_rows o
               where not exists (select 1 from catalog_new_rows n where n.id = o.id)) d;
    end if;
    if r.o is not null then
      perform catalog_changes_note(r.o, array_fill(t, array[cardinality(r.o)]), r.i);
    end if;
    return null;
  end $$;

-- Rows that belong to an object (the type in the first argument, its id in the column named by the second):
-- product_values and media_links (a product), family_attributes (a family), attribute_options (an attribute). The
-- object once per statement, in the order first met.
create or replace function catalog_changes_parts() returns trigger
  language plpgsql
  as $$
  declare
    t text := tg_argv[0];
    col text := tg_argv[1];
    rows_sql text;
    r record;
  begin
    rows_sql := case tg_op
      when 'INSERT' then format('select org_id, %1$I as owner, 1 as k from catalog_new_rows', col)
      when 'DELETE' then format('select org_id, %1$I as owner, 1 as k from catalog_old_rows', col)
      else format('select org_id, %1$I as owner, 1 as k from catalog_new_rows
                   union all select org_id, %1$I, 2 from catalog_old_rows', col)
    end;
    execute 'select array_agg(org_id order by f) o, array_agg(owner order by f) i
               from (select org_id, owner, min(k) f from (' || rows_sql || ') x
                      where owner is not null group by org_id, owner) d'
      into r;
    if r.o is not null then
      perform catalog_changes_note(r.o, array_fill(t, array[cardinality(r.o)]), r.i);
    end if;
    return null;
  end $$;

-- Families and categories relabelled: their products (a product shows its family's and category's labels). The
-- column of products in the argument (family_id, category_id).
create or replace function catalog_changes_relabelled() returns trigger
  language plpgsql
  as $$
  declare
    r record;
  begin
    execute format(
      'select array_agg(p.org_id) o, array_agg(p.id) i
         from products p
         join (select n.org_id, n.id from catalog_new_rows n join catalog_old_rows o on o.id = n.id
                where o.label is distinct from n.label) c
           on p.org_id = c.org_id and p.%I = c.id',
      tg_argv[0])
      into r;
    if r.o is not null then
      perform catalog_changes_note(r.o, array_fill('products'::text, array[cardinality(r.o)]), r.i);
    end if;
    return null;
  end $$;

-- Attributes whose code, label or type changed: the families that show them (a family's detail lists its
-- attributes); whose code or type changed: the products with a value of them (values are keyed by code and shown in
-- their type's shape).
create or replace function catalog_changes_attributes_shown() returns trigger
  language plpgsql
  as $$
  declare
    r record;
  begin
    select array_agg(org_id) o, array_agg(id) i into r
      from (select distinct fa.org_id, fa.family_id as id
              from catalog_new_rows n join catalog_old_rows o on o.id = n.id
              join family_attributes fa on fa.org_id = n.org_id and fa.attribute_id = n.id
             where (o.code, o.label, o.type) is distinct from (n.code, n.label, n.type)) d;
    if r.o is not null then
      perform catalog_changes_note(r.o, array_fill('families'::text, array[cardinality(r.o)]), r.i);
    end if;
    select array_agg(org_id) o, array_agg(id) i into r
      from (select distinct pv.org_id, pv.product_id as id
              from catalog_new_rows n join catalog_old_rows o on o.id = n.id
              join product_values pv on pv.org_id = n.org_id and pv.attribute_id = n.id
             where (o.code, o.type) is distinct from (n.code, n.type)) d;
    if r.o is not null then
      perform catalog_changes_note(r.o, array_fill('products'::text, array[cardinality(r.o)]), r.i);
    end if;
    return null;
  end $$;

-- Media: the media rows that changed (an update that moved only link_count, kept by media_links' triggers, changes
-- no media shape); the products that show a media whose shape changed or that was deleted, through a link (a
-- product's media) or a MEDIA value (its file's URL, shown while it is public).
create or replace function catalog_changes_media() returns trigger
  language plpgsql
  as $$
  declare
    m record;
    r record;
  begin
    if tg_op = 'INSERT' then
      select array_agg(org_id) o, array_agg(id) i into m from catalog_new_rows;
    elsif tg_op = 'DELETE' then
      select array_agg(org_id) o, array_agg(id) i into m from catalog_old_rows;
    else
      select array_agg(n.org_id) o, array_agg(n.id) i into m
        from catalog_new_rows n left join catalog_old_rows o on o.id = n.id
       where o.id is null or (to_jsonb(o) - 'link_count') is distinct from (to_jsonb(n) - 'link_count');
    end if;
    if m.o is null then return null; end if;
    perform catalog_changes_note(m.o, array_fill('media'::text, array[cardinality(m.o)]), m.i);
    if tg_op = 'INSERT' then return null; end if;
    -- Products that show it through a link (a media deleted: its links went with it, and their trigger noted their
    -- products).
    select array_agg(org_id) o, array_agg(id) i into r
      from (select distinct l.org_id, l.product_id as id
              from unnest(m.o, m.i) c(org_id, id)
              join media_links l on l.org_id = c.org_id and l.media_id = c.id and l.product_id is not null) d;
    if r.o is not null then
      perform catalog_changes_note(r.o, array_fill('products'::text, array[cardinality(r.o)]), r.i);
    end if;
    -- Products that show its file through a MEDIA value, when that file's URL or visibility changed or it went: a
    -- scan of the organization's MEDIA values (rare writes; a title changed does not scan).
    if tg_op = 'DELETE' then
      select array_agg(org_id) o, array_agg(id) i into m from catalog_old_rows;
    else
      select array_agg(n.org_id) o, array_agg(n.id) i into m
        from catalog_new_rows n join catalog_old_rows o on o.id = n.id
       where (o.file_name, o.is_public) is distinct from (n.file_name, n.is_public);
    end if;
    if m.o is null then return null; end if;
    select array_agg(org_id) o, array_agg(id) i into r
      from (select distinct pv.org_id, pv.product_id as id
              from unnest(m.o, m.i) c(org_id, id)
              join attributes a on a.org_id = c.org_id and a.type = 'MEDIA'
              join product_values pv on pv.org_id = a.org_id and pv.attribute_id = a.id
                and (pv.value = to_jsonb(c.id)
                     or (jsonb_typeof(pv.value) = 'array' and pv.value @> jsonb_build_array(c.id)))) d;
    if r.o is not null then
      perform catalog_changes_note(r.o, array_fill('products'::text, array[cardinality(r.o)]), r.i);
    end if;
    return null;
  end $$;

do $$
declare
  t record;
  op text;
begin
  for t in
    select * from (values
      ('products', 'catalog_changes_rows', array['products']),
      ('families', 'catalog_changes_rows', array['families']),
      ('attributes', 'catalog_changes_rows', array['attributes']),
      ('categories', 'catalog_changes_rows', array['categories']),
      ('channels', 'catalog_changes_rows', array['channels']),
      ('product_values', 'catalog_changes_parts', array['products', 'product_id']),
      ('media_links', 'catalog_changes_parts', array['products', 'product_id']),
      ('family_attributes', 'catalog_changes_parts', array['families', 'family_id']),
      ('attribute_options', 'catalog_changes_parts', array['attributes', 'attribute_id']),
      ('media', 'catalog_changes_media', array[]::text[])
    ) v(tbl, fn, args)
  loop
    foreach op in array array['insert', 'delete', 'update']
    loop
      execute format('drop trigger if exists %I on %I', t.tbl || '_changes_' || op, t.tbl);
      execute format('create trigger %I after %s on %I %s for each statement execute function %I(%s)',
                     t.tbl || '_changes_' || op, op, t.tbl,
                     case op when 'insert' then 'referencing new table as catalog_new_rows'
                             when 'delete' then 'referencing old table as catalog_old_rows'
                             else 'referencing old table as catalog_old_rows new table as catalog_new_rows' end,
                     t.fn, (select coalesce(string_agg(quote_literal(a), ', '), '') from unnest(t.args) a));
    end loop;
  end loop;
  -- Relabelled families and categories: their products; attributes shown elsewhere.
  drop trigger if exists families_changes_relabelled on families;
  create trigger families_changes_relabelled after update on families
    referencing old table as catalog_old_rows new table as catalog_new_rows
    for each statement execute function catalog_changes_relabelled('family_id');
  drop trigger if exists categories_changes_relabelled on categories;
  create trigger categories_changes_relabelled after update on categories
    referencing old table as catalog_old_rows new table as catalog_new_rows
    for each statement execute function catalog_changes_relabelled('category_id');
  drop trigger if exists attributes_changes_shown on attributes;
  create trigger attributes_changes_shown after update on attributes
    referencing old table as catalog_old_rows new table as catalog_new_rows
    for each statement execute function catalog_changes_attributes_shown();
end $$;

-- Everything an organization holds, noted as changed: the seed's bulk load (without triggers) ends with it, so that
-- a client following the feed from before the seed sees every object it loaded.
create or replace function catalog_changes_note_all(org text) returns void
  language plpgsql
  as $$
  declare
    r record;
  begin
    select array_agg(org_id) o, array_agg(t) t, array_agg(id) i into r
      from (select org_id, 'channels' t, id from channels where org_id = org
            union all select org_id, 'families', id from families where org_id = org
            union all select org_id, 'attributes', id from attributes where org_id = org
            union all select org_id, 'categories', id from categories where org_id = org
            union all select org_id, 'media', id from media where org_id = org
            union all select org_id, 'products', id from products where org_id = org) d;
    if r.o is not null then
      perform catalog_changes_note(r.o, r.t, r.i);
    end if;
  end $$;
