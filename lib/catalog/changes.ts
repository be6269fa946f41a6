import "server-only";
import { isoSql } from "@/db/schema";
import { CursorError } from "./catalog-errors";
import type { CatalogContext } from "./context";
import { ITEM_READERS, MIRRORED, type Item, type Mirrored } from "./items";

// The change feed (issue 24, migration 0016): the organization's log of the objects whose public shape changed, in
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

// The organization's ($1) events after the cursor $2, in cursor order, at most $3: its first $3 commits after the
// cursor (by their primary key, in order), and of each its first $3 rows after the cursor (by theirs: a range of
// ordinals, in order). Bounded by $3 whatever a transaction's size: a family renamed over 100,000 products, or the
// seed's load, is one commit of as many rows, read a page at a time without sorting it.
const EVENTS_SQL = `select (cm.first_cursor + (ch.ordinal - cm.ord_from))::text as cursor, ch.type, ch.id,
       ${isoSql("cm.at")} as at
  from (select * from catalog_change_commits
         where org_id = $1 and last_cursor > $2::bigint
         order by last_cursor
         limit $3) cm
  cross join lateral (
    select ch.ordinal, ch.type, ch.id
      from catalog_changes ch
     where ch.org_id = cm.org_id and ch.txid = cm.txid
       and ch.ordinal >= greatest(cm.ord_from, cm.ord_from + ($2::bigint - cm.first_cursor) + 1)
       and ch.ordinal <= cm.ord_to
     order by ch.ordinal
     limit $3) ch
 order by cm.last_cursor, ch.ordinal
 limit $3`;

// At most this many events are scanned for one page (events of types not asked are passed over).
export const SCAN_MAX = 10_000;

// The organization's feed head and floor.
export async function feedState(ctx: CatalogContext, orgId: string): Promise<{ head: string; floor: string }> {
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
  if (after === BigInt(head)) return { data: [], cursor: q.after, hasMore: false };
  const all = q.types.length === MIRRORED.length;
  const scan = all ? q.limit : Math.min(SCAN_MAX, q.limit * 20);
  const rows = await ctx.db.query<{ cursor: string; type: Mirrored; id: string; at: string }>(EVENTS_SQL, [
    org.id,
    q.after,
    scan,
  ]);
  const wanted = new Set(q.types);
  const page = rows.filter((r) => wanted.has(r.type)).slice(0, q.limit);
  // Where the next page starts: after the last event served when the page is full, else after the last one scanned.
  const full = page.length === q.limit;
  const cursor = full ? page[page.length - 1]!.cursor : (rows[rows.length - 1]?.cursor ?? q.after);
  // One event per object in the page: its last (an earlier one would be served as the object is now all the same).
  const last = new Map<string, number>();
  page.forEach((r, i) => last.set(`${r.type}\u0000${r.id}`, i));
  const events = page.filter((r, i) => last.get(`${r.type}\u0000${r.id}`) === i);
  const items = new Map<string, Item>();
  for (const type of MIRRORED) {
    const ids = [...new Set(events.filter((e) => e.type === type).map((e) => e.id))];
    if (ids.length === 0) continue;
    for (const item of await ITEM_READERS[type](ctx, org, { ids }, baseUrl)) items.set(`${type}\u0000${item.id}`, item);
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
