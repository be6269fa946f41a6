// Usage counted in memory per key and hour (UTC) and written in batches, as "last used" is (lib/keys/cache.ts): a
// request costs a Map look-up and a few additions; a flush (every USAGE_FLUSH_MS, 15 s by default, and when the
// runtime closes) writes every pending (key, hour) in one upsert that adds to the stored counts and histogram.
import type { Queryable } from "@/db/client";
import { LATENCY_BUCKETS, bucketOf, emptyHistogram } from "./histogram";

// An hour and a day in milliseconds (usage is counted per UTC hour and shown per UTC day).
export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

// One key's requests in one hour, not yet written.
interface Bucket {
  orgId: string;
  keyId: string;
  hour: number;
  c2xx: number;
  c3xx: number;
  c4xx: number;
  c5xx: number;
  c429: number;
  latency: Uint32Array;
}

// The start of the UTC hour of a time, in ms since the epoch.
export function hourOf(ms: number): number {
  return Math.floor(ms / HOUR_MS) * HOUR_MS;
}

// Counts requests per (key, hour) and writes them in batches. At most `maxPending` (key, hour) buckets wait in memory
// (about 400 bytes each): past it, a request of a new bucket is not counted (`lost` says how many), which happens
// only while the database refuses the flushes.
export class UsageRecorder {
  private pending = new Map<string, Bucket>();
  /** The bucket last counted in, while `pending` holds it (forgotten when a flush takes `pending`). */
  private last: Bucket | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  /** Requests not counted because `maxPending` buckets were waiting. */
  lost = 0;

  constructor(
    private readonly getDb: () => Promise<Queryable>,
    private readonly opts: { flushEveryMs: number; maxPending: number },
  ) {}

  /** Buckets waiting to be written. */
  get pendingBuckets(): number {
    return this.pending.size;
  }

  /** Counts one answered request of a key: its status and how long it took (ms), at `now` (ms since the epoch). */
  record(orgId: string, keyId: string, status: number, durationMs: number, now: number): void {
    const hour = hourOf(now);
    // The same key and hour as the last request: the common case under load, without a look-up.
    let b = this.last;
    if (!b || b.keyId !== keyId || b.hour !== hour) {
      const id = `${keyId}\0${hour}`;
      b = this.pending.get(id);
      if (!b) {
        if (this.pending.size >= this.opts.maxPending) {
          this.lost++;
          return;
        }
        b = { orgId, keyId, hour, c2xx: 0, c3xx: 0, c4xx: 0, c5xx: 0, c429: 0, latency: emptyHistogram() };
        this.pending.set(id, b);
      }
      this.last = b;
    }
    if (status >= 500) b.c5xx++;
    else if (status >= 400) {
      b.c4xx++;
      if (status === 429) b.c429++;
    } else if (status >= 300) b.c3xx++;
    else b.c2xx++;
    b.latency[bucketOf(durationMs)]!++;
    if (!this.timer) {
      this.timer = setInterval(() => void this.flush().catch(() => undefined), this.opts.flushEveryMs);
      this.timer.unref?.();
    }
  }

  /** Writes every pending bucket in one statement (an upsert adding counts and histograms); returns how many. */
  async flush(): Promise<number> {
    if (this.pending.size === 0) return 0;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    this.last = undefined;
    try {
      const db = await this.getDb();
      await db.query(
        `insert into usage_hours as u (org_id, key_id, hour, c2xx, c3xx, c4xx, c5xx, c429, latency)
         select v.org_id, v.key_id, to_timestamp(v.hour / 1000.0), v.c2xx, v.c3xx, v.c4xx, v.c5xx, v.c429,
                v.latency::bigint[]
           from unnest($1::text[], $2::text[], $3::float8[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[],
                       $8::bigint[], $9::text[])
                  as v(org_id, key_id, hour, c2xx, c3xx, c4xx, c5xx, c429, latency)
         on conflict (org_id, key_id, hour) do update set
           c2xx = u.c2xx + excluded.c2xx, c3xx = u.c3xx + excluded.c3xx, c4xx = u.c4xx + excluded.c4xx,
           c5xx = u.c5xx + excluded.c5xx, c429 = u.c429 + excluded.c429,
           latency = (select array_agg(coalesce(a, 0) + coalesce(b, 0) order by i)
                        from unnest(u.latency, excluded.latency) with ordinality as x(a, b, i))`,
        [
          batch.map((b) => b.orgId),
          batch.map((b) => b.keyId),
          batch.map((b) => b.hour),
          batch.map((b) => b.c2xx),
          batch.map((b) => b.c3xx),
          batch.map((b) => b.c4xx),
          batch.map((b) => b.c5xx),
          batch.map((b) => b.c429),
          batch.map((b) => `{${b.latency.join(",")}}`),
        ],
      );
    } catch (err) {
      // Kept for the next flush, added to what came since (within the bound).
      for (const b of batch) this.restore(b);
      throw err;
    }
    return batch.length;
  }

  /** Stops the timer and writes what is pending (the runtime's close). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush().catch((err: unknown) =>
      console.error("[usage] the last flush failed:", (err as Error).message),
    );
  }

  private restore(b: Bucket): void {
    const id = `${b.keyId}\0${b.hour}`;
    const now = this.pending.get(id);
    if (!now) {
      if (this.pending.size >= this.opts.maxPending) {
        this.lost += b.c2xx + b.c3xx + b.c4xx + b.c5xx;
        return;
      }
      this.pending.set(id, b);
      return;
    }
    now.c2xx += b.c2xx;
    now.c3xx += b.c3xx;
    now.c4xx += b.c4xx;
    now.c5xx += b.c5xx;
    now.c429 += b.c429;
    for (let i = 0; i < LATENCY_BUCKETS; i++) now.latency[i]! += b.latency[i]!;
  }
}
