// What an organization's index keeps of the filters asked lately, exact at its cursor: each filter's total, and, for
// a filter with few enough matches, the matches themselves (as slots) and their order in each sort a page asked,
// the total moved by each change applied, the matches and orders too by a write of a few products (dropped by a
// bigger one): the next page of a word costs no search of every text and no walk, a write between two pages
// included. The least recently asked go first, within a number of filters and of slots held.

import { insertSlot, removeSlot, withRoom } from "./orders";

// A list's filters as the index counts them. `q`: the search term already folded by catalog_fold, without LIKE's
// wildcards (the caller checks), so that "contains" is the statement's `like '%…%'`.
export interface MemoryFilter {
  familyId?: string;
  categoryId?: string;
  updatedSinceMs?: number;
  q?: string;
}

export interface Kept {
  filter: MemoryFilter;
  total: number;
  /** The matches, in no particular order. */
  slots?: Int32Array;
  /** The matches in an order, ascending, by sort. */
  orders?: Map<string, Int32Array>;
}

// A filter's test of one slot, compiled for a batch of slots (ProductIndex.predicate).
type TestOf = (f: MemoryFilter) => (slot: number) => boolean;
// How two slots compare in a sort, with the keys they have now (ProductIndex.compare).
type CompareOf = (sort: string) => (a: number, b: number) => number;

export class KeptFilters {
  private readonly kept = new Map<string, Kept>();
  /** Slots held by every kept set. */
  private held = 0;

  constructor(
    private readonly maxFilters: number,
    private readonly maxSlots: number,
  ) {}

  get(f: MemoryFilter): Kept | undefined {
    const key = keyOf(f);
    const k = this.kept.get(key);
    if (k) {
      this.kept.delete(key);
      this.kept.set(key, k);
    }
    return k;
  }

  /** Keeps a filter's total, and its matches when they are few enough (at most a quarter of the slots it may hold). */
  keep(filter: MemoryFilter, total: number, slots?: readonly number[]): void {
    const kept = slots && slots.length <= this.maxSlots / 4 ? Int32Array.from(slots) : undefined;
    this.drop(keyOf(filter));
    this.kept.set(keyOf(filter), { filter, total, slots: kept });
    this.held += kept?.length ?? 0;
    for (const key of this.kept.keys()) {
      if (this.kept.size <= this.maxFilters && this.held <= this.maxSlots) break;
      this.drop(key);
    }
  }

  /** Keeps the matches of a kept filter (one whose matches are kept) in one order. */
  keepOrder(filter: MemoryFilter, sort: string, slots: Int32Array): void {
    const k = this.kept.get(keyOf(filter));
    if (!k?.slots) return;
    k.orders ??= new Map();
    this.held += slots.length - (k.orders.get(sort)?.length ?? 0);
    k.orders.set(sort, slots);
  }

  clear(): void {
    this.kept.clear();
    this.held = 0;
  }

  /** Products leaving (their keys still the old ones) or entering (their new keys) every kept filter they match: its
   * total moved, and each one taken out of its matches and orders or put in at its place (`compareOf`, for the few
   * changes of a write); without `compareOf` (many at once), the matches and orders are dropped instead, found again
   * when a page needs them. */
  move(slots: readonly number[], testOf: TestOf, by: 1 | -1, compareOf?: CompareOf): void {
    if (slots.length === 0) return;
    for (const k of this.kept.values()) {
      const test = testOf(k.filter);
      for (const slot of slots) {
        if (!test(slot)) continue;
        k.total += by;
        if (!k.slots) continue;
        if (!compareOf || !this.moveMatch(k, slot, by, compareOf)) this.dropMatches(k);
      }
    }
  }

  // Takes a slot out of a kept filter's matches and orders, or puts it in (in place in their arrays when they have
  // room); false when it is not where it should be (the caller drops them).
  private moveMatch(k: Kept, slot: number, by: 1 | -1, compareOf: CompareOf): boolean {
    const slots = k.slots!;
    const n = slots.length;
    if (by < 0) {
      // In no particular order: the last takes its place.
      const at = slots.indexOf(slot);
      if (at < 0) return false;
      slots[at] = slots[n - 1]!;
      k.slots = slots.subarray(0, n - 1);
    } else {
      k.slots = withRoom(slots);
      k.slots[n] = slot;
    }
    this.held += by;
    for (const [sort, asc] of k.orders ?? []) {
      const cmp = compareOf(sort);
      if (by < 0) {
        if (!removeSlot(asc, asc.length, slot, cmp)) return false;
        k.orders!.set(sort, asc.subarray(0, asc.length - 1));
      } else {
        const next = withRoom(asc);
        insertSlot(next, asc.length, slot, cmp);
        k.orders!.set(sort, next);
      }
      this.held += by;
    }
    return true;
  }

  private drop(key: string): void {
    const k = this.kept.get(key);
    if (!k) return;
    this.dropMatches(k);
    this.kept.delete(key);
  }

  private dropMatches(k: Kept): void {
    for (const o of k.orders?.values() ?? []) this.held -= o.length;
    k.orders = undefined;
    this.held -= k.slots?.length ?? 0;
    k.slots = undefined;
  }
}

const keyOf = (f: MemoryFilter) => JSON.stringify([f.familyId, f.categoryId, f.updatedSinceMs, f.q]);
