// Redis stopped mid-run (a dedicated redis-server, killed and restarted on the same port), and a back end that
// accepts connections but never answers: every limit() settles within the timeout, the policy decides the answer
// (allow: counted by this instance's in-process limiter; refuse: RateLimiterUnavailableError), one log line per
// incident, and Redis counts again when it is back. Through the API pipeline, while Redis is down: the
// failed-authentication and per-key limits still apply, the headers show what is counted, and with requests in flight
// across a stop and a restart (issue 27) only the policy's answers come (never a 500 or 503), and Redis counts again.
import net from "node:net";
import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Database } from "@/db/client";
import { generateApiKey, hashApiKey } from "@/lib/keys/format";
import { READ_SCOPES } from "@/lib/keys/scopes";
import { loadConfig } from "@/lib/config";
import { createRuntime } from "@/lib/runtime";
import { createRateLimiter } from "@/lib/rate-limit/limiters";
import { RateLimiterUnavailableError, type RateLimiter } from "@/lib/rate-limit/types";
import { call, expectUnavailable, insertKey, setupApi, type ApiFixture, swapRuntime } from "../support/api";
import { startRedis, type RedisProcess } from "../support/redis-process";
import { startUpstashShim, type UpstashShim } from "../support/upstash-rest-shim";

const TIMEOUT_MS = 200;
const MARGIN_MS = 400; // scheduling slack on a shared 2-core machine
const WINDOW_S = 3600;

let redis: RedisProcess;
let shim: UpstashShim;
let hanging: net.Server;
let hangingPort: number;
const hangingSockets = new Set<net.Socket>();
const opened: RateLimiter[] = [];

beforeAll(async () => {
  redis = await startRedis();
  shim = await startUpstashShim(redis.url);
  // Accepts TCP connections and never writes a byte (neither a Redis reply nor an HTTP response).
  hanging = net.createServer((s) => {
    hangingSockets.add(s);
    s.on("error", () => {});
    s.once("close", () => hangingSockets.delete(s));
  });
  await new Promise<void>((r) => hanging.listen(0, "127.0.0.1", r));
  hangingPort = (hanging.address() as net.AddressInfo).port;
});
afterAll(async () => {
  await Promise.allSettled(opened.map((l) => l.close?.()));
  await shim?.close();
  await redis?.stop();
  for (const s of hangingSockets) s.destroy();
  await new Promise<void>((r) => (hanging ? hanging.close(() => r()) : r()));
});
afterEach(() => {
  vi.restoreAllMocks();
});

type Kind = "redis" | "upstash";
type Policy = "allow" | "refuse";

function limiter(env: Record<string, string | undefined>, policy: Policy, kind: Kind) {
  const l = createRateLimiter(
    loadConfig({ ...env, RATE_LIMIT_ON_BACKEND_ERROR: policy, RATE_LIMIT_TIMEOUT_MS: String(TIMEOUT_MS) }),
    { prefix: `outage:${kind}:${policy}`, limit: 1000, windowSeconds: WINDOW_S },
  );
  opened.push(l);
  return l;
}

/** Calls limit() and returns how it settled and how long that took. */
async function timed(l: RateLimiter, id: string) {
  const started = Date.now();
  try {
    const result = await l.limit(id);
    return { ms: Date.now() - started, result, error: undefined as unknown, started };
  } catch (error) {
    return { ms: Date.now() - started, result: undefined, error, started };
  }
}

function expectPolicyAnswer(o: Awaited<ReturnType<typeof timed>>, policy: Policy) {
  expect(o.ms).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
  if (policy === "allow") {
    expect(o.error).toBeUndefined();
    // Counted by the in-process fallback: the same limit, a remaining that goes down.
    expect(o.result).toMatchObject({ success: true, degraded: true, limit: 1000 });
    expect(o.result!.remaining).toBeLessThan(1000);
    expect(o.result!.reset).toBeGreaterThan(o.started);
    expect(o.result!.reset).toBeLessThanOrEqual(Date.now() + WINDOW_S * 1000);
  } else {
    expect(o.result).toBeUndefined();
    expect(o.error).toBeInstanceOf(RateLimiterUnavailableError);
  }
}

