// One organization's products as the lists sort, filter and count them, in memory, at one cursor of its change feed:
// each product's sort keys (updatedAt, label, identifier, status), its family, category and search text, every
// documented sort's order as an array of slots, and the totals of the filters asked so far. A deep page is a slice
// of an order, a total a counter or a binary search, and a change applied moves only the products it names
// (ProductMemory keeps it caught up with the feed). No database here: this module is the data structure alone.
import { JoinedTexts } from "./joined-texts";
import { insertSlot, mergeSlots, removeSlot, withoutSlots } from "./orders";
import { INDEXED_SORTS, ProductColumns, type IndexedSort, type ProductKeyRow } from "./product-columns";

export { INDEXED_SORTS, type IndexedSort, type ProductKeyRow } from "./product-columns";

// A list's filters as the index counts them. `q`: the search term already folded by catalog_fold, without LIKE's
// wildcards (the caller checks), so that "contains" is the statement's `like '%…%'`.
export interface MemoryFilter {
  familyId?: string;
  categoryId?: string;
  updatedSinceMs?: number;
  q?: string;
}

// Past this many products changed at once, cached filter totals are dropped (counted again when asked) rather than
// adjusted product by product, and the orders are rebuilt by a merge instead of moved one product at a time.
const ADJUST_MAX = 2_000;
const MOVE_MAX = 64;

export class ProductIndex extends ProductColumns {
  /** The feed cursor this index holds the products at. */
  cursor: string;
  private readonly orders = new Map<IndexedSort, Int32Array>();
  /** Slots in every order (the products held). */
  private n = 0;
  /** Totals of filters asked (key: the filter), exact at `cursor`; adjusted as changes are applied. */
  private readonly totals = new Map<string, { filter: MemoryFilter; total: number }>();
  private readonly maxTotals: number;
  /** Every search text joined (by NUL, which no text holds), for a search's first count; slots changed since it was
   * joined are `dirty` and tested one by one. */
  private joined?: JoinedTexts;
  private readonly dirty = new Set<number>();

  constructor(cursor: string, opts: { maxTotals?: number } = {}) {
    super();
    this.cursor = cursor;
    this.maxTotals = opts.maxTotals ?? 2_000;
    for (const s of INDEXED_SORTS) this.orders.set(s, new Int32Array(0));
  }

  /** Products held. */
  get size(): number {
    return this.n;
  }

  /**
   * Loading, in three steps, from one snapshot: `loadRows` with every product, in any order, a batch at a time;
   * `loadOrder` with, for each sort, the ids in the database's ascending order, a batch at a time, each checked
   * against this module's comparison (it throws where they disagree, a collation of ids that is not byte order:
   * such an index could not place a change); then `finishLoad`.
   */
  loadRows(rows: readonly ProductKeyRow[]): void {
    this.grow(this.used + rows.length);
    for (const r of rows) {
      const slot = this.put(r);
      this.n++;
      this.families.add(this.family[slot]!, 1);
      this.categories.add(this.category[slot]!, 1);
    }
  }

  loadOrder(sort: IndexedSort, ids: readonly string[]): void {
    const order = this.orders.get(sort)!;
    let at = this.loaded.get(sort) ?? 0;
    for (const id of ids) {
      const slot = this.slotOf.get(id);
      if (slot === undefined || at >= this.n)
        throw new Error(`ProductIndex: ${id} of the ${sort} order is not loaded`);
      if (at > 0 && this.compare(sort, order[at - 1]!, slot) >= 0) {
        throw new Error(`ProductIndex: the ${sort} order is not this module's (${id})`);
      }
      order[at++] = slot;
    }
    this.loaded.set(sort, at);
  }
  private readonly loaded = new Map<IndexedSort, number>();

  protected widened(next: number, widen: (o: Int32Array) => Int32Array): void {
    for (const [s, o] of this.orders) if (o.length < next) this.orders.set(s, widen(o));
  }

