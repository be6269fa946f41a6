-- Orphan media: `orphansOnly=true` probed media_links once per media read, about 130 probes for a page
-- of 20 orphans newest first. Each media now keeps how many links point at it, maintained by statement-level
-- triggers on media_links (one UPDATE per statement, whatever its size), and a partial index holds the public
-- orphans of each organization in the default order.

alter table media add column if not exists link_count integer not null default 0;

update media m set link_count = d.n
  from (select org_id, media_id, count(*)::int as n from media_links group by org_id, media_id) d
 where m.org_id = d.org_id and m.id = d.media_id and m.link_count <> d.n;

-- Adds, per media, the links a statement inserted and removes those it deleted (an update counts as both).
-- A bulk load that skips triggers (session_replication_role = replica) writes link_count itself.
create or replace function media_links_count() returns trigger
  language plpgsql
  as $$
  begin
    if tg_op = 'TRUNCATE' then
      update media set link_count = 0 where link_count <> 0;
    elsif tg_op = 'INSERT' then
      update media m set link_count = m.link_count + d.n
        from (select org_id, media_id, count(*)::int as n from media_links_new group by org_id, media_id) d
       where m.org_id = d.org_id and m.id = d.media_id;
    elsif tg_op = 'DELETE' then
      update media m set link_count = m.link_count - d.n
        from (select org_id, media_id, count(*)::int as n from media_links_old group by org_id, media_id) d
       where m.org_id = d.org_id and m.id = d.media_id;
    else
      update media m set link_count = m.link_count + d.n
        from (select org_id, media_id, sum(n)::int as n
                from (select org_id, media_id, 1 as n from media_links_new
                      union all
                      select org_id, media_id, -1 from media_links_old) x
               group by org_id, media_id
              having sum(n) <> 0) d
       where m.org_id = d.org_id and m.id = d.media_id;
    end if;
    return null;
  end $$;

drop trigger if exists media_links_count_ins on media_links;
drop trigger if exists media_links_count_del on media_links;
drop trigger if exists media_links_count_upd on media_links;
drop trigger if exists media_links_count_trunc on media_links;
create trigger media_links_count_ins after insert on media_links referencing new table as media_links_new
  for each statement execute function media_links_count();
create trigger media_links_count_del after delete on media_links referencing old table as media_links_old
  for each statement execute function media_links_count();
create trigger media_links_count_upd after update on media_links
  referencing old table as media_links_old new table as media_links_new
  for each statement execute function media_links_count();
create trigger media_links_count_trunc after truncate on media_links
  for each statement execute function media_links_count();

-- The public orphans of an organization, newest first (the default order) or oldest first. Built in the same
-- transaction as the backfill above, it also holds the previous versions of the rows that the backfill updated
-- until vacuum removes them: after upgrading a large catalog (1M media: 83 s, 77 MB instead of 8 MB), run
-- `REINDEX INDEX CONCURRENTLY media_org_orphans`.
create index if not exists media_org_orphans on media (org_id, updated_at, id) where link_count = 0 and is_public;
