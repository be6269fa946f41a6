// The request log: each organization's last requests, queued in memory by the API's pipeline and written in batches
// (one multi-row insert per flush, every USAGE_FLUSH_MS and as soon as `flushAt` entries wait), never a write per
// request. Bounded under load: past REQUEST_LOG_MAX_PER_SECOND entries of one organization in one second, and past
// REQUEST_LOG_QUEUE_MAX queued entries in all, an entry is dropped and counted per organization and hour
// (request_log_drops, shown on the console's page). After a flush, an organization with enough new rows is pruned
// back to its newest REQUEST_LOG_MAX_PER_ORG, in batches, by the same loop (requests only ever enqueue, so no request
// waits for a prune; Postgres' deletes of old rows do not block inserts of new ones).
import type { Queryable } from "@/db/client";
import { BoundedMap } from "@/lib/bounded-map";
import { hourOf } from "./recorder";

// One request as the log keeps it (`path`: redacted, lib/usage/redact.ts).
export interface LogEntry {
  orgId: string;
  requestId: string;
  at: number;
  keyId: string;
  keyPrefix: string;
  method: string;
  path: string;
  status: number;
  code: string | null;
  durationMs: number;
}

// What the log is bounded by (lib/config.ts).
export interface RequestLogLimits {
  maxPerSecond: number;
  queueMax: number;
  maxPerOrg: number;
  flushEveryMs: number;
  /** A flush as soon as this many entries wait (default: a tenth of queueMax). */
  flushAt?: number;
}

// Rows one prune statement deletes at most (one short statement each).
export const PRUNE_BATCH = 5_000;

// Organizations whose per-second count is remembered at once (an organization not seen this second needs none).
const MAX_RATE_ENTRIES = 10_000;

interface Drops {
  orgId: string;
  hour: number;
  overRate: number;
  queueFull: number;
}

// The request log's queue, its per-organization rate and drop counters, and its flush.
export class RequestLog {
  private queue: LogEntry[] = [];
  private readonly rate = new BoundedMap<string, { second: number; n: number }>(MAX_RATE_ENTRIES);
  private drops = new Map<string, Drops>();
  /** The drop counter last added to, while `drops` holds it (forgotten when a write takes `drops`). */
  private lastDrop: Drops | undefined;
  /** Rows written per organization since it was last pruned back to maxPerOrg. */
  private readonly sincePrune = new Map<string, number>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private flushing: Promise<number> | undefined;
  /** A flush as soon as this many entries wait. */
  private readonly flushAt: number;

  constructor(
    private readonly getDb: () => Promise<Queryable>,
    private readonly limits: RequestLogLimits,
  ) {
    this.flushAt = limits.flushAt ?? Math.max(1, Math.floor(limits.queueMax / 10));
  }

  /** Entries waiting to be written. */
  get queued(): number {
    return this.queue.length;
  }

  /** Queues one request's entry, or counts it as dropped (over the organization's rate, or the queue full). */
  add(entry: LogEntry): void {
    if (this.admit(entry.orgId, entry.at)) this.push(entry);
  }

  /** Whether an entry of the organization at `at` (ms since the epoch) is to be kept: within its rate and the queue's
   * room; if not, it is counted as dropped here. Under load most requests stop at this check, so that an entry is
   * built (its target redacted) only for those kept. */
  admit(orgId: string, at: number): boolean {
    const second = Math.floor(at / 1000);
    let r = this.rate.get(orgId);
    if (!r || r.second !== second) {
      r = { second, n: 0 };
      this.rate.set(orgId, r);
    }
    if (++r.n > this.limits.maxPerSecond) {
      this.drop(orgId, at, "overRate");
      return false;
    }
    if (this.queue.length >= this.limits.queueMax) {
      this.drop(orgId, at, "queueFull");
      return false;
    }
    return true;
  }

