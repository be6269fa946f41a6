import type { Product } from "@/lib/catalog/resources/schemas";
import { Interned } from "./interned";
import { PackedTexts } from "./packed-texts";
import { compareC } from "./text-order";

// The sortable fields an order is kept for (each ascending; the descending order is its reverse, since the id breaks
// ties in the first key's direction).
export const INDEXED_SORTS = ["updatedAt", "label", "identifier", "status"] as const;
export type IndexedSort = (typeof INDEXED_SORTS)[number];

// The columns of a product item (productColumns in lib/catalog/resources/products.ts), as a row.
export interface ProductRow {
  id: string;
  identifier: string;
  label: string;
  status: Product["status"];
  family_id: string;
  family_label: string;
  category_id: string;
  category_label: string;
  updated_at: string;
}

// A product's keys and item columns as the build and catch-up statements read them.
export interface ProductKeyRow {
  id: string;
  identifier: string;
  /** The stored label ('': the item shows the identifier). */
  label: string;
  family_label: string;
  category_label: string;
  /** The stored search column: folded identifier, chr(31), folded label (label_sort). */
  search: string;
  label_sort: string;
  /** updated_at in milliseconds since the epoch (timestamptz(3): exact in a double). */
  updated_ms: number;
  status: string;
  family_id: string;
  category_id: string;
}

// The statuses in the order of their text under `collate "C"` (the column's): a status sorts by its rank here.
const STATUSES = ["archived", "draft", "published"] as const;

// The latest instant toISOString writes as to_char's 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"' (9999-12-31T23:59:59.999Z); from
// year 10000 on they differ, and such a product's item is read by SQL.
const LAST_ISO_MS = 253_402_300_799_999;

// The columns of an organization's products in memory, one slot per product (ProductIndex adds the orders, totals
// and changes): each product's id, sort keys, family, category, search text and label, the labels of its family and
// category, and how two slots compare in a sort. A page's items are read from here, no statement needed.
export abstract class ProductColumns {
  protected ids: string[] = [];
  protected identifiers: string[] = [];
  protected searches: string[] = [];
  protected labelAt = new Int32Array(0);
  protected updated = new Float64Array(0);
  protected status = new Uint8Array(0);
  protected family = new Int32Array(0);
  protected category = new Int32Array(0);
  protected readonly slotOf = new Map<string, number>();
  protected readonly free: number[] = [];
  /** Slots ever used (the next new one). */
  protected used = 0;
  protected readonly families = new Interned();
  protected readonly categories = new Interned();
  protected readonly labels = new PackedTexts();
  /** Each product's item as JSON (itemJson), rendered when first read and cleared when its slot is. */
  protected readonly items = new PackedTexts();
  private renderedBy: ((row: ProductRow) => string) | undefined;

  // Every order given room for `next` slots (the columns grew).
  protected abstract widened(next: number, widen: (o: Int32Array) => Int32Array): void;

  // Writes a row into a free slot (or a new one) and returns it; the orders and counts are the caller's.
  protected put(r: ProductKeyRow): number {
    const labelAt = r.search.length - r.label_sort.length;
    if (labelAt < 1 || r.search.charCodeAt(labelAt - 1) !== 31 || !r.search.endsWith(r.label_sort)) {
      throw new Error(`ProductIndex: the search text of ${r.id} does not end with its label_sort`);
    }
    const status = STATUSES.indexOf(r.status as (typeof STATUSES)[number]);
    if (status < 0) throw new Error(`ProductIndex: unknown status ${r.status}`);
    const slot = this.free.pop() ?? this.used++;
    this.ids[slot] = r.id;
    this.identifiers[slot] = r.identifier;
    this.searches[slot] = r.search;
    this.labelAt[slot] = labelAt;
    this.updated[slot] = Number(r.updated_ms);
    this.status[slot] = status;
    this.family[slot] = this.families.id(r.family_id, r.family_label);
    this.category[slot] = this.categories.id(r.category_id, r.category_label);
    this.labels.set(slot, r.label);
    this.items.clear(slot);
    this.slotOf.set(r.id, slot);
    return slot;
  }

