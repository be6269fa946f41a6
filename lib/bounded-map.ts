// A Map bounded in entries for the process's caches: a set moves the key to the newest place, and past the bound the
// oldest tenth is dropped at once (Maps iterate in insertion order), so the cost of a trim is spread over many sets.
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(readonly maxEntries: number) {
    super();
  }

  /** Stores the value as the newest entry, then trims the oldest tenth when over the bound. */
  override set(key: K, value: V): this {
    super.delete(key);
    super.set(key, value);
    if (this.size > this.maxEntries) dropOldestTenth(this, this.maxEntries);
    return this;
  }

  /** The value, moved to the newest place (recently used entries are trimmed last). */
  touch(key: K): V | undefined {
    const v = super.get(key);
    if (v !== undefined) this.set(key, v);
    return v;
  }
}

// Drops the oldest tenth of a map bounded at maxEntries (at least one entry).
export function dropOldestTenth(map: Map<unknown, unknown>, maxEntries: number): void {
  let drop = Math.max(1, Math.ceil(maxEntries / 10));
  for (const k of map.keys()) {
    map.delete(k);
    if (--drop <= 0) break;
  }
}
