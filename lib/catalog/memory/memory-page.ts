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

// A page the organization's index picks and holds, each item's label as one statement reads it for the ids picked
// (`labels` by id; an id it has none for keeps the label held). The statement's row carries the feed's head
// (FEED_HEAD_COLUMN): the page is the index's only when that head is the index's cursor, before and after the
// statement (one snapshot: the items held are those of the products the labels were read for). Else the index
// catches up and picks again, once; then undefined: the caller's statements answer. `read`: the statement's row, for
// what else the caller checks in it.
export async function relabelledPage<
  Read extends { labels: Readonly<Record<string, string>> | null; feed_head: string },
>(
  ctx: CatalogContext,
  orgId: string,
  pick: (idx: ProductIndex) => { slots: number[]; total: number },
  labelsOf: (ids: string[]) => Statement,
  render: (row: ProductRow) => string,
): Promise<{ items: Uint8Array[]; total: number; read: Read } | undefined> {
  const memory = ctx.memory;
  let idx = memory?.index(orgId);
  for (let attempt = 0; memory && idx && attempt < 2; attempt++) {
    const held = idx;
    const cursor = held.cursor;
    const { slots, total } = pick(held);
    const st = labelsOf(slots.map((slot) => held.idAt(slot)));
    const [read] = await ctx.db.query<Read>(st.sql, st.params);
    if (read && String(read.feed_head) === cursor && held.cursor === cursor) {
      const items: Uint8Array[] = [];
      for (const slot of slots) {
        const label = read.labels?.[held.idAt(slot)];
        const row = label === undefined ? undefined : held.rowAt(slot);
        const item =
          label === undefined ? held.itemJson(slot, render) : row && Buffer.from(render({ ...row, label }));
        if (!item) return undefined;
        items.push(item);
      }
      return { items, total, read };
    }
    idx = await memory.catchUp(ctx, orgId);
  }
  return undefined;
}
