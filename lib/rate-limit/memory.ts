import type { RateLimiter, RateLimitResult } from "./types";
import { dropOldestTenth } from "@/lib/bounded-map";

interface Counter {
  /** Index of the fixed window `cur` counts (floor(time / window)). */
  idx: number;
  cur: number;
  prev: number;
}

// Default bound on the identifiers one in-process limiter remembers.
export const DEFAULT_MAX_ENTRIES = 100_000;

// In-process sliding window with @upstash/ratelimit's slidingWindow semantics (previous fixed window weighted by
// the part of it still inside the sliding window, plus the current one); memory is bounded by maxEntries.
export class MemorySlidingWindow implements RateLimiter {
  readonly backend = "memory" as const;
  private readonly counters = new Map<string, Counter>();
  private nextSweep = 0;
  private fullSweepIdx = -1;

  constructor(
    readonly max: number,
    readonly windowMs: number,
    readonly maxEntries = DEFAULT_MAX_ENTRIES,
  ) {
    if (!(max >= 1) || !(windowMs >= 1) || !(maxEntries >= 1))
      throw new RangeError("limit, window and maxEntries must be ≥ 1");
  }

  // Counts one request for the identifier now.
  limit(identifier: string): Promise<RateLimitResult> {
    return Promise.resolve(this.check(identifier, Date.now()));
  }

  // Counts one request for the identifier at the given time (milliseconds since the epoch); synchronous.
  check(identifier: string, now: number): RateLimitResult {
    const w = this.windowMs;
    const idx = Math.floor(now / w);
    if (now >= this.nextSweep) {
      this.sweep(idx);
      this.nextSweep = (idx + 1) * w;
    }
    let c = this.counters.get(identifier);
    if (c === undefined) {
      if (this.counters.size >= this.maxEntries) this.makeRoom(idx);
      c = { idx, cur: 0, prev: 0 };
      this.counters.set(identifier, c);
    } else if (c.idx !== idx) {
      c.prev = c.idx === idx - 1 ? c.cur : 0;
      c.cur = 0;
      c.idx = idx;
    }
    const start = idx * w;
    // Same arithmetic as Upstash's script: floor((1 - (now % window) / window) * previous).
    const weightedPrev = Math.floor((1 - (now - start) / w) * c.prev);
    if (weightedPrev + c.cur >= this.max) {
      return { success: false, limit: this.max, remaining: 0, reset: this.freeAt(c, start, now) };
    }
    c.cur += 1;
    return { success: true, limit: this.max, remaining: this.max - (c.cur + weightedPrev), reset: start + w };
  }

  // Identifiers currently remembered (for tests and metrics).
  get size(): number {
    return this.counters.size;
  }

  // Forgets every identifier.
  async close(): Promise<void> {
    this.counters.clear();
  }

  /** Earliest millisecond at which a request would pass if nothing else is counted. */
  private freeAt(c: Counter, start: number, now: number): number {
    const w = this.windowMs;
    let t: number;
    if (c.cur < this.max) {
      // Blocked by the weighted previous window: wait until (1 - f) * prev < max - cur.
      t = Math.floor(start + w * (1 - (this.max - c.cur) / c.prev)) + 1;
    } else {
      // The current window alone is full: in the next one it becomes the previous window.
      t = Math.floor(start + w + w * (1 - this.max / c.cur)) + 1;
    }
    return Math.max(t, now + 1);
  }

  /** Drops identifiers whose two windows are over (they weigh nothing any more). */
  private sweep(idx: number): void {
    for (const [id, c] of this.counters) if (c.idx < idx - 1) this.counters.delete(id);
  }

  /** Full: sweep (at most once per window), then drop the oldest tenth of the identifiers. */
  private makeRoom(idx: number): void {
    if (this.fullSweepIdx !== idx) {
      this.fullSweepIdx = idx;
      this.sweep(idx);
      if (this.counters.size < this.maxEntries) return;
    }
    dropOldestTenth(this.counters, this.maxEntries);
  }
}