  /** Queues an entry `admit` accepted. */
  push(entry: LogEntry): void {
    this.queue.push(entry);
    if (this.queue.length >= this.flushAt && !this.flushing)
      void this.flush().catch((err: unknown) =>
        console.error("[request-log] flush failed:", (err as Error).message),
      );
    this.arm();
  }

  /** Writes the queued entries in one insert (and the drop counters in one upsert), then prunes the organizations
   * over their bound; flushes run one after the other. Returns how many entries were written. */
  async flush(): Promise<number> {
    while (this.flushing) await this.flushing.catch(() => undefined);
    const p = this.write();
    this.flushing = p;
    try {
      return await p;
    } finally {
      this.flushing = undefined;
    }
  }

  /** Stops the timer and writes what is queued (the runtime's close). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush().catch((err: unknown) =>
      console.error("[request-log] the last flush failed:", (err as Error).message),
    );
  }

  private arm(): void {
    if (this.timer) return;
    this.timer = setInterval(
      () =>
        void this.flush().catch((err: unknown) =>
          console.error("[request-log] flush failed:", (err as Error).message),
        ),
      this.limits.flushEveryMs,
    );
    this.timer.unref?.();
  }

  private drop(orgId: string, at: number, reason: "overRate" | "queueFull"): void {
    const hour = hourOf(at);
    // The same organization and hour as the last drop: the common case under load, without a look-up.
    let d = this.lastDrop;
    if (!d || d.orgId !== orgId || d.hour !== hour) {
      const id = `${orgId}\0${hour}`;
      d = this.drops.get(id);
      if (!d) {
        d = { orgId, hour, overRate: 0, queueFull: 0 };
        this.drops.set(id, d);
      }
      this.lastDrop = d;
    }
    d[reason]++;
    this.arm();
  }

  private async write(): Promise<number> {
    const batch = this.queue;
    const drops = [...this.drops.values()];
    if (batch.length === 0 && drops.length === 0) return 0;
    this.queue = [];
    this.drops = new Map();
    this.lastDrop = undefined;
    const db = await this.getDb().catch((err: unknown) => {
      this.putBack(batch, drops);
      throw err;
    });
    try {
      if (batch.length > 0) await insertEntries(db, batch);
    } catch (err) {
      this.putBack(batch, drops);
      throw err;
    }
    try {
      if (drops.length > 0) await addDrops(db, drops);
    } catch (err) {
      this.putBack([], drops);
      throw err;
    }
    for (const e of batch) this.sincePrune.set(e.orgId, (this.sincePrune.get(e.orgId) ?? 0) + 1);
    // An organization is pruned once it may hold a tenth more than its bound (and at least 100 rows more).
    const every = Math.max(100, Math.floor(this.limits.maxPerOrg / 10));
    for (const [orgId, n] of this.sincePrune) {
      if (n < every) continue;
      this.sincePrune.delete(orgId);
      await pruneOrgToCount(db, orgId, this.limits.maxPerOrg);
    }
    return batch.length;
  }

  // Entries a failed write took out, back at the head of the queue within its bound (the rest counted as dropped).
  private putBack(batch: LogEntry[], drops: Drops[]): void {
    const room = Math.max(0, this.limits.queueMax - this.queue.length);
    for (const e of batch.slice(room)) this.drop(e.orgId, e.at, "queueFull");
    this.queue = [...batch.slice(0, room), ...this.queue];
    for (const d of drops) {
      const id = `${d.orgId}\0${d.hour}`;
      const now = this.drops.get(id);
      if (now) {
        now.overRate += d.overRate;
        now.queueFull += d.queueFull;
      } else this.drops.set(id, d);
    }
  }
}

// Inserts entries in one statement (arrays unnested: one statement and nine parameters whatever the batch's size).
async function insertEntries(db: Queryable, batch: LogEntry[]): Promise<void> {
  await db.query(
    `insert into request_log (org_id, request_id, at, key_id, key_prefix, method, path, status, code, duration_ms)
     select v.org_id, v.request_id, to_timestamp(v.at / 1000.0), v.key_id, v.key_prefix, v.method, v.path, v.status,
            v.code, v.duration_ms
       from unnest($1::text[], $2::text[], $3::float8[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[],
                   $9::text[], $10::float8[])
              as v(org_id, request_id, at, key_id, key_prefix, method, path, status, code, duration_ms)
     on conflict (org_id, request_id) do nothing`,
    [
      batch.map((e) => e.orgId),
      batch.map((e) => e.requestId),
      batch.map((e) => e.at),
      batch.map((e) => e.keyId),
      batch.map((e) => e.keyPrefix),
      batch.map((e) => e.method),
      batch.map((e) => e.path),
      batch.map((e) => e.status),
      batch.map((e) => e.code),
      batch.map((e) => Math.round(e.durationMs * 1000) / 1000),
    ],
  );
}

// Adds the drop counters to their (organization, hour) rows.
async function addDrops(db: Queryable, drops: Drops[]): Promise<void> {
  await db.query(
    `insert into request_log_drops as d (org_id, hour, over_rate, queue_full)
     select v.org_id, to_timestamp(v.hour / 1000.0), v.over_rate, v.queue_full
       from unnest($1::text[], $2::float8[], $3::bigint[], $4::bigint[]) as v(org_id, hour, over_rate, queue_full)
     on conflict (org_id, hour) do update
       set over_rate = d.over_rate + excluded.over_rate, queue_full = d.queue_full + excluded.queue_full`,
    [
      drops.map((d) => d.orgId),
      drops.map((d) => d.hour),
      drops.map((d) => d.overRate),
      drops.map((d) => d.queueFull),
    ],
  );
}

// Deletes an organization's rows beyond its newest `keep`, PRUNE_BATCH at a time; returns how many went.
export async function pruneOrgToCount(db: Queryable, orgId: string, keep: number): Promise<number> {
  let total = 0;
  for (;;) {
    const rows = await db.query<{ n: number }>(
      `with edge as (
         select at, request_id from request_log where org_id = $1
          order by at desc, request_id desc offset $2 limit 1
       ), gone as (
         delete from request_log r
          where r.org_id = $1 and r.request_id in (
            select l.request_id from request_log l, edge
             where l.org_id = $1 and (l.at, l.request_id) <= (edge.at, edge.request_id)
             limit $3)
         returning 1
       )
       select count(*)::int as n from gone`,
      [orgId, keep, PRUNE_BATCH],
    );
    const n = Number(rows[0]?.n ?? 0);
    total += n;
    if (n < PRUNE_BATCH) return total;
  }
}

// Deletes every organization's rows older than `cutoff` (ms since the epoch), and drop counters older than
// `dropsCutoff`, PRUNE_BATCH at a time, one organization after the other (each delete reads its organization's rows
// by time through the (org_id, at) index); returns how many log rows went.
export async function pruneRequestLogByAge(
  db: Queryable,
  cutoff: number,
  dropsCutoff = cutoff,
): Promise<number> {
  let total = 0;
  const orgs = await db.query<{ id: string }>("select id from organizations order by id");
  for (const { id } of orgs) {
    for (;;) {
      const rows = await db.query<{ n: number }>(
        `with gone as (
           delete from request_log r
            where r.org_id = $1 and r.request_id in (
              select request_id from request_log where org_id = $1 and at < to_timestamp($2::float8 / 1000) limit $3)
           returning 1
         )
         select count(*)::int as n from gone`,
        [id, cutoff, PRUNE_BATCH],
      );
      const n = Number(rows[0]?.n ?? 0);
      total += n;
      if (n < PRUNE_BATCH) break;
    }
  }
  await db.query("delete from request_log_drops where hour < to_timestamp($1::float8 / 1000)", [dropsCutoff]);
  return total;
}
