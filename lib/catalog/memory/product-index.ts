// One organization's products as the lists sort, filter and count them, in memory, at one cursor of its change feed:
// each product's sort keys (updatedAt, label, identifier, status), its family, category and search text, every
// documented sort's order as an array of slots, and what it keeps of the filters asked lately (kept-filters.ts). A
// deep page is a slice of an order (a filtered one a walk along it), a total a counter or a binary search, and a
// change applied moves only the products it names (ProductMemory keeps it caught up with the feed). No database here: this module is the data structure alone.
import { JoinedTexts } from "./joined-texts";
import { KeptFilters, type MemoryFilter } from "./kept-filters";
import { insertSlot, mergeSlots, removeSlot, withoutSlots } from "./orders";
import { INDEXED_SORTS, ProductColumns, type IndexedSort, type ProductKeyRow } from "./product-columns";

export { INDEXED_SORTS, type IndexedSort, type ProductKeyRow } from "./product-columns";

/** A product as a build reads it: its keys and item columns, and its position (from 0) in each sort's ascending
 * order. */
export type LoadRow = ProductKeyRow & Record<`at_${IndexedSort}`, number>;
const POSITION_KEYS = INDEXED_SORTS.map((s) => `at_${s}` as const);
export type { MemoryFilter } from "./kept-filters";

// Past ADJUST_MAX products changed at once, kept filters are dropped (counted again when asked) rather than
// adjusted product by product; past MOVE_MAX, the orders are rebuilt by a merge instead of moved one product at a
// time, and the kept filters' matches and orders dropped instead of moved.
const ADJUST_MAX = 2_000;
const MOVE_MAX = 64;
// A search's matches found first are sorted when at most this many, else marked and read along the order.
const SORT_MAX = 2_000;

export class ProductIndex extends ProductColumns {
  /** The feed cursor this index holds the products at. */
  cursor: string;
  private readonly orders = new Map<IndexedSort, Int32Array>();
  /** Slots in every order (the products held). */
  private n = 0;
  /** Totals (and, when few enough, the matches) of filters asked, exact at `cursor`; adjusted as changes apply. */
  private readonly kept: KeptFilters;
  /** Search texts a filtered page may test along an order before its matches are found first instead. */
  private readonly walkChecks: number;
  /** Every search text joined (by NUL, which no text holds), for a search's first count; slots changed since it was
   * joined are `dirty` and tested one by one. */
  private joined?: JoinedTexts;
  private readonly dirty = new Set<number>();

  constructor(cursor: string, opts: { maxTotals?: number; maxKeptSlots?: number; walkChecks?: number } = {}) {
    super();
    this.cursor = cursor;
    this.kept = new KeptFilters(opts.maxTotals ?? 2_000, opts.maxKeptSlots ?? 2_000_000);
    this.walkChecks = opts.walkChecks ?? 10_000;
    for (const s of INDEXED_SORTS) this.orders.set(s, new Int32Array(0));
  }

  /** Products held. */
  get size(): number {
    return this.n;
  }

  /**
   * Loading, from one snapshot: `loadRows` with every product, in any order, a batch at a time, each with its
   * position in every sort's ascending order as the database sorts (LoadRow); then `finishLoad`, which checks each
   * order against this module's comparison (it throws where they disagree, a collation of ids that is not byte order:
   * such an index could not place a change).
   */
  loadRows(rows: readonly LoadRow[]): void {
    let last = 0;
    for (const r of rows) for (const k of POSITION_KEYS) last = Math.max(last, r[k]);
    this.grow(Math.max(this.used + rows.length, last + 1));
    this.lastAt = Math.max(this.lastAt, last);
    const orders = INDEXED_SORTS.map((s) => this.orders.get(s)!);
    for (const r of rows) {
      const slot = this.put(r);
      this.n++;
      this.families.add(this.family[slot]!, 1);
      this.categories.add(this.category[slot]!, 1);
      for (const [i, o] of orders.entries()) o[r[POSITION_KEYS[i]!]] = slot;
    }
  }
  private lastAt = 0;