// Waits until the limiter's back end counts (not degraded). Its first call opens the connection, which on a loaded
// machine may pass the timeout and answer by policy; another id, so the one under test starts from zero.
async function untilCounting(l: RateLimiter): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const r = await l.limit("warm-up").catch(() => undefined);
    if (r && !r.degraded) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("the limiter's back end did not count within 15 s");
}

const cases: [Kind, Policy][] = [
  ["redis", "allow"],
  ["redis", "refuse"],
  ["upstash", "allow"],
  ["upstash", "refuse"],
];

describe.each(cases)("%s back end, policy %s, Redis stopped mid-run", (kind, policy) => {
  it("answers by policy within the timeout, logs once, and limits again when Redis is back", async () => {
    const warn = vi.spyOn(console, "warn");
    const env =
      kind === "redis"
        ? { REDIS_URL: redis.url }
        : { UPSTASH_REDIS_REST_URL: shim.url, UPSTASH_REDIS_REST_TOKEN: shim.token };
    const l = limiter(env, policy, kind);
    await untilCounting(l);
    warn.mockClear();
    const id = `k-${randomBytes(4).toString("hex")}`;
    expect(await l.limit(id)).toEqual({
      success: true,
      limit: 1000,
      remaining: 999,
      reset: expect.any(Number),
    });

    await redis.stop();
    const down: (number | undefined)[] = [];
    for (let i = 0; i < 5; i++) {
      const o = await timed(l, id);
      expectPolicyAnswer(o, policy);
      down.push(o.result?.remaining);
    }
    // The fallback counts from its own zero (it has not seen the request Redis counted).
    if (policy === "allow") expect(down).toEqual([999, 998, 997, 996, 995]);
    // A burst while it is down: every call settles, none hangs, each is counted once.
    const burst = await Promise.all(Array.from({ length: 20 }, () => timed(l, id)));
    for (const o of burst) expectPolicyAnswer(o, policy);
    if (policy === "allow") {
      const remaining = burst.map((o) => o.result!.remaining).sort((a, b) => b - a);
      expect(remaining).toEqual(Array.from({ length: 20 }, (_, i) => 994 - i));
    }
    const label = kind === "redis" ? "] Redis at" : "] Upstash Redis at";
    const outageLogs = warn.mock.calls.filter(
      (c) => String(c[0]).includes(label) && String(c[0]).includes("unreachable"),
    );
    expect(outageLogs).toHaveLength(1);
    expect(String(outageLogs[0]![0])).toContain(
      policy === "allow"
        ? "falling back to this instance's in-process limiter"
        : "refusing requests with 503",
    );

    await redis.start();
    const deadline = Date.now() + 15_000;
    let back: Awaited<ReturnType<typeof timed>> | undefined;
    while (Date.now() < deadline) {
      const o = await timed(l, id);
      expect(o.ms).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
      if (o.result && !o.result.degraded) {
        back = o;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(back, "limiting did not resume within 15 s").toBeDefined();
    // The restarted server is empty: counting starts again from its first request.
    expect(back!.result).toMatchObject({ success: true, limit: 1000, remaining: 999 });
    expect((await l.limit(id)).remaining).toBe(998);
    expect(warn.mock.calls.filter((c) => String(c[0]).includes("reachable again"))).toHaveLength(1);
    // Closed, so that its connection does not log during the next test's outage.
    await l.close?.();
  });
});

describe.each(cases)("%s back end, policy %s, a server that never answers", (kind, policy) => {
  it("settles every call within the timeout", async () => {
    const env =
      kind === "redis"
        ? { REDIS_URL: `redis://127.0.0.1:${hangingPort}` }
        : { UPSTASH_REDIS_REST_URL: `http://127.0.0.1:${hangingPort}`, UPSTASH_REDIS_REST_TOKEN: "t" };
    const l = limiter(env, policy, kind);
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => timed(l, `slow-${i}`)));
    for (const o of results) expectPolicyAnswer(o, policy);
    expectPolicyAnswer(await timed(l, "slow-again"), policy);
  });
});

