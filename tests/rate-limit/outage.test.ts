// Redis stopped mid-run (a dedicated redis-server, killed and restarted on the same port), and a back end that
// accepts connections but never answers: every limit() settles within the timeout, the policy decides the answer,
// one log line per incident, and limiting resumes when Redis is back.
import net from "node:net";
import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { loadConfig } from "@/lib/config";
import { RateLimiterUnavailableError, createRateLimiter, type RateLimiter } from "@/lib/rate-limit";
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
    expect(o.result).toMatchObject({ success: true, degraded: true, limit: 1000, remaining: 1000 });
    expect(o.result!.reset).toBeGreaterThanOrEqual(o.started + WINDOW_S * 1000);
    expect(o.result!.reset).toBeLessThanOrEqual(Date.now() + WINDOW_S * 1000);
  } else {
    expect(o.result).toBeUndefined();
    expect(o.error).toBeInstanceOf(RateLimiterUnavailableError);
  }
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
    const id = `k-${randomBytes(4).toString("hex")}`;
    expect(await l.limit(id)).toEqual({
      success: true,
      limit: 1000,
      remaining: 999,
      reset: expect.any(Number),
    });

    await redis.stop();
    for (let i = 0; i < 5; i++) expectPolicyAnswer(await timed(l, id), policy);
    // A burst while it is down: every call settles, none hangs.
    const burst = await Promise.all(Array.from({ length: 20 }, () => timed(l, id)));
    for (const o of burst) expectPolicyAnswer(o, policy);
    const label = kind === "redis" ? "] Redis at" : "] Upstash Redis at";
    const outageLogs = warn.mock.calls.filter(
      (c) => String(c[0]).includes(label) && String(c[0]).includes("unreachable"),
    );
    expect(outageLogs).toHaveLength(1);
    expect(String(outageLogs[0]![0])).toContain(policy === "allow" ? "allowing" : "refusing");

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
