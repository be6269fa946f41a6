// One organization's products as the lists sort, filter and count them, in memory, at one cursor of its change feed:
// each product's sort keys (updatedAt, label, identifier, status), its family, category and search text, every
// documented sort's order as an array of slots, and the totals of the filters asked so far. A deep page is a slice
// of an order, a total a counter or a binary search, and a change applied moves only the products it names
// (ProductMemory keeps it caught up with the feed). No database here: this module is the data structure alone.

// The sortable fields an order is kept for (each ascending; the descending order is its reverse, since the id breaks
// ties in the first key's direction).
export const INDEXED_SORTS = ["updatedAt", "label", "identifier", "status"] as const;
export type IndexedSort = (typeof INDEXED_SORTS)[number];

// The statuses in the order of their text under `collate "C"` (the column's): a status sorts by its rank here.
const STATUSES = ["archived", "draft", "published"] as const;

// A product's keys as the build and catch-up statements read them.
export interface ProductKeyRow {
  id: string;
  identifier: string;
  /** The stored search column: folded identifier, chr(31), folded label (label_sort). */
  search: string;
  label_sort: string;
  /** updated_at in milliseconds since the epoch (timestamptz(3): exact in a double). */
  updated_ms: number;
  status: string;
  family_id: string;
  category_id: string;
}

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

// Compares two strings from offsets as Postgres compares `collate "C"` text: by code point (UTF-8 byte order). JS
// compares UTF-16 code units, which differ from code points only between a surrogate and a unit above U+E000.
export function compareC(a: string, ai: number, b: string, bi: number): number {
  const la = a.length;
  const lb = b.length;
  while (ai < la && bi < lb) {
    let x = a.charCodeAt(ai++);
    let y = b.charCodeAt(bi++);
    if (x !== y) {
      if (x >= 0xd800 && y >= 0xd800) {
        x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
        y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
      }
      return x - y;
    }
  }
  return la - ai - (lb - bi);
}

export class ProductIndex {
  /** The feed cursor this index holds the products at. */
  cursor: string;
  private ids: string[] = [];
  private identifiers: string[] = [];
  private searches: string[] = [];
  private labelAt = new Int32Array(0);
  private updated = new Float64Array(0);
  private status = new Uint8Array(0);
  private family = new Int32Array(0);
  private category = new Int32Array(0);
  private readonly slotOf = new Map<string, number>();
  private readonly free: number[] = [];
  private readonly orders = new Map<IndexedSort, Int32Array>();
  /** Slots in every order (the products held). */
  private n = 0;
  /** Slots ever used (the next new one). */
  private used = 0;
  private readonly families = new Interned();
  private readonly categories = new Interned();
  /** Totals of filters asked (key: the filter), exact at `cursor`; adjusted as changes are applied. */
  private readonly totals = new Map<string, { filter: MemoryFilter; total: number }>();
  private readonly maxTotals: number;
  /** Every search text joined (by NUL, which no text holds), for a search's first count; slots changed since it was
   * joined are `dirty` and tested one by one. */
  private haystack?: { text: string; starts: Int32Array; slots: Int32Array };
  private readonly dirty = new Set<number>();