  /** A held product's item columns, as the SQL of a product item reads them; none when the id is not held (or its
   * instant is past what toISOString writes as SQL does). */
  row(id: string): ProductRow | undefined {
    const slot = this.slotOf.get(id);
    return slot === undefined ? undefined : this.rowAt(slot);
  }

  /** The id held in a slot. */
  idAt(slot: number): string {
    return this.ids[slot]!;
  }

  /** The item columns of the product in a slot in use (row). */
  rowAt(slot: number): ProductRow | undefined {
    const ms = this.updated[slot]!;
    if (ms < 0 || ms > LAST_ISO_MS) return undefined;
    const identifier = this.identifiers[slot]!;
    const f = this.family[slot]!;
    const c = this.category[slot]!;
    return {
      id: this.ids[slot]!,
      identifier,
      label: this.labels.get(slot) || identifier,
      status: STATUSES[this.status[slot]!]!,
      family_id: this.families.value(f),
      family_label: this.families.label(f),
      category_id: this.categories.value(c),
      category_label: this.categories.label(c),
      updated_at: new Date(ms).toISOString(),
    };
  }

  /** The UTF-8 JSON of the item of the product in a slot in use, `render(rowAt(slot))`: rendered on its first read
   * and kept until the product changes (a page of a hundred items is then joined, not built). None when rowAt has
   * none. One `render` per index: another drops what the first rendered. */
  itemJson(slot: number, render: (row: ProductRow) => string): Uint8Array | undefined {
    if (render !== this.renderedBy) {
      if (this.renderedBy) for (let s = 0; s < this.used; s++) this.items.clear(s);
      this.renderedBy = render;
    }
    const kept = this.items.bytesOf(slot);
    if (kept) return kept;
    const row = this.rowAt(slot);
    if (!row) return undefined;
    this.items.set(slot, render(row));
    return this.items.bytesOf(slot);
  }

  // Approximate bytes of the columns: strings at two bytes a character plus their headers, the arrays (and
  // `orderBytes` a slot for the subclass's orders), the id map, the packed labels and items.
  protected columnBytes(orderBytes: number): number {
    let chars = 0;
    for (let s = 0; s < this.ids.length; s++) {
      chars += this.ids[s]!.length + this.identifiers[s]!.length + this.searches[s]!.length;
    }
    const perSlot = 4 + 8 + 1 + 4 + 4 + orderBytes + 3 * 8 + 3 * 16 + 40;
    return chars + this.labelAt.length * perSlot + this.labels.approximateBytes + this.items.approximateBytes;
  }

  // Room for `size` slots in every column and order.
  protected grow(size: number): void {
    const cap = this.labelAt.length;
    if (size <= cap) return;
    const next = Math.max(size, Math.ceil(cap * 1.25) + 16);
    const widen = <A extends Int32Array | Float64Array | Uint8Array>(a: A, make: (n: number) => A): A => {
      const b = make(next);
      b.set(a);
      return b;
    };
    this.labelAt = widen(this.labelAt, (n) => new Int32Array(n));
    this.updated = widen(this.updated, (n) => new Float64Array(n));
    this.status = widen(this.status, (n) => new Uint8Array(n));
    this.family = widen(this.family, (n) => new Int32Array(n));
    this.category = widen(this.category, (n) => new Int32Array(n));
    this.widened(next, (o) => widen(o, (n) => new Int32Array(n)));
  }

  // Ascending comparison of two slots in a sort, the id last.
  protected compare(sort: IndexedSort, a: number, b: number): number {
    let c = 0;
    if (sort === "updatedAt") c = this.updated[a]! - this.updated[b]!;
    else if (sort === "status") c = this.status[a]! - this.status[b]!;
    else if (sort === "label")
      c = compareC(this.searches[a]!, this.labelAt[a]!, this.searches[b]!, this.labelAt[b]!);
    else c = compareC(this.identifiers[a]!, 0, this.identifiers[b]!, 0);
    return c !== 0 ? c : compareC(this.ids[a]!, 0, this.ids[b]!, 0);
  }
}