  protected widened(next: number, widen: (o: Int32Array) => Int32Array): void {
    for (const [s, o] of this.orders) if (o.length < next) this.orders.set(s, widen(o));
  }

  // Each order strictly ascending over the positions 0..n-1 (no position beyond): n distinct slots of the n loaded.
  finishLoad(): void {
    if (this.n > 0 && this.lastAt >= this.n)
      throw new Error("ProductIndex: a position is past the products loaded");
    for (const s of INDEXED_SORTS) {
      const o = this.orders.get(s)!;
      for (let i = 1; i < this.n; i++) {
        if (this.compare(s, o[i - 1]!, o[i]!) >= 0) {
          throw new Error(`ProductIndex: the ${s} order is not this module's (${this.ids[o[i]!]})`);
        }
      }
    }
    this.join();
  }

  /**
   * Applies the products changed since `cursor`, read at `cursor` (each id with its row, or null: no longer there).
   */
  apply(changed: ReadonlyMap<string, ProductKeyRow | null>, cursor: string): void {
    const k = changed.size;
    const adjust = k <= ADJUST_MAX;
    if (!adjust) this.kept.clear();
    const old: number[] = [];
    for (const id of changed.keys()) {
      const slot = this.slotOf.get(id);
      if (slot !== undefined) old.push(slot);
    }
    // Out of the orders and totals with their old keys.
    if (old.length <= MOVE_MAX) for (const slot of old) this.unplace(slot);
    else this.unplaceAll(new Set(old));
    this.recount(old, -1, adjust);
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
        this.labels.clear(slot);
      }
      if (row) {
        this.grow(this.used + 1);
        placed.push(this.put(row));
      }
    }
    if (placed.length <= MOVE_MAX) for (const slot of placed) this.place(slot);
    else this.placeAll(placed);
    this.recount(placed, 1, adjust);
    this.cursor = cursor;
  }

  /**
   * The slots of a page of an order among the products matching `f`: `offset` matches skipped, at most `limit`. An
   * updatedSince window of the updatedAt order is one stretch of it; other filters are tested product by product
   * along the order, unless the page is not found within a budget of tests (`walkChecks` texts, ten times as many
   * numbers): the filter's matches are then found first (a word's by one search of the joined texts) and put in the
   * order, both kept for the next pages.
   */
  pageSlots(
    sort: IndexedSort,
    order: "asc" | "desc",
    offset: number,
    limit: number,
    f: MemoryFilter = {},
  ): number[] {
    const o = this.orders.get(sort)!;
    const stretch = sort === "updatedAt" && f.updatedSinceMs !== undefined;
    const lo = stretch ? this.firstUpdatedAtOrAfter(f.updatedSinceMs!) : 0;
    const rest: MemoryFilter = stretch ? { ...f, updatedSinceMs: undefined } : f;
    const filtered = Object.values(rest).some((v) => v !== undefined);
    if (!filtered) return this.walk(o, lo, order, 0, limit, () => true, offset)!;
    const total = this.count(f);
    if (offset >= total) return [];
    // The matches in this order when kept; else along the order while the page is found within the budget of slots
    // tested (a text search costs ten times a test of numbers); else the matches found first, then kept.
    let asc = this.kept.get(f)?.orders?.get(sort);
    if (!asc) {
      const budget = rest.q === undefined ? this.walkChecks * 10 : this.walkChecks;
      const likely = (offset + limit) * ((this.n - lo) / total) <= budget;
      const test = this.predicate(rest);
      const walked = likely ? this.walk(o, lo, order, offset, limit, test, 0, budget) : undefined;
      if (walked) return walked;
      asc = this.inOrder(f, sort, o);
    }
    const from = order === "asc" ? offset : asc.length - offset - limit;
    const slots = Array.from(asc.subarray(Math.max(0, from), from + limit));
    return order === "asc" ? slots : slots.reverse();
  }

  // A page along an order from `lo` (or its end, descending): `offset` matches of `test` skipped, at most `limit`
  // taken; `first` positions skipped without testing. Undefined once `budget` slots are tested short of the page.
  private walk(
    o: Int32Array,
    lo: number,
    order: "asc" | "desc",
    offset: number,
    limit: number,
    test: (slot: number) => boolean,
    first = 0,
    budget = Infinity,
  ): number[] | undefined {
    const out: number[] = [];
    let skip = offset;
    const step = order === "asc" ? 1 : -1;
    for (let i = order === "asc" ? lo + first : this.n - 1 - first; i >= lo && i < this.n; i += step) {
      if (budget-- <= 0) return undefined;
      const slot = o[i]!;
      if (!test(slot)) continue;
      if (skip > 0) skip--;
      else if (out.push(slot) === limit) break;
    }
    return out;
  }

  // The matches of a filter in one order, ascending: sorted when few, else marked and read along the order (then
  // kept with them).
  private inOrder(f: MemoryFilter, sort: IndexedSort, o: Int32Array): Int32Array {
    const found = this.matching(f);
    let asc: Int32Array;
    if (found.size <= SORT_MAX) {
      asc = Int32Array.from(found.slots).sort((a, b) => this.compare(sort, a, b));
    } else {
      const marks = new Uint8Array(this.used);
      for (const slot of found.slots) marks[slot] = 1;
      asc = new Int32Array(found.size);
      let j = 0;
      for (let i = 0; i < this.n; i++) if (marks[o[i]!] === 1) asc[j++] = o[i]!;
    }
    this.kept.keepOrder(f, sort, asc);
    return asc;
  }

  // The slots matching a filter: kept, else (then kept, with the total) one search of the joined texts with the rest
  // tested on its matches, or without a search term every product tested.
  private matching(f: MemoryFilter): { size: number; slots: Iterable<number> } {
    const kept = this.kept.get(f);
    if (kept?.slots) return { size: kept.slots.length, slots: kept.slots };
    const others = this.predicate({ ...f, q: undefined });
    const found: number[] = [];
    const add = (slot: number) => {
      if (others(slot)) found.push(slot);
    };
    // Without a search term, the candidates are the updatedAt order's stretch of the window (all without one).
    const lo = f.updatedSinceMs === undefined ? 0 : this.firstUpdatedAtOrAfter(f.updatedSinceMs);
    if (f.q !== undefined) this.forEachContaining(f.q, add);
    else for (const slot of this.orders.get("updatedAt")!.subarray(lo, this.n)) add(slot);
    this.kept.keep(f, found.length, found);
    return { size: found.length, slots: found };
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
    return this.kept.get(f)?.total ?? this.matching(f).size;
  }

  /** Approximate bytes held: the columns' (columnBytes) and the searches' matches kept. */
  approximateBytes(): number {
    return this.columnBytes(4 * INDEXED_SORTS.length) + 4 * (this.joined?.keptSlots ?? 0);
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

  // A filter's test of one slot, its interned ids looked up once (a family never seen matches no product).
  private predicate(f: MemoryFilter): (slot: number) => boolean {
    const fam = f.familyId === undefined ? undefined : this.families.peek(f.familyId);
    const cat = f.categoryId === undefined ? undefined : this.categories.peek(f.categoryId);
    const { family, category, updated, searches } = this;
    const { updatedSinceMs: since, q } = f;
    return (slot) =>
      (fam === undefined || family[slot] === fam) &&
      (cat === undefined || category[slot] === cat) &&
      (since === undefined || updated[slot]! >= since) &&
      (q === undefined || searches[slot]!.includes(q));
  }

  // Products taken out of the counters and kept filters (their keys still the old ones) or put in (their new keys).
  private recount(slots: readonly number[], by: 1 | -1, adjust: boolean): void {
    for (const slot of slots) {
      this.families.add(this.family[slot]!, by);
      this.categories.add(this.category[slot]!, by);
      this.dirty.add(slot);
    }
    const compareOf =
      slots.length <= MOVE_MAX
        ? (sort: string) => (a: number, b: number) => this.compare(sort as IndexedSort, a, b)
        : undefined;
    if (adjust) this.kept.move(slots, (f) => this.predicate(f), by, compareOf);
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