  constructor(cursor: string, opts: { maxTotals?: number } = {}) {
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

  // Calls `fn` with every product whose search text holds `q`: one search of the joined texts (far faster than a
  // search per text), then the products changed since they were joined. Joined anew once a twentieth changed.
  private forEachContaining(q: string, fn: (slot: number) => void): void {
    if (!this.haystack || this.dirty.size > this.n / 20) this.join();
    const { text, starts, slots } = this.haystack!;
    const dirty = this.dirty.size > 0 ? this.dirty : undefined;
    let from = 0;
    // The entry holding a match: matches come in order, so the entries are walked forward (at most once in all).
    let entry = 0;
    for (;;) {
      const at = q === "" ? (from < text.length ? from : -1) : text.indexOf(q, from);
      if (at < 0) break;
      while (entry + 1 < starts.length && starts[entry + 1]! <= at) entry++;
      const slot = slots[entry]!;
      if (!dirty?.has(slot)) fn(slot);
      from = entry + 1 < starts.length ? starts[entry + 1]! : text.length;
    }
    for (const slot of this.dirty) if (this.ids[slot] !== "" && this.searches[slot]!.includes(q)) fn(slot);
  }

  private join(): void {
    const order = this.orders.get("updatedAt")!.subarray(0, this.n);
    const starts = new Int32Array(this.n);
    let at = 0;
    order.forEach((slot, i) => {
      starts[i] = at;
      at += this.searches[slot]!.length + 1;
    });
    const parts = new Array<string>(this.n);
    order.forEach((slot, i) => (parts[i] = this.searches[slot]!));
    this.haystack = { text: parts.join("\0"), starts, slots: Int32Array.from(order) };
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

  // Writes a row into a free slot (or a new one) and returns it; the orders and counts are the caller's.
  private put(r: ProductKeyRow): number {
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
    this.family[slot] = this.families.id(r.family_id);
    this.category[slot] = this.categories.id(r.category_id);
    this.slotOf.set(r.id, slot);
    return slot;
  }

  // Room for `size` slots in every column and order.
  private grow(size: number): void {
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
    for (const [s, o] of this.orders)
      if (o.length < next)
        this.orders.set(
          s,
          widen(o, (n) => new Int32Array(n)),
        );
  }

  // Ascending comparison of two slots in a sort, the id last.
  private compare(sort: IndexedSort, a: number, b: number): number {
    let c = 0;
    if (sort === "updatedAt") c = this.updated[a]! - this.updated[b]!;
    else if (sort === "status") c = this.status[a]! - this.status[b]!;
    else if (sort === "label")
      c = compareC(this.searches[a]!, this.labelAt[a]!, this.searches[b]!, this.labelAt[b]!);
    else c = compareC(this.identifiers[a]!, 0, this.identifiers[b]!, 0);
    return c !== 0 ? c : compareC(this.ids[a]!, 0, this.ids[b]!, 0);
  }

  // The first position of an order whose slot sorts at or after `slot` (binary search).
  private lowerBound(sort: IndexedSort, order: Int32Array, size: number, slot: number): number {
    let lo = 0;
    let hi = size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(sort, order[mid]!, slot) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
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

  // Takes one slot out of every order (its keys still the old ones); orders then hold n - 1 slots.
  private unplace(slot: number): void {
    for (const s of INDEXED_SORTS) {
      const o = this.orders.get(s)!;
      const at = this.lowerBound(s, o, this.n, slot);
      if (o[at] !== slot) throw new Error(`ProductIndex: ${this.ids[slot]} is not where its keys sort`);
      o.copyWithin(at, at + 1, this.n);
    }
    this.n--;
  }

  private unplaceAll(slots: Set<number>): void {
    for (const s of INDEXED_SORTS) {
      const o = this.orders.get(s)!;
      let w = 0;
      for (let r = 0; r < this.n; r++) if (!slots.has(o[r]!)) o[w++] = o[r]!;
    }
    this.n -= slots.size;
  }

  // Puts one slot into every order at its place (orders hold n slots before it is counted in).
  private place(slot: number): void {
    for (const s of INDEXED_SORTS) {
      const o = this.orders.get(s)!;
      const at = this.lowerBound(s, o, this.n, slot);
      o.copyWithin(at + 1, at, this.n);
      o[at] = slot;
    }
    this.n++;
  }

  private placeAll(slots: number[]): void {
    for (const s of INDEXED_SORTS) {
      const o = this.orders.get(s)!;
      const added = [...slots].sort((a, b) => this.compare(s, a, b));
      const merged = new Int32Array(o.length);
      let i = 0;
      let j = 0;
      let w = 0;
      while (i < this.n || j < added.length) {
        if (j >= added.length || (i < this.n && this.compare(s, o[i]!, added[j]!) < 0)) merged[w++] = o[i++]!;
        else merged[w++] = added[j++]!;
      }
      this.orders.set(s, merged);
    }
    this.n += slots.length;
  }
}

// Ids interned to small numbers, with a counter per id (the products of a family, of a category).
class Interned {
  private readonly numbers = new Map<string, number>();
  private readonly counts: number[] = [];
  id(value: string): number {
    let n = this.numbers.get(value);
    if (n === undefined) {
      n = this.counts.length;
      this.numbers.set(value, n);
      this.counts.push(0);
    }
    return n;
  }
  /** The number of a value, or -1 when never seen (no product has it). */
  peek(value: string): number {
    return this.numbers.get(value) ?? -1;
  }
  add(n: number, by: number): void {
    this.counts[n] = this.counts[n]! + by;
  }
  count(value: string): number {
    const n = this.numbers.get(value);
    return n === undefined ? 0 : this.counts[n]!;
  }
}
