// Usage and the request log below the console: the latency histogram against a plain sort, the recorder's batches
// (one statement per flush, counts adding up across flushes), the log's redaction, rate and queue bounds, and the
// retention; on PGlite and on the Postgres server. Time is injected: nothing sleeps.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Queryable } from "@/db/client";
import {
  LATENCY_BUCKETS,
  bucketBounds,
  bucketOf,
  emptyHistogram,
  mergeInto,
  percentile,
} from "@/lib/usage/histogram";
import { REMOVED, redactTarget } from "@/lib/usage/redact";
import { UsageRecorder, hourOf } from "@/lib/usage/recorder";
import { RequestLog, pruneOrgToCount, type LogEntry } from "@/lib/usage/request-log";
import { pruneUsageAndLog } from "@/lib/usage/retention";
import { listLogDrops, listRequestLog, usageSeries } from "@/lib/usage/queries";
import { setupApi, type ApiFixture } from "../support/api";

// A seeded pseudo-random generator (the same draws on every run).
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

// The nearest-rank percentile of a plain sort.
function exact(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(p * sorted.length)) - 1]!;
}

describe("latency histogram", () => {
  it("puts each duration in the bucket whose bounds hold it", () => {
    const next = rng(1);
    for (let n = 0; n < 10_000; n++) {
      const ms = 0.01 * 2 ** (next() * 22);
      const i = bucketOf(ms);
      const [lo, hi] = bucketBounds(i);
      expect(ms >= lo && ms < hi).toBe(true);
    }
    expect(bucketOf(0)).toBe(0);
    expect(bucketOf(Number.NaN)).toBe(0);
    expect(bucketOf(1e9)).toBe(LATENCY_BUCKETS - 1);
  });

  it("p50 and p95 of merged histograms are within the bucket's error of a plain sort of all the values", () => {
    const next = rng(7);
    for (let round = 0; round < 50; round++) {
      const parts: number[][] = Array.from({ length: 1 + Math.floor(next() * 6) }, () =>
        Array.from({ length: 1 + Math.floor(next() * 400) }, () => 0.5 + 2 ** (next() * 12) * next()),
      );
      const merged = emptyHistogram();
      for (const part of parts) {
        const h = emptyHistogram();
        for (const v of part) h[bucketOf(v)]! += 1;
        mergeInto(merged, h);
      }
      const all = parts.flat();
      for (const p of [0.5, 0.95]) {
        const got = percentile(merged, p)!;
        const want = exact(all, p);
        // The geometric middle of a bucket 2^(1/4) wide is within 2^(1/8) of anything in it.
        expect(got / want).toBeGreaterThanOrEqual(2 ** -0.125 - 1e-9);
        expect(got / want).toBeLessThanOrEqual(2 ** 0.125 + 1e-9);
      }
    }
    expect(percentile(emptyHistogram(), 0.5)).toBeNull();
  });
});

describe("redaction of the logged target", () => {
  it.each([
    ["/public/v1/products?api_key=pca_secret&page=2", `/public/v1/products?api_key=${REMOVED}&page=2`],
    ["/public/v1/products?Token=abc&q=chaise", `/public/v1/products?Token=${REMOVED}&q=chaise`],
    [
      "/p?accessToken=1&X-Amz-Signature=2&password=3",
      `/p?accessToken=${REMOVED}&X-Amz-Signature=${REMOVED}&password=${REMOVED}`,
    ],
    [
      "/p?client_secret=s&code=c&Authorization=Bearer%20x",
      `/p?client_secret=${REMOVED}&code=${REMOVED}&Authorization=${REMOVED}`,
    ],
    ["/p?api%5Fkey=x&perPage=5", `/p?api%5Fkey=${REMOVED}&perPage=5`],
    ["/public/v1/families?page=1&sort=code.asc", "/public/v1/families?page=1&sort=code.asc"],
  ])("%s → %s", (target, want) => {
    const got = redactTarget(new URL(target, "http://api.test"));
    expect(got).toBe(want);
    expect(got).not.toMatch(/pca_secret|abc&|=Bearer/);
  });

  it("cuts a long target", () => {
    const got = redactTarget(new URL(`/p?q=${"a".repeat(2000)}`, "http://api.test"));
    expect(got.length).toBe(500);
    expect(got.endsWith("…")).toBe(true);
  });
});

// A Queryable that counts the statements sent through it.
function counting(db: Queryable): Queryable & { statements: string[] } {
  const statements: string[] = [];
  return {
    statements,
    query: (text, params) => {
      statements.push(text);
      return db.query(text, params);
    },
  };
}

