-- The change feed's retention (preview feature `changes`): events are kept CHANGES_RETENTION_DAYS (30 by
-- default), then pruned; a client whose cursor is below its organization's floor gets 410 and re-exports.
-- Runs on Postgres 15 (Debian) and on PGlite (Postgres 18).

-- A commit's `at` is when it committed: 0016 left the column's default, now(), which is when the transaction began
-- (a long one, such as the seed's, committed minutes later with an old `at`). Taken here, under the organization's
-- head lock that orders cursors, clock_timestamp() grows with the cursors of an organization (the next transaction
-- takes the lock only after this one committed), so that "older than the retention" is a first stretch of its log.
-- Otherwise 0016's function as it was.
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
      insert into catalog_change_commits (org_id, last_cursor, first_cursor, txid, ord_from, ord_to, at)
        values (o, first + (n - done) - 1, first, pg_current_xact_id(), done + 1, n, clock_timestamp());
      perform set_config('catalog.change_done_' || md5(o), n::text, true);
      perform pg_notify('catalog_changes', o);
    end loop;
  end $$;

-- Prunes at most `batch` events committed before now() - keep, and returns how many it pruned (0: nothing left to
-- prune). The caller loops until 0: each call is one short transaction, so that no transaction of the retention
-- holds many row locks or a long snapshot.
--
-- Per organization, only a first stretch of its log goes (cursors 1 … F with every commit up to F older than the
-- cutoff), so that a reader after cursor C >= F has every event after C; F becomes the organization's floor, and a
-- cursor below it is answered 410. A commit larger than what is left of the batch (the seed's, with every object of
-- the organization) is pruned in part: its first events go, and its first cursor and ordinal move up.
--
-- It never blocks a writer, nor waits for one: writers insert new commits and events and lock their organization's
-- head row; the retention deletes old commits and events and writes the floors, a table of its own. Two instances
-- pruning at once do not wait for each other either: the second one finds the advisory lock taken and returns 0.
create or replace function catalog_changes_prune(keep interval, batch integer) returns integer
  language plpgsql
  security definer set search_path from current
  as $$
  declare
    cutoff timestamptz := now() - keep;
    budget bigint := greatest(batch, 1);
    pruned integer := 0;
    seen text[] := '{}';
    o record;
    c record;
    k bigint;
    upto bigint;
  begin
    if not pg_try_advisory_xact_lock(hashtext('catalog_changes_prune')) then
      return 0;
    end if;
    -- The organizations with old commits, oldest first (the `at` index).
    for o in select org_id from catalog_change_commits where at < cutoff order by at loop
      exit when budget <= 0;
      continue when o.org_id = any(seen);
      seen := seen || o.org_id;
      upto := null;
      -- Its commits in cursor order (the primary key) until the first one that is kept.
      for c in select last_cursor, first_cursor, txid, ord_from, at from catalog_change_commits
                where org_id = o.org_id order by last_cursor loop
        exit when c.at >= cutoff or budget <= 0;
        k := least(budget, c.last_cursor - c.first_cursor + 1);
        delete from catalog_changes
         where org_id = o.org_id and txid = c.txid and ordinal between c.ord_from and c.ord_from + k - 1;
        if k = c.last_cursor - c.first_cursor + 1 then
          delete from catalog_change_commits where org_id = o.org_id and last_cursor = c.last_cursor;
        else
          update catalog_change_commits set first_cursor = first_cursor + k, ord_from = ord_from + k
           where org_id = o.org_id and last_cursor = c.last_cursor;
        end if;
        upto := c.first_cursor + k - 1;
        budget := budget - k;
        pruned := pruned + k;
      end loop;
      if upto is not null then
        insert into catalog_change_floors as f (org_id, floor) values (o.org_id, upto)
          on conflict (org_id) do update set floor = greatest(f.floor, excluded.floor);
      end if;
    end loop;
    return pruned;
  end $$;
