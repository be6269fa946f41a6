-- The capture of rows that belong to an object (0016's catalog_changes_parts: product_values and media_links note
-- their product, family_attributes its family, attribute_options its attribute), one function per table whose
-- statements are written out, instead of one shared function that built its statement with EXECUTE: an EXECUTE is
-- parsed and planned at every call, a static statement once per session. Measured with pgbench on the bench
-- database (a product and its four values inserted, one transaction each, one client): the capture of that write
-- cost 0.45 ms (1.40 ms against 0.96 ms without it), most of it the values' trigger (the write
-- preview's POST was slower with the capture than its target allowed). Same notes, same order: each object once per
-- statement, an update's new rows' objects first.
-- Runs on Postgres 15 (Debian) and on PGlite (Postgres 18).
do $$
declare
  t record;
  op text;
begin
  for t in
    select * from (values
      ('product_values', 'products', 'product_id'),
      ('media_links', 'products', 'product_id'),
      ('family_attributes', 'families', 'family_id'),
      ('attribute_options', 'attributes', 'attribute_id')
    ) v(tbl, type, col)
  loop
    execute format($f$
      create or replace function %1$I() returns trigger
        language plpgsql
        as $body$
        declare
          r record;
        begin
          if tg_op = 'INSERT' then
            select array_agg(org_id) o, array_agg(owner) i into r
              from (select distinct org_id, %2$I as owner from catalog_new_rows where %2$I is not null) d;
          elsif tg_op = 'DELETE' then
            select array_agg(org_id) o, array_agg(owner) i into r
              from (select distinct org_id, %2$I as owner from catalog_old_rows where %2$I is not null) d;
          else
            select array_agg(org_id order by f) o, array_agg(owner order by f) i into r
              from (select org_id, owner, min(k) f
                      from (select org_id, %2$I as owner, 1 as k from catalog_new_rows
                            union all select org_id, %2$I, 2 from catalog_old_rows) x
                     where owner is not null group by org_id, owner) d;
          end if;
          if r.o is not null then
            perform catalog_changes_note(r.o, array_fill(%3$L::text, array[cardinality(r.o)]), r.i);
          end if;
          return null;
        end $body$
      $f$, 'catalog_changes_' || t.tbl, t.col, t.type);
    foreach op in array array['insert', 'delete', 'update']
    loop
      execute format('drop trigger if exists %I on %I', t.tbl || '_changes_' || op, t.tbl);
      execute format('create trigger %I after %s on %I %s for each statement execute function %I()',
                     t.tbl || '_changes_' || op, op, t.tbl,
                     case op when 'insert' then 'referencing new table as catalog_new_rows'
                             when 'delete' then 'referencing old table as catalog_old_rows'
                             else 'referencing old table as catalog_old_rows new table as catalog_new_rows' end,
                     'catalog_changes_' || t.tbl);
    end loop;
  end loop;
end $$;

drop function if exists catalog_changes_parts();

-- 0016's note, which also passes over a note of the one object the transaction's previous note was about (the write
-- preview's POST noted its product three times: the product, its values, its media links). A rolled-back savepoint
-- takes the setting back with its note. Events are "this object may have changed", served as the object is when
-- read: the first note's event already serves it.
create or replace function catalog_changes_note(orgs text[], types text[], ids text[]) returns void
  language plpgsql
  security definer set search_path from current
  as $$
  declare
    o text;
    n bigint;
    added bigint;
    touched text := coalesce(current_setting('catalog.change_orgs', true), '');
    one text;
  begin
    if orgs is null or cardinality(orgs) = 0 then return; end if;
    -- One object noted again by the next statement of the same transaction (a product inserted, then its values,
    -- then its media links): it already has its event in this commit.
    if cardinality(orgs) = 1 then
      one := orgs[1] || '/' || types[1] || '/' || ids[1];
      if one = current_setting('catalog.change_last', true) then return; end if;
      perform set_config('catalog.change_last', one, true);
    end if;
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

