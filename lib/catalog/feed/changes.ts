import "server-only";
import { isoSql } from "@/db/schema";
import { CursorError } from "@/lib/catalog/catalog-errors";
import type { ChangeSignals } from "./change-signals";
import type { CatalogContext } from "@/lib/catalog/context";
import { ITEM_READERS, MIRRORED, type Item, type Mirrored } from "@/lib/catalog/resources/items";
import { documentView, FEED_CHECK_MAX, readProductLines } from "./product-documents";
import {
  cursorParam,
  defineQuery,
  enumListParam,
  integerParam,
  type QueryOf,
} from "@/lib/catalog/list/query-grammar";

// The change feed (migration 0016): the organization's log of the objects whose public shape changed, in
// commit order, each served as it is when read: an upsert with its public shape, or a delete when the object is no
// longer there (deleted, a media made private). An object changed twice between two reads may be served twice,
// each time as it is now; a delete is never lost (the object's last event is served after every earlier one).

// One event of the feed.
export interface ChangeEvent {
  /** Its position in the organization's feed: continue with `after=<cursor>`. */
  cursor: string;
  type: Mirrored;
  id: string;
  op: "upsert" | "delete";
  /** When the transaction that made it committed. */
  at: string;
  /** The object's public shape now (products, families, attributes read whole); null for a delete. */
  item: Item | null;
}

// A page of the feed: its events in cursor order, the cursor to continue from (the last event's, or further when
// events of other types were passed over), and whether more are already there.
export interface ChangesPage {
  data: ChangeEvent[];
  cursor: string;
  hasMore: boolean;
}

// The organization's last cursor committed (head) and the last one pruned by the retention (floor).
const STATE_SQL = `select coalesce((select head from catalog_change_heads where org_id = $1), 0)::text as head,
  coalesce((select floor from catalog_change_floors where org_id = $1), 0)::text as floor`;

// The organization's ($1) floor and its events after the cursor $2, in cursor order, at most $3. One statement, so
// one snapshot: a retention pass that pruned past the cursor after STATE_SQL was read is seen here (its floor moved
// with the rows it deleted), never taken for "no events".
// Its work is the page's, however the events lie: the first $3 commits after the cursor (each has an event: by
// their primary key, in order), from each only the events the page still needs (`need`: what the commits before it
// left), read from the first one after the cursor (by their primary key: org, transaction, ordinal). Joined plainly,
// commits to events with the cursor as a filter, a page inside one large commit (the seed's: every object of the
// organization) read the whole commit to sort it, so that a catch-up through a million-object seed cost minutes of
// database time. Measured: bench/README.md#feed-and-export-statements
const EVENTS_SQL = `with f as (select coalesce((select floor from catalog_change_floors where org_id = $1), 0) as floor),
  c as (select last_cursor, first_cursor, txid, ord_from, ord_to, at,
               greatest(first_cursor - 1, $2::bigint) - first_cursor + 1 as skip
          from catalog_change_commits
         where org_id = $1 and last_cursor > $2::bigint
         order by last_cursor
         limit $3),
  w as (select c.*, least(last_cursor - first_cursor + 1 - skip,
                          $3 - coalesce(sum(last_cursor - first_cursor + 1 - skip)
                                          over (order by last_cursor rows between unbounded preceding and 1 preceding), 0)) as need
          from c)
select f.floor::text as floor, e.cursor::text as cursor, e.type, e.id, e.at
  from f
  left join lateral (
    select w.first_cursor + (ch.ordinal - w.ord_from) as cursor, ch.type, ch.id, ${isoSql("w.at")} as at
      from w
     cross join lateral (
       select ordinal, type, id from catalog_changes
        where org_id = $1 and txid = w.txid and ordinal between w.ord_from + w.skip and w.ord_to
        order by ordinal
        limit w.need) ch
     where w.need > 0) e on true
 order by e.cursor`;

// At most this many events are scanned for one page (events of types not asked are passed over).
export const SCAN_MAX = 10_000;

// The query of GET /public/v1/changes: where to continue from, which types, how many, how long to wait for one.
export const changesQuery = defineQuery({
  after: cursorParam(
    "0",
    "Continue after this cursor: the `cursor` of the previous answer, or the one on the last line of an export. Omitted: `0`, the start of the feed. A cursor older than the feed keeps (30 days by default) answers 410: export again.",
  ),
  types: enumListParam(
    MIRRORED,
    "Only events of these resources. Omitted: every resource the key may read (channels with any read scope); naming one the key may not read is a 403.",
  ),
  limit: integerParam(1, 1000, 100, "Most events in the answer (1 to 1000)."),
  wait: integerParam(
    0,
    30,
    0,
    "Seconds to wait (0 to 30) when there is no event after the cursor yet: the answer comes as soon as one is committed, else at the end of the wait with no event and the cursor to continue from (long polling). The client ends the wait by closing the request.",
  ),
});
export type ChangesQuery = QueryOf<typeof changesQuery>;