describe("ioredis adapter on a server that never answers", () => {
  it("gives up waiting for the connection after its bound and leaves no listener behind", async () => {
    const { IoredisUpstashAdapter, createIoredisClient } = await import("@/lib/rate-limit/ioredis-adapter");
    const client = createIoredisClient(`redis://127.0.0.1:${hangingPort}`, 100, () => {});
    try {
      const adapter = new IoredisUpstashAdapter(client, 100);
      // ioredis keeps one "ready" listener of its own while connecting; ours must all be gone after each round.
      let baseline = -1;
      for (let i = 0; i < 4; i++) {
        const started = Date.now();
        const calls = Array.from({ length: 10 }, () => adapter.eval("return 1", [], []));
        const settled = await Promise.allSettled(calls);
        expect(Date.now() - started).toBeLessThan(100 + MARGIN_MS);
        for (const s of settled) {
          expect(s.status).toBe("rejected");
          expect(String((s as PromiseRejectedResult).reason)).toMatch(/not ready|closed|connection is/);
        }
        if (i === 0) baseline = client.listenerCount("ready");
        expect(client.listenerCount("ready")).toBe(baseline);
        expect(client.listenerCount("close")).toBeLessThanOrEqual(baseline + 1);
      }
      expect(baseline).toBeLessThanOrEqual(1);
    } finally {
      client.disconnect();
    }
  });
});