const T0 = Date.UTC(2026, 10, 20, 10, 15, 0);
const HOUR = 3_600_000;

describe.each(["pglite", "pg"] as const)("usage and request log on %s", (driver) => {
  let fx: ApiFixture;
  let keyA: string; // a key id of acme
  let keyB: string; // another key id of acme
  let keyG: string; // a key id of globex

  beforeAll(async () => {
    fx = await setupApi(driver, { USAGE_ENABLED: "false", REQUEST_LOG_ENABLED: "false" });
    const keys = await fx.db.query<{ id: string; org_id: string }>(
      "select id, org_id from api_keys order by id",
    );
    [keyA, keyB] = keys.filter((k) => k.org_id === fx.acme.orgId).map((k) => k.id) as [string, string];
    keyG = keys.find((k) => k.org_id === fx.globex.orgId)!.id;
  });
  afterAll(async () => {
    await fx?.close();
  });

  it("writes every pending (key, hour) in one statement per flush; counts and histograms add up across flushes", async () => {
    const db = counting(fx.db);
    const rec = new UsageRecorder(async () => db, { flushEveryMs: 60_000, maxPending: 1000 });
    const durations: number[] = [];
    const next = rng(3);
    const statuses = [200, 200, 200, 304, 400, 429, 503];
    let n2 = 0,
      n3 = 0,
      n4 = 0,
      n5 = 0,
      n429 = 0;
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 200; i++) {
        const status = statuses[i % statuses.length]!;
        const ms = 0.6 + next() * 80;
        durations.push(ms);
        rec.record(fx.acme.orgId, keyA, status, ms, T0 + round * 60_000 + i);
        if (status === 429) n429++;
        if (status >= 500) n5++;
        else if (status >= 400) n4++;
        else if (status >= 300) n3++;
        else n2++;
      }
      rec.record(fx.acme.orgId, keyB, 200, 5, T0 + HOUR); // another key, the next hour
      rec.record(fx.globex.orgId, keyG, 200, 5, T0);
      const before = db.statements.length;
      expect(await rec.flush()).toBe(3);
      expect(db.statements.length - before).toBe(1);
    }
    expect(await rec.flush()).toBe(0); // nothing pending: no statement
    const [row] = await fx.db.query<Record<string, string | number>>(
      `select c2xx::int as c2xx, c3xx::int as c3xx, c4xx::int as c4xx, c5xx::int as c5xx, c429::int as c429,
              cardinality(latency) as buckets
         from usage_hours where key_id = $1 and hour = to_timestamp($2::float8 / 1000)`,
      [keyA, hourOf(T0)],
    );
    expect(row).toEqual({ c2xx: n2, c3xx: n3, c4xx: n4, c5xx: n5, c429: n429, buckets: LATENCY_BUCKETS });

    const hours = await usageSeries(fx.db, fx.acme.orgId, {
      unit: "hour",
      since: hourOf(T0) - HOUR,
      keyId: keyA,
    });
    expect(hours).toHaveLength(1);
    expect(hours[0]!.p95! / exact(durations, 0.95)).toBeCloseTo(1, 0);
    const days = await usageSeries(fx.db, fx.acme.orgId, { unit: "day", since: hourOf(T0) - 24 * HOUR });
    expect(days).toHaveLength(1);
    expect(days[0]!.c2xx).toBe(n2 + 3); // both keys' hours summed into the day
    expect(days[0]!.p50).toBe(hours[0]!.p50 === null ? null : days[0]!.p50);
    // The other organization sees only its own.
    const globex = await usageSeries(fx.db, fx.globex.orgId, { unit: "day", since: hourOf(T0) - 24 * HOUR });
    expect(globex.map((d) => d.c2xx)).toEqual([3]);
  });

  it("counts a key's requests on both sides of a flush (the recorder's last bucket is not kept across it)", async () => {
    const rec = new UsageRecorder(async () => fx.db, { flushEveryMs: 60_000, maxPending: 1000 });
    const at = T0 + 30 * 24 * HOUR;
    for (let i = 0; i < 3; i++) rec.record(fx.acme.orgId, keyA, 200, 1, at + i);
    await rec.flush();
    for (let i = 0; i < 4; i++) rec.record(fx.acme.orgId, keyA, 200, 1, at + 10 + i);
    expect(await rec.flush()).toBe(1);
    const [row] = await fx.db.query<{ n: number }>(
      "select c2xx::int as n from usage_hours where key_id = $1 and hour = to_timestamp($2::float8 / 1000)",
      [keyA, hourOf(at)],
    );
    expect(row!.n).toBe(7);
  });

  it("keeps a failed flush for the next one; past its bound, a new bucket is not counted", async () => {
    let fail = true;
    const db: Queryable = {
      query: (text, params) => (fail ? Promise.reject(new Error("down")) : fx.db.query(text, params)),
    };
    const rec = new UsageRecorder(async () => db, { flushEveryMs: 60_000, maxPending: 2 });
    const t = T0 + 5 * 24 * HOUR;
    rec.record(fx.acme.orgId, keyA, 200, 1, t);
    await expect(rec.flush()).rejects.toThrow("down");
    rec.record(fx.acme.orgId, keyA, 200, 1, t);
    rec.record(fx.acme.orgId, keyB, 200, 1, t);
    rec.record(fx.globex.orgId, keyG, 200, 1, t); // a third bucket
    expect(rec.pendingBuckets).toBe(2);
    expect(rec.lost).toBe(1);
    fail = false;
    expect(await rec.flush()).toBe(2);
    const [row] = await fx.db.query<{ n: number }>(
      "select c2xx::int as n from usage_hours where key_id = $1 and hour = to_timestamp($2::float8 / 1000)",
      [keyA, hourOf(t)],
    );
    expect(row!.n).toBe(2);
  });

  const entry = (over: Partial<LogEntry> = {}): LogEntry => ({
    orgId: fx.acme.orgId,
    requestId: crypto.randomUUID(),
    at: T0,
    keyId: keyA,
    keyPrefix: "pca_abcd",
    method: "GET",
    path: "/public/v1/products",
    status: 200,
    code: null,
    durationMs: 3.25,
    ...over,
  });

  it("writes the queued entries in one insert per flush, newest first, filtered and paged", async () => {
    const db = counting(fx.db);
    const log = new RequestLog(async () => db, {
      flushEveryMs: 60_000,
      maxPerSecond: 1000,
      queueMax: 1000,
      maxPerOrg: 10_000,
    });
    const base = T0 + 10 * 24 * HOUR;
    const made: LogEntry[] = [];
    for (let i = 0; i < 30; i++) {
      const e = entry({
        at: base + i * 10,
        status: [200, 404, 429][i % 3]!,
        code: i % 3 === 0 ? null : i % 3 === 1 ? "PUBLIC_API_NOT_FOUND" : "PUBLIC_API_RATE_LIMIT_EXCEEDED",
        keyId: i % 2 ? keyA : keyB,
        path: i % 5 === 0 ? "/public/v1/media?page=2" : "/public/v1/products",
      });
      made.push(e);
      log.add(e);
    }
    log.add(entry({ orgId: fx.globex.orgId, keyId: keyG, at: base }));
    expect(await log.flush()).toBe(31);
    expect(db.statements).toHaveLength(1);
    expect(db.statements[0]).toMatch(/^insert into request_log /);

    const since = { cursor: undefined as string | undefined };
    const seen: string[] = [];
    for (;;) {
      const page = await listRequestLog(
        fx.db,
        fx.acme.orgId,
        { cursor: since.cursor, path: "/public/v1/" },
        7,
      );
      seen.push(...page.entries.filter((e) => e.at >= new Date(base).toISOString()).map((e) => e.requestId));
      if (!page.next) break;
      since.cursor = page.next;
    }
    const newestFirst = [...made].reverse().map((e) => e.requestId);
    expect(seen.filter((id) => newestFirst.includes(id))).toEqual(newestFirst);

    const one = await listRequestLog(fx.db, fx.acme.orgId, { requestId: made[4]!.requestId });
    expect(one.entries).toEqual([
      {
        requestId: made[4]!.requestId,
        at: new Date(made[4]!.at).toISOString(),
        keyId: made[4]!.keyId,
        keyPrefix: "pca_abcd",
        method: "GET",
        path: "/public/v1/products",
        status: 404,
        code: "PUBLIC_API_NOT_FOUND",
        durationMs: 3.25,
      },
    ]);
    const cls = await listRequestLog(fx.db, fx.acme.orgId, { status: "4xx", keyId: keyA }, 100);
    expect(cls.entries.every((e) => e.status >= 400 && e.status < 500 && e.keyId === keyA)).toBe(true);
    expect(cls.entries.length).toBeGreaterThan(0);
    const exactStatus = await listRequestLog(fx.db, fx.acme.orgId, { status: "429" }, 100);
    expect(exactStatus.entries.every((e) => e.status === 429)).toBe(true);
    const media = await listRequestLog(fx.db, fx.acme.orgId, { path: "/public/v1/media" }, 100);
    expect(media.entries.map((e) => e.path)).toEqual(Array(6).fill("/public/v1/media?page=2"));
    // Another organization never sees this one's entries, not even by request id.
    const foreign = await listRequestLog(fx.db, fx.globex.orgId, { requestId: made[4]!.requestId });
    expect(foreign.entries).toEqual([]);
    const globexAll = await listRequestLog(fx.db, fx.globex.orgId, {}, 100);
    expect(globexAll.entries.every((e) => e.keyId === keyG)).toBe(true);
  });

  it("drops and counts entries past an organization's rate per second, and past the queue's bound", async () => {
    const log = new RequestLog(async () => fx.db, {
      flushEveryMs: 60_000,
      maxPerSecond: 10,
      queueMax: 15,
      flushAt: 1000, // no flush of its own: the queue fills
      maxPerOrg: 10_000,
    });
    const at = T0 + 12 * 24 * HOUR;
    for (let i = 0; i < 25; i++) log.add(entry({ at: at + i })); // one second: 10 kept, 15 over the rate
    for (let i = 0; i < 3; i++) log.add(entry({ orgId: fx.globex.orgId, keyId: keyG, at: at + i })); // its own rate
    expect(log.queued).toBe(13);
    for (let i = 0; i < 5; i++) log.add(entry({ at: at + 1000 + i })); // next second: the queue fills at 15
    expect(log.queued).toBe(15);
    await log.flush();
    const drops = await listLogDrops(fx.db, fx.acme.orgId, at - HOUR);
    expect(drops).toEqual([{ hour: new Date(hourOf(at)).toISOString(), overRate: 15, queueFull: 3 }]);
    expect(await listLogDrops(fx.db, fx.globex.orgId, at - HOUR)).toEqual([]);
    // The counters add up across flushes.
    for (let i = 0; i < 12; i++) log.add(entry({ at: at + 2000 }));
    await log.flush();
    expect((await listLogDrops(fx.db, fx.acme.orgId, at - HOUR))[0]!.overRate).toBe(17);
  });

  it("prunes an organization back to its newest rows after the flushes, and every row past its age", async () => {
    const log = new RequestLog(async () => fx.db, {
      flushEveryMs: 60_000,
      maxPerSecond: 100_000,
      queueMax: 100_000,
      maxPerOrg: 100,
    });
    const at = T0 + 20 * 24 * HOUR;
    const ids: string[] = [];
    for (let i = 0; i < 350; i++) {
      const e = entry({ at: at + i });
      ids.push(e.requestId);
      log.add(e);
    }
    await log.flush();
    const count = async (org: string) =>
      (
        await fx.db.query<{ n: number }>("select count(*)::int as n from request_log where org_id = $1", [
          org,
        ])
      )[0]!.n;
    expect(await count(fx.acme.orgId)).toBe(100);
    const kept = await listRequestLog(fx.db, fx.acme.orgId, {}, 100);
    expect(kept.entries.map((e) => e.requestId)).toEqual(ids.slice(-100).reverse());
    const globexBefore = await count(fx.globex.orgId);
    expect(await pruneOrgToCount(fx.db, fx.acme.orgId, 100)).toBe(0);
    expect(await count(fx.globex.orgId)).toBe(globexBefore);

    // Age: 7 days for the log, 10 for usage here, counted from `now`.
    const now = at + 8 * 24 * HOUR;
    const usageBefore = (await fx.db.query<{ n: number }>("select count(*)::int as n from usage_hours"))[0]!
      .n;
    expect(usageBefore).toBeGreaterThan(0);
    const pruned = await pruneUsageAndLog(fx.db, now, { usage: 10, log: 7 });
    expect(pruned.log).toBeGreaterThanOrEqual(100);
    expect(await count(fx.acme.orgId)).toBe(0);
    expect(await count(fx.globex.orgId)).toBe(0);
    const usageOld = await fx.db.query<{ n: number }>(
      "select count(*)::int as n from usage_hours where hour < to_timestamp($1::float8 / 1000)",
      [now - 10 * 24 * HOUR],
    );
    expect(usageOld[0]!.n).toBe(0);
    expect(pruned.usage).toBeGreaterThan(0);
    expect(await listLogDrops(fx.db, fx.acme.orgId, 0)).toEqual([]);
  });
});