// The organization's feed head and floor.
export async function feedState(
  ctx: CatalogContext,
  orgId: string,
): Promise<{ head: string; floor: string }> {
  const [row] = await ctx.db.query<{ head: string; floor: string }>(STATE_SQL, [orgId]);
  return row ?? { head: "0", floor: "0" };
}

// The events after a cursor, of the types asked, at most `limit`; CursorError for a cursor before the retention's
// floor or past the head.
export async function readChanges(
  ctx: CatalogContext,
  org: { id: string; slug: string },
  q: { after: string; types: readonly Mirrored[]; limit: number },
  baseUrl: string,
): Promise<ChangesPage> {
  const { head, floor } = await feedState(ctx, org.id);
  const after = BigInt(q.after);
  if (after < BigInt(floor)) throw new CursorError("expired", q.after, floor);
  if (after > BigInt(head)) throw new CursorError("unknown", q.after, head);
  if (after === BigInt(head)) return { data: [], cursor: after.toString(), hasMore: false };
  const wanted = new Set(q.types);
  // Every type asked (a type named twice counts once): the events are the page, no more are scanned.
  const all = wanted.size === MIRRORED.length;
  const scan = all ? q.limit : Math.min(SCAN_MAX, q.limit * 20);
  const found = await ctx.db.query<{
    floor: string;
    cursor: string | null;
    type: Mirrored;
    id: string;
    at: string;
  }>(EVENTS_SQL, [org.id, after.toString(), scan]);
  const pruned = found[0]?.floor ?? floor;
  if (after < BigInt(pruned)) throw new CursorError("expired", q.after, pruned);
  const rows = found.filter((r) => r.cursor !== null) as {
    cursor: string;
    type: Mirrored;
    id: string;
    at: string;
  }[];
  const page = rows.filter((r) => wanted.has(r.type)).slice(0, q.limit);
  // Where the next page starts: after the last event served when the page is full, else after the last one scanned.
  const full = page.length === q.limit;
  const cursor = full ? page[page.length - 1]!.cursor : (rows[rows.length - 1]?.cursor ?? after.toString());
  // One event per object in the page: its last (an earlier one would be served as the object is now all the same).
  const last = new Map<string, number>();
  page.forEach((r, i) => last.set(`${r.type}\u0000${r.id}`, i));
  const events = page.filter((r, i) => last.get(`${r.type}\u0000${r.id}`) === i);
  const items = new Map<string, Item>();
  for (const type of MIRRORED) {
    const ids = [...new Set(events.filter((e) => e.type === type).map((e) => e.id))];
    if (ids.length === 0) continue;
    // Products from their documents where the log proves them current (each as it is now, or later than the view:
    // a change after it has a later cursor, and its event serves the product again).
    const read =
      type === "products"
        ? (
            await readProductLines(
              ctx,
              org,
              { ids },
              baseUrl,
              await documentView(ctx.db, org.id, baseUrl, pruned, FEED_CHECK_MAX),
            )
          ).map((l) => JSON.parse(l.json) as Item)
        : await ITEM_READERS[type](ctx, org, { ids }, baseUrl);
    for (const item of read) items.set(`${type}\u0000${item.id}`, item);
  }
  return {
    data: events.map((e) => {
      const item = items.get(`${e.type}\u0000${e.id}`) ?? null;
      return { cursor: e.cursor, type: e.type, id: e.id, op: item ? "upsert" : "delete", at: e.at, item };
    }),
    cursor,
    hasMore: BigInt(cursor) < BigInt(head),
  };
}

// Follows the feed for one request: the events after the cursor as readChanges gives them or, when there is none yet
// and the query waits, the first ones committed within `wait` seconds (woken by `signals`, and reading again each
// time). Ends with an empty page and the cursor it read up to at the end of the wait, or as soon as `abort` fires.
// The wait holds no connection: only the reads do.
export async function followChanges(
  ctx: CatalogContext,
  org: { id: string; slug: string },
  q: { after: string; types: readonly Mirrored[]; limit: number; wait: number },
  baseUrl: string,
  wait: {
    signals: ChangeSignals;
    abort?: AbortSignal;
    now?: () => number;
    /** Runs each wait for an event (the API: outside the request's place in its admission). */
    idle?: (wait: () => Promise<boolean>) => Promise<boolean>;
  },
): Promise<ChangesPage> {
  if (q.wait <= 0) return readChanges(ctx, org, q, baseUrl);
  const until = (wait.now ?? Date.now)() + q.wait * 1000;
  // Watched before the first read: a commit notified while it reads wakes the wait that follows.
  const watch = wait.signals.watch(org.id);
  try {
    let after = q.after;
    for (;;) {
      const page = await readChanges(ctx, org, { ...q, after }, baseUrl);
      // An event, or more of other types to pass over (hasMore): the client asks again at once.
      if (page.data.length > 0 || page.hasMore) return page;
      after = page.cursor;
      const next = () => watch.next(after, until, wait.abort);
      if (!(await (wait.idle ? wait.idle(next) : next()))) return page;
    }
  } finally {
    watch.close();
  }
}
