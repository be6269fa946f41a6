// What an organization's index keeps of the filters asked lately, exact at its cursor: each filter's total, moved
// by each change applied, and, for a filter with few enough matches, the matches themselves (as slots) and their
// order in each sort a page asked, until a change touches one of them: the next page of a word costs no search of
// every text and no walk. The least recently asked go first, within a number of filters and of slots held.

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
  /** The matches, in no particular order; dropped (as the orders) once a match changes. */
  slots?: Int32Array;
  /** The matches in an order, ascending, by sort; dropped once a match changes. */
  orders?: Map<string, Int32Array>;
}

// A filter's test of one slot, compiled for a batch of slots (ProductIndex.predicate).
type TestOf = (f: MemoryFilter) => (slot: number) => boolean;

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
   * total moved, its matches and orders dropped (found again when a page needs them). */
  move(slots: readonly number[], testOf: TestOf, by: 1 | -1): void {
    if (slots.length === 0) return;
    for (const k of this.kept.values()) {
      const test = testOf(k.filter);
      for (const slot of slots) {
        if (!test(slot)) continue;
        k.total += by;
        this.dropMatches(k);
      }
    }
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
