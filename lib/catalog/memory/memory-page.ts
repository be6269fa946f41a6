import "server-only";
import type { CatalogContext } from "@/lib/catalog/context";
import type { Statement } from "@/lib/catalog/sql";
import type { ProductRow } from "./product-columns";
import type { ProductIndex } from "./product-index";

// A page the organization's index both picks and holds the items of (`render` of a product item's columns, as the
// index keeps it: ProductColumns.itemJson): read from the index once it is caught up to at least the feed's head
// `head` (read with the answer's versions, in their statement; else here), no statement of rows. The index at any
// cursor is one snapshot of the products; one at or past the head shows every change committed before the request.
// Undefined when the index is gone, stays behind after two catch-ups, or does not hold a row as SQL would read it:
// the caller's statements answer.
export async function heldPage(
  ctx: CatalogContext,
  orgId: string,
  pick: (idx: ProductIndex) => { slots: number[]; total: number },
  render: (row: ProductRow) => string,
  head?: string,
): Promise<{ items: Uint8Array[]; total: number; cursor: string } | undefined> {
  const memory = ctx.memory;
  if (!memory?.index(orgId)) return undefined;
  const at = BigInt(head ?? (await memory.head(ctx, orgId)));
  let idx = memory.index(orgId);
  // A catch-up already running may have read before `at`: a second one reads after it.
  for (let attempt = 0; idx && BigInt(idx.cursor) < at && attempt < 2; attempt++) {
    idx = await memory.catchUp(ctx, orgId);
  }
  if (!idx || BigInt(idx.cursor) < at) return undefined;
  const { slots, total } = pick(idx);
  const items: Uint8Array[] = [];
  for (const slot of slots) {
    const item = idx.itemJson(slot, render);
    if (!item) return undefined;
    items.push(item);
  }
  return { items, total, cursor: idx.cursor };
}

// A page whose rows an organization's index in memory picks (a slice of one of its orders) and a statement reads by
// id. The statement's rows carry the feed's head (FEED_HEAD_COLUMN) and the resource's version: the page is the index's
// only when that head is the index's cursor and every id picked is read (one snapshot: what the index picked is what
// the rows are). Else the index catches up and picks again, once; then undefined: the plain statements answer.
export async function pageFromMemory<Row extends { id: string }>(
  ctx: CatalogContext,
  orgId: string,
  pick: (idx: ProductIndex) => { slots: number[]; total: number },
  read: (ids: string[]) => Statement,
): Promise<{ rows: Row[]; total: number; version?: string } | undefined> {
  const memory = ctx.memory;
  let idx = memory?.index(orgId);
  for (let attempt = 0; memory && idx && attempt < 2; attempt++) {
    const cursor = idx.cursor;
    const picked = pick(idx);
    const ids = picked.slots.map((slot) => idx!.idAt(slot));
    const total = picked.total;
    type Read = Row & { feed_head: string; catalog_version: string };
    let rows: Read[] = [];
    let head: string | undefined;
    if (ids.length > 0) {
      const st = read(ids);
      rows = await ctx.db.query<Read>(st.sql, st.params);
      head = rows[0]?.feed_head;
    } else {
      head = await memory.head(ctx, orgId);
    }
    if (head === cursor && rows.length === ids.length) {
      const at = new Map(ids.map((id, i) => [id, i]));
      rows.sort((a, b) => at.get(a.id)! - at.get(b.id)!);
      return { rows, total, version: rows[0]?.catalog_version };
    }
    idx = await memory.catchUp(ctx, orgId);
  }
  return undefined;
}
