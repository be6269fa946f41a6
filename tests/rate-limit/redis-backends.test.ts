// The two Redis back ends against the real Redis server (TEST_REDIS_URL): a plain Redis server through the ioredis
// adapter, and Upstash REST through a local shim speaking the Upstash protocol in front of the same server.
import { randomBytes } from "node:crypto";
import { Redis as IORedis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@/lib/config";
import { createRateLimiter, createRateLimiters } from "@/lib/rate-limit/limiters";
import { retryAfterSeconds, type RateLimiter } from "@/lib/rate-limit/types";
import { serverRedisUrl } from "../support/servers";
import { startUpstashShim, type UpstashShim } from "../support/upstash-rest-shim";

const run = randomBytes(4).toString("hex");
let shim: UpstashShim;
let inspect: IORedis;
const opened: RateLimiter[] = [];

beforeAll(async () => {
  const url = serverRedisUrl();
  inspect = new IORedis(url, { maxRetriesPerRequest: 1 });
  await inspect.ping();
  shim = await startUpstashShim(url);
});
afterAll(async () => {
  await Promise.allSettled(opened.map((l) => l.close?.()));
  await shim?.close();
  inspect?.disconnect();
});

// A generous timeout: these suites count exactly, and on a loaded 2-core machine a call slower than the default
// 250 ms would be counted by the in-process fallback instead (the outage suites test that fallback).
const SLACK = { RATE_LIMIT_TIMEOUT_MS: "5000" };
const backends = {
  redis: () => ({ REDIS_URL: serverRedisUrl(), ...SLACK }),
  upstash: () => ({ UPSTASH_REDIS_REST_URL: shim.url, UPSTASH_REDIS_REST_TOKEN: shim.token, ...SLACK }),
};

function limiter(
  kind: keyof typeof backends,
  limit: number,
  windowSeconds: number,
  env: Record<string, string> = {},
) {
  const l = createRateLimiter(loadConfig({ ...backends[kind](), ...env }), {
    prefix: `test:${run}:${kind}`,
    limit,
    windowSeconds,
  });
  opened.push(l);
  return l;
}

const sleepUntil = (t: number) => new Promise((r) => setTimeout(r, Math.max(0, t - Date.now())));

describe.each(Object.keys(backends) as (keyof typeof backends)[])("%s back end", (kind) => {
  it("counts down exactly, refuses at limit + 1, reset in ms at the end of the window", async () => {
    // A one-hour window: a window boundary inside this test is practically impossible, so counts are exact.
    const l = limiter(kind, 5, 3600);
    expect(l.backend).toBe(kind);
    const id = `exact-${randomBytes(4).toString("hex")}`;
    const windowEnd = (Math.floor(Date.now() / 3_600_000) + 1) * 3_600_000;
    for (let i = 0; i < 5; i++) {
      const r = await l.limit(id);
      expect(r).toEqual({ success: true, limit: 5, remaining: 4 - i, reset: windowEnd });
    }
    const refused = await l.limit(id);
    expect(refused).toEqual({ success: false, limit: 5, remaining: 0, reset: windowEnd });
    const wait = retryAfterSeconds(refused.reset);
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(3600);
    expect((await l.limit(`${id}-other`)).remaining).toBe(4);
    if (kind === "upstash") expect(shim.requests).toBeGreaterThan(0);
  });

  it("stores its counters under its prefix, with an expiry", async () => {
    const l = limiter(kind, 3, 3600);
    const id = `keys-${randomBytes(4).toString("hex")}`;
    await l.limit(id);
    const keys = await inspect.keys(`test:${run}:${kind}:${id}:*`);
    expect(keys).toHaveLength(1);
    expect(await inspect.get(keys[0]!)).toBe("1");
    expect(await inspect.pttl(keys[0]!)).toBeGreaterThan(3_600_000);
  });

  it("shares the count between two instances on the same Redis (scale-out)", async () => {
    const a = limiter(kind, 6, 3600);
    const b = limiter(kind, 6, 3600);
    const id = `shared-${randomBytes(4).toString("hex")}`;
    const seen: number[] = [];
    for (let i = 0; i < 3; i++) {
      seen.push((await a.limit(id)).remaining);
      seen.push((await b.limit(id)).remaining);
    }
    expect(seen).toEqual([5, 4, 3, 2, 1, 0]);
    expect((await a.limit(id)).success).toBe(false);
    expect((await b.limit(id)).success).toBe(false);
  });

  it("counts concurrent calls exactly once each", async () => {
    const l = limiter(kind, 20, 3600);
    const id = `burst-${randomBytes(4).toString("hex")}`;
    const results = await Promise.all(Array.from({ length: 30 }, () => l.limit(id)));
    expect(results.filter((r) => r.success)).toHaveLength(20);
    expect(results.map((r) => r.remaining).sort((x, y) => x - y)).toEqual([
      ...Array<number>(11).fill(0),
      ...Array.from({ length: 19 }, (_, i) => i + 1),
    ]);
  });

  it("slides: the previous window still weighs right after a boundary, less later", async () => {
    // 3 s windows; each probe below stays valid for at least 600 ms after its planned time (slack for a busy machine).
    const l = limiter(kind, 4, 3);
    const id = `slide-${randomBytes(4).toString("hex")}`;
    const boundary = (Math.floor(Date.now() / 3000) + 1) * 3000;
    await sleepUntil(boundary + 20);
    for (let i = 0; i < 4; i++) expect((await l.limit(id)).success).toBe(true);
    expect((await l.limit(id)).success).toBe(false);
    // Early in the next window (f ≤ 0.25): floor((1 - f) × 4) = 3 still weigh, one passes (a fixed window would let 4).
    await sleepUntil(boundary + 3000 + 100);
    expect(await l.limit(id)).toMatchObject({ success: true, remaining: 0 });
    expect((await l.limit(id)).success).toBe(false);
    // Late in it (f ≥ 0.75): floor((1 - f) × 4) = 0 weigh, 1 counted in this window, so 2 more pass.
    await sleepUntil(boundary + 3000 + 2400);
    expect(await l.limit(id)).toMatchObject({ success: true, remaining: 2 });
  });
});

describe("ioredis adapter", () => {
  it("strips the script shebang Redis 7.0 rejects, and answers evalsha by the original script's SHA-1", async () => {
    const { IoredisUpstashAdapter, scriptSha } = await import("@/lib/rate-limit/ioredis-adapter");
    const client = new IORedis(serverRedisUrl(), { maxRetriesPerRequest: 1 });
    try {
      const adapter = new IoredisUpstashAdapter(client);
      const script = "#!lua flags=allow-key-locking\nreturn {KEYS[1], tonumber(ARGV[1]) + 1}";
      await expect(client.eval(script, 0)).rejects.toThrow(/shebang|flag/i);
      const sha = scriptSha(script);
      await expect(adapter.evalsha(sha, ["k"], [1])).rejects.toThrow(/NOSCRIPT/);
      expect(await adapter.eval(script, ["k"], [1])).toEqual(["k", 2]);
      expect(await adapter.evalsha(sha, ["k"], [41])).toEqual(["k", 42]);
    } finally {
      client.disconnect();
    }
  });
});

describe("createRateLimiters", () => {
  it("builds both limiters on the configured back end, counting apart, and closes their connection", async () => {
    const config = loadConfig({
      REDIS_URL: serverRedisUrl(),
      RATE_LIMIT_REQUESTS: "7",
      RATE_LIMIT_WINDOW_SECONDS: "3600",
      AUTH_FAILURE_LIMIT: "2",
      AUTH_FAILURE_WINDOW_SECONDS: "3600",
    });
    const first = createRateLimiters(config);
    expect(first.perKey.backend).toBe("redis");
    expect(first.authFailure.backend).toBe("redis");
    const id = `pair-${run}`;
    expect((await first.perKey.limit(id)).remaining).toBe(6);
    expect((await first.authFailure.limit(id)).remaining).toBe(1);
    expect((await first.authFailure.limit(id)).remaining).toBe(0);
    expect((await first.authFailure.limit(id)).success).toBe(false);
    // The two limiters count apart.
    expect((await first.perKey.limit(id)).remaining).toBe(5);

    const memory = createRateLimiters(loadConfig({ RATE_LIMIT_REQUESTS: "7" }));
    expect(memory.perKey.backend).toBe("memory");
    await memory.close();
    // Closed: their connection is gone, the policy answers instead of hanging.
    await first.close();
    const after = await first.perKey.limit(id);
    expect(after.degraded).toBe(true);
  });
});