  finishLoad(): void {
    for (const s of INDEXED_SORTS) {
      if (this.loaded.get(s) !== this.n) throw new Error(`ProductIndex: the ${s} order is short`);
    }
    this.loaded.clear();
    this.join();
  }

  /**
   * Applies the products changed since `cursor`, read at `cursor` (each id with its row, or null: no longer there).
   */
  apply(changed: ReadonlyMap<string, ProductKeyRow | null>, cursor: string): void {
    const k = changed.size;
    const adjust = k <= ADJUST_MAX;
    if (!adjust) this.totals.clear();
    const old: number[] = [];
    for (const id of changed.keys()) {
      const slot = this.slotOf.get(id);
      if (slot !== undefined) old.push(slot);
    }
    // Out of the orders and totals with their old keys.
    if (old.length <= MOVE_MAX) for (const slot of old) this.unplace(slot);
    else this.unplaceAll(new Set(old));
    for (const slot of old) {
      this.uncount(slot, adjust);
      this.dirty.add(slot);
    }
    // Their new keys.
    const placed: number[] = [];
    for (const [id, row] of changed) {
      const slot = this.slotOf.get(id);
      if (slot !== undefined) {
        this.slotOf.delete(id);
        this.free.push(slot);
        this.ids[slot] = "";
        this.searches[slot] = "";
        this.identifiers[slot] = "";
      }
      if (row) {
        this.grow(this.used + 1);
        placed.push(this.put(row));
      }
    }
    if (placed.length <= MOVE_MAX) for (const slot of placed) this.place(slot);
    else this.placeAll(placed);
    for (const slot of placed) {
      this.countIn(slot, adjust);
      this.dirty.add(slot);
    }
    this.cursor = cursor;
  }

  /** The ids of a page of an order: `offset` rows skipped, at most `limit`, among the products matching `since`
   * (updatedAt order only: a window of it is one stretch). */
  slice(sort: IndexedSort, order: "asc" | "desc", offset: number, limit: number, sinceMs?: number): string[] {
    const o = this.orders.get(sort)!;
    let lo = 0;
    const hi = this.n;
    if (sinceMs !== undefined) {
      if (sort !== "updatedAt")
        throw new Error("ProductIndex.slice: a window is one stretch of the updatedAt order");
      lo = this.firstUpdatedAtOrAfter(sinceMs);
    }
    const out: string[] = [];
    if (order === "asc") {
      for (let i = lo + offset; i < hi && out.length < limit; i++) out.push(this.ids[o[i]!]!);
    } else {
      for (let i = hi - 1 - offset; i >= lo && out.length < limit; i--) out.push(this.ids[o[i]!]!);
    }
    return out;
  }

  /** The exact total of a filter at `cursor`. */
  count(f: MemoryFilter): number {
    const { familyId, categoryId, updatedSinceMs, q } = f;
    if (familyId === undefined && categoryId === undefined && q === undefined) {
      return updatedSinceMs === undefined ? this.n : this.n - this.firstUpdatedAtOrAfter(updatedSinceMs);
    }
    if (categoryId === undefined && updatedSinceMs === undefined && q === undefined) {
      return this.families.count(familyId!);
    }
    if (familyId === undefined && updatedSinceMs === undefined && q === undefined) {
      return this.categories.count(categoryId!);
    }
    const key = JSON.stringify([familyId, categoryId, updatedSinceMs, q]);
    const kept = this.totals.get(key);
    if (kept) {
      this.totals.delete(key);
      this.totals.set(key, kept);
      return kept.total;
    }
    let total = 0;
    if (q !== undefined) {
      const rest = { ...f, q: undefined };
      this.forEachContaining(q, (slot) => {
        if (this.matches(slot, rest)) total++;
      });
    } else {
      for (const slot of this.orders.get("updatedAt")!.subarray(0, this.n))
        if (this.matches(slot, f)) total++;
    }
    this.totals.set(key, { filter: f, total });
    if (this.totals.size > this.maxTotals) this.totals.delete(this.totals.keys().next().value!);
    return total;
  }

