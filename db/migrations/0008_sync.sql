-- Built for syncing: the catalog version moves with everything a list answer shows, so that an ETag
-- (organization, catalog version, query) never answers 304 over a changed list. 0003 bumps it on the tables of the
-- lists' rows and totals; a product's label in a channel comes from product_values (read with channelId), and the
-- channels decide which channelId is valid: both now bump it too, with the same statement-level triggers (one bump
-- per organization and statement, whatever the number of rows).
-- Runs on Postgres 15 (Debian) and on PGlite (Postgres 18).
do $$
declare
  t text;
begin
  foreach t in array array['product_values', 'channels']
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
