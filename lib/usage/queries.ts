// Reads of usage and of the request log for the console; every one takes the organization first and reads only its
// rows. Usage: hours as stored, days as the sum of their hours in SQL; p50/p95 from the summed histograms.
import "server-only";
import type { Queryable } from "@/db/client";
import { isoSql } from "@/db/schema";
import { LATENCY_BUCKETS, percentile } from "./histogram";
import { DAY_MS, HOUR_MS, hourOf } from "./recorder";

// One hour's or one day's requests (UTC), by status class, with the latency percentiles of that period.
export interface UsagePoint {
  /** The period's start, ms since the epoch. */
  t: number;
  c2xx: number;
  c3xx: number;
  c4xx: number;
  c5xx: number;
  /** 429s (counted in c4xx too). */
  c429: number;
  p50: number | null;
  p95: number | null;
  /** The summed histogram of the period (lib/usage/histogram.ts). */
  latency: number[];
}

// The usage of an organization (or of one of its keys) per hour or per day since `since` (ms), oldest first; periods
// without a request are absent.
export async function usageSeries(
  db: Queryable,
  orgId: string,
  opts: { unit: "hour" | "day"; since: number; keyId?: string },
): Promise<UsagePoint[]> {
  const rows = await db.query<{
    t: number;
    c2xx: number;
    c3xx: number;
    c4xx: number;
    c5xx: number;
    c429: number;
    latency: number[];
  }>(
    `with r as (
       select date_trunc($2, hour, 'UTC') as t, c2xx, c3xx, c4xx, c5xx, c429, latency
         from usage_hours
        where org_id = $1 and hour >= to_timestamp($3::float8 / 1000) and ($4::text is null or key_id = $4)
     ), counts as (
       select t, sum(c2xx) as c2xx, sum(c3xx) as c3xx, sum(c4xx) as c4xx, sum(c5xx) as c5xx, sum(c429) as c429
         from r group by t
     ), hist as (
       select t, x.i, sum(x.v) as v from r, unnest(r.latency) with ordinality as x(v, i) group by t, x.i
     )
     select (extract(epoch from c.t) * 1000)::float8 as t, c.c2xx::float8 as c2xx, c.c3xx::float8 as c3xx,
            c.c4xx::float8 as c4xx, c.c5xx::float8 as c5xx, c.c429::float8 as c429,
            (select array_agg(h.v::float8 order by h.i) from hist h where h.t = c.t) as latency
       from counts c
      order by c.t`,
    [orgId, opts.unit, opts.since, opts.keyId ?? null],
  );
  return rows.map((r) => {
    const latency = Array.from({ length: LATENCY_BUCKETS }, (_, i) => Number(r.latency?.[i] ?? 0));
    return {
      t: Number(r.t),
      c2xx: Number(r.c2xx),
      c3xx: Number(r.c3xx),
      c4xx: Number(r.c4xx),
      c5xx: Number(r.c5xx),
      c429: Number(r.c429),
      p50: percentile(latency, 0.5),
      p95: percentile(latency, 0.95),
      latency,
    };
  });
}

// The start of the window of the last `days` days that ends with the current hour: 30 × 24 hours, this one included.
export function windowStart(now: number, days: number): number {
  return hourOf(now) - (days * 24 - 1) * HOUR_MS;
}

// The start of the UTC day of a time.
export function dayOf(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

// One request of the log, as the console lists it.
export interface LoggedRequest {
  requestId: string;
  at: string;
  keyId: string;
  keyPrefix: string;
  method: string;
  path: string;
  status: number;
  code: string | null;
  durationMs: number;
}

// The log's filters: a key id, a status (a class "4xx" or exact "404"), a path prefix, a request id; `cursor`: the
// page after the entry it names (from a previous page's `next`).
export interface LogFilter {
  keyId?: string;
  status?: string;
  path?: string;
  requestId?: string;
  cursor?: string;
}

// A page of the log, newest first, and the cursor of the next page (null: the last page).
export interface LogPage {
  entries: LoggedRequest[];
  next: string | null;
}

// The opaque cursor of a page that ends with this entry.
export function logCursor(e: Pick<LoggedRequest, "at" | "requestId">): string {
  return Buffer.from(`${e.at}|${e.requestId}`, "utf8").toString("base64url");
}

// A cursor read back, or undefined when it is not one of ours.
export function parseLogCursor(cursor: string): { at: string; requestId: string } | undefined {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)\|([\w-]{1,100})$/.exec(text);
  return m ? { at: m[1]!, requestId: m[2]! } : undefined;
}

// A page of an organization's request log, newest first, filtered.
export async function listRequestLog(
  db: Queryable,
  orgId: string,
  filter: LogFilter,
  limit = 50,
): Promise<LogPage> {
  const where = ["org_id = $1"];
  const params: unknown[] = [orgId];
  const add = (sql: (n: string) => string, value: unknown) => {
    params.push(value);
    where.push(sql(`$${params.length}`));
  };
  if (filter.keyId) add((n) => `key_id = ${n}`, filter.keyId);
  if (filter.requestId) add((n) => `request_id = ${n}`, filter.requestId);
  if (filter.path) add((n) => `starts_with(path, ${n})`, filter.path);
  if (filter.status) {
    const cls = /^([1-5])xx$/i.exec(filter.status);
    if (cls) add((n) => `status between ${n}::int * 100 and ${n}::int * 100 + 99`, Number(cls[1]));
    else add((n) => `status = ${n}::int`, Number(filter.status));
  }
  const after = filter.cursor ? parseLogCursor(filter.cursor) : undefined;
  if (after) {
    params.push(after.at, after.requestId);
    where.push(`(at, request_id) < ($${params.length - 1}::timestamptz, $${params.length})`);
  }
  params.push(limit + 1);
  const rows = await db.query<LoggedRequest>(
    `select request_id as "requestId", ${isoSql("at")} as at, key_id as "keyId", key_prefix as "keyPrefix", method,
            path, status, code, round(duration_ms::numeric, 3)::float8 as "durationMs"
       from request_log
      where ${where.join(" and ")}
      order by at desc, request_id desc
      limit $${params.length}`,
    params,
  );
  const entries = rows.slice(0, limit).map((r) => ({
    ...r,
    status: Number(r.status),
    durationMs: Number(r.durationMs),
  }));
  return { entries, next: rows.length > limit ? logCursor(entries[entries.length - 1]!) : null };
}

// Requests of an organization not logged, per hour (UTC), since `since` (ms), newest first.
export interface LogDrops {
  hour: string;
  overRate: number;
  queueFull: number;
}

// The organization's drop counters since `since`, newest hour first.
export async function listLogDrops(db: Queryable, orgId: string, since: number): Promise<LogDrops[]> {
  const rows = await db.query<LogDrops>(
    `select ${isoSql("hour")} as hour, over_rate::float8 as "overRate", queue_full::float8 as "queueFull"
       from request_log_drops
      where org_id = $1 and hour >= to_timestamp($2::float8 / 1000)
      order by hour desc`,
    [orgId, since],
  );
  return rows.map((r) => ({ ...r, overRate: Number(r.overRate), queueFull: Number(r.queueFull) }));
}