  /** Approximate bytes held: strings at two bytes a character plus their headers, the arrays, the id map. */
  approximateBytes(): number {
    let chars = 0;
    for (let s = 0; s < this.ids.length; s++) {
      chars += this.ids[s]!.length + this.identifiers[s]!.length + this.searches[s]!.length;
    }
    const perSlot = 4 + 8 + 1 + 4 + 4 + 4 * INDEXED_SORTS.length + 3 * 8 + 3 * 16 + 40;
    return chars + this.labelAt.length * perSlot;
  }

  // Calls `fn` with every product whose search text holds `q`: one search of the joined texts, then the products
  // changed since they were joined. Joined anew once a twentieth changed.
  private forEachContaining(q: string, fn: (slot: number) => void): void {
    if (!this.joined || this.dirty.size > this.n / 20) this.join();
    this.joined!.forEachContaining(q, this.dirty, fn);
    for (const slot of this.dirty) if (this.ids[slot] !== "" && this.searches[slot]!.includes(q)) fn(slot);
  }

  private join(): void {
    const order = this.orders.get("updatedAt")!.subarray(0, this.n);
    this.joined = new JoinedTexts(order, (slot) => this.searches[slot]!);
    this.dirty.clear();
  }

  private matches(slot: number, f: MemoryFilter): boolean {
    if (f.familyId !== undefined && this.family[slot] !== this.families.peek(f.familyId)) return false;
    if (f.categoryId !== undefined && this.category[slot] !== this.categories.peek(f.categoryId))
      return false;
    if (f.updatedSinceMs !== undefined && this.updated[slot]! < f.updatedSinceMs) return false;
    if (f.q !== undefined && !this.searches[slot]!.includes(f.q)) return false;
    return true;
  }

  // A product's part of the counters and of the kept totals, taken out (its keys still the old ones) or put in.
  private uncount(slot: number, adjust: boolean): void {
    this.families.add(this.family[slot]!, -1);
    this.categories.add(this.category[slot]!, -1);
    if (adjust) for (const t of this.totals.values()) if (this.matches(slot, t.filter)) t.total--;
  }

  private countIn(slot: number, adjust: boolean): void {
    this.families.add(this.family[slot]!, 1);
    this.categories.add(this.category[slot]!, 1);
    if (adjust) for (const t of this.totals.values()) if (this.matches(slot, t.filter)) t.total++;
  }

  // The first position of the updatedAt order at or after an instant.
  private firstUpdatedAtOrAfter(ms: number): number {
    const o = this.orders.get("updatedAt")!;
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.updated[o[mid]!]! < ms) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  // Takes one slot out of every order (its keys still the old ones), or several at once.
  private unplace(slot: number): void {
    for (const s of INDEXED_SORTS) {
      if (!removeSlot(this.orders.get(s)!, this.n, slot, (a, b) => this.compare(s, a, b))) {
        throw new Error(`ProductIndex: ${this.ids[slot]} is not where its keys sort`);
      }
    }
    this.n--;
  }

  private unplaceAll(slots: Set<number>): void {
    for (const s of INDEXED_SORTS) withoutSlots(this.orders.get(s)!, this.n, slots);
    this.n -= slots.size;
  }

  // Puts one slot into every order at its place, or several at once (by a merge).
  private place(slot: number): void {
    for (const s of INDEXED_SORTS)
      insertSlot(this.orders.get(s)!, this.n, slot, (a, b) => this.compare(s, a, b));
    this.n++;
  }

  private placeAll(slots: number[]): void {
    for (const s of INDEXED_SORTS) {
      this.orders.set(
        s,
        mergeSlots(this.orders.get(s)!, this.n, slots, (a, b) => this.compare(s, a, b)),
      );
    }
    this.n += slots.length;
  }
}