describe("through the API pipeline, Redis stopped", () => {
  const AUTH_LIMIT = 10;
  const KEY_LIMIT = 5;
  const client = { "x-forwarded-for": "203.0.113.7" };
  let fx: ApiFixture;
  /** Key look-ups that reached the database (findKeyByHash's statement). */
  let lookups = 0;

  // The fixture's database, counting the key look-ups that reach it.
  function counting(db: Database): Database {
    return {
      ...db,
      query: (text, params) => {
        if (/from api_keys k join organizations/.test(text)) lookups++;
        return db.query(text, params);
      },
    };
  }

  function installRuntime(policy: Policy, env: Record<string, string> = {}) {
    const config = loadConfig({
      PUBLIC_BASE_URL: "http://api.test",
      REDIS_URL: redis.url,
      RATE_LIMIT_ON_BACKEND_ERROR: policy,
      RATE_LIMIT_TIMEOUT_MS: String(TIMEOUT_MS),
      RATE_LIMIT_REQUESTS: String(KEY_LIMIT),
      RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_S),
      AUTH_FAILURE_LIMIT: String(AUTH_LIMIT),
      AUTH_FAILURE_WINDOW_SECONDS: String(WINDOW_S),
      ...env,
    });
    void swapRuntime(createRuntime(config, counting(fx.db)));
  }

  beforeAll(async () => {
    fx = await setupApi("pglite");
  });
  afterAll(async () => {
    await swapRuntime(undefined);
    await fx?.close();
  });

  /** Runs fn with Redis stopped, after the limiters' connection has seen it up; starts it again afterwards. */
  async function withRedisDown(policy: Policy, fn: () => Promise<void>) {
    if (!redis.running) await redis.start();
    installRuntime(policy);
    await redis.stop();
    try {
      await fn();
    } finally {
      await redis.start();
    }
  }

  it("policy allow: well-formed unknown keys from one address get 429 after the failed-authentication limit, with few look-ups", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    await withRedisDown("allow", async () => {
      lookups = 0;
      const statuses: number[] = [];
      for (let i = 0; i < 120; i++) {
        const res = await call("/public/v1/products", { key: generateApiKey(), headers: client });
        statuses.push(res.status);
        if (i < AUTH_LIMIT) {
          expect(res.status).toBe(401);
          // The headers show the in-process count, not an untouched quota.
          expect(res.headers.get("ratelimit")).toMatch(
            new RegExp(`^"auth-failures";r=${AUTH_LIMIT - 1 - i};t=\\d+$`),
          );
        }
      }
      expect(statuses.indexOf(429)).toBe(AUTH_LIMIT);
      expect(statuses.slice(AUTH_LIMIT).every((s) => s === 429)).toBe(true);
      // The limit's worth of look-ups, plus the one that crossed it; the blocked address reads nothing more.
      expect(lookups).toBe(AUTH_LIMIT + 1);
    });
  });

  it("policy allow: a valid key gets 429 past its limit, and its headers count down", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    await withRedisDown("allow", async () => {
      const key = fx.acme.full;
      for (let i = 0; i < KEY_LIMIT; i++) {
        const res = await call("/public/v1/products", { key, headers: client });
        expect(res.status).toBe(200);
        expect(res.headers.get("ratelimit")).toMatch(new RegExp(`^"default";r=${KEY_LIMIT - 1 - i};t=\\d+$`));
        expect(res.headers.get("x-ratelimit-remaining")).toBe(String(KEY_LIMIT - 1 - i));
        expect(res.headers.get("ratelimit-policy")).toBe(`"default";q=${KEY_LIMIT};w=${WINDOW_S}`);
      }
      const refused = await call("/public/v1/products", { key, headers: client });
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ code: "PUBLIC_API_RATE_LIMIT_EXCEEDED" });
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
    });
  });

  it("policy allow, requests in flight while Redis stops and starts again: only 200s and 429s, each within the limiter's bound, and Redis counts again after", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const LIMIT = 40;
    if (!redis.running) await redis.start();
    installRuntime("allow", { RATE_LIMIT_REQUESTS: String(LIMIT) });
    const keys = await Promise.all(
      Array.from({ length: 6 }, () => insertKey(fx.db, fx.acme.orgId, READ_SCOPES)),
    );
    const answers: { status: number; ms: number }[] = [];
    let running = true;
    const worker = async (key: string) => {
      while (running) {
        const started = Date.now();
        const res = await call("/public/v1/products?perPage=1", { key, headers: client });
        answers.push({ status: res.status, ms: Date.now() - started });
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    const workers = keys.map(worker);
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    await sleep(300);
    await redis.stop();
    await sleep(1000);
    await redis.start();
    await sleep(1000);
    running = false;
    await Promise.all(workers);
    // The policy's answers only (the in-process limiter counts while Redis is down): never a 500 or a 503.
    const statuses = new Set(answers.map((a) => a.status));
    expect([...statuses].filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(statuses.has(200)).toBe(true);
    // Each answer within the limiter's bound (and the in-process database's time), never a hang.
    expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(TIMEOUT_MS + MARGIN_MS + 500);

    // Redis limits again: a new key's requests are counted in Redis, and its LIMIT+1st is refused.
    const { default: Redis } = await import("ioredis");
    const direct = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await direct.connect();
      const key = await insertKey(fx.db, fx.acme.orgId, READ_SCOPES);
      const id = (
        await fx.db.query<{ id: string }>("select id from api_keys where key_hash = $1", [hashApiKey(key)])
      )[0]!.id;
      // Until the limiter's connection is back: the first request counted in Redis (those before it were counted
      // by the in-process fallback).
      const deadline = Date.now() + 15_000;
      while ((await direct.keys(`pcapi:rl:key*${id}*`)).length === 0) {
        expect(Date.now(), "Redis counted no request within 15 s of its restart").toBeLessThan(deadline);
        expect((await call("/public/v1/products?perPage=1", { key, headers: client })).status).toBe(200);
        await sleep(100);
      }
      // One counted in Redis; LIMIT - 1 more are let through, the next is refused.
      const rest: number[] = [];
      for (let i = 0; i < LIMIT; i++)
        rest.push((await call("/public/v1/products?perPage=1", { key, headers: client })).status);
      expect(rest.at(-1)).toBe(429);
      expect(rest.slice(0, -1).every((s) => s === 200)).toBe(true);
    } finally {
      direct.disconnect();
    }
  });

  it("policy refuse: 503 with Retry-After, for a valid key and for an unknown one", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    await withRedisDown("refuse", async () => {
      expectUnavailable(await call("/public/v1/products", { key: fx.globex.full, headers: client }));
      expectUnavailable(
        await call("/public/v1/products", {
          key: generateApiKey(),
          headers: { "x-forwarded-for": "198.51.100.9" },
        }),
      );
    });
  });
});
