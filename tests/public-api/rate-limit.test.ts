// Rate limiting through the pipeline: exact 429 body and headers, per-key counters, failed-auth limiting,
// on the in-process limiter and on a real Redis server, including Redis stopped mid-run.
import { Redis as IORedis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateApiKey } from "@/lib/keys/format";
import { loadConfig } from "@/lib/config";
import { createRuntime } from "@/lib/runtime";
import { call, expectUnavailable, setupApi, type ApiFixture, swapRuntime } from "../support/api";
import { startRedis, type RedisProcess } from "../support/redis-process";
import { serverRedisUrl } from "../support/servers";

let fx: ApiFixture;
beforeAll(async () => {
  fx = await setupApi("pglite");
});
afterAll(async () => {
  await fx?.close();
});

function use(env: Record<string, string>) {
  const rt = createRuntime(loadConfig({ PUBLIC_BASE_URL: "http://api.test", ...env }), fx.db);
  void swapRuntime(rt);
  return rt;
}

describe.each([
  ["in-process", () => ({})],
  // A generous timeout: this suite counts exactly, and a call slower than the default 250 ms on a loaded machine
  // would be counted by the in-process fallback instead (tests/rate-limit/outage.test.ts tests that fallback).
  ["Redis server", () => ({ REDIS_URL: serverRedisUrl(), RATE_LIMIT_TIMEOUT_MS: "5000" })],
])("per-key limit on the %s limiter", (_name, backend) => {
  // An hour's window: these tests count exactly, and a sliding window's boundary crossed between two of their
  // requests weighs the earlier ones down (floor(1 × 0.999) = 0: CI 15:42 saw "4" twice with a 30 s window).
  it("counts down, then answers 429 with the exact body and Retry-After = retryAfter", async () => {
    use({ ...backend(), RATE_LIMIT_REQUESTS: "5", RATE_LIMIT_WINDOW_SECONDS: "3600" });
    const key = fx.acme.full;
    for (let i = 0; i < 5; i++) {
      const res = await call("/public/v1/families?perPage=1", { key });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-ratelimit-limit")).toBe("5");
      expect(res.headers.get("x-ratelimit-remaining")).toBe(String(4 - i));
      expect(res.headers.get("ratelimit-policy")).toBe('"default";q=5;w=3600');
      expect(res.headers.get("ratelimit")).toMatch(new RegExp(`^"default";r=${4 - i};t=\\d+$`));
      expect(Number(res.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000 - 1);
    }
    const res = await call("/public/v1/products", { key });
    expect(res.status).toBe(429);
    expect(res.body).toEqual({
      statusCode: 429,
      message: "Limite de requêtes dépassée.",
      error: "Too Many Requests",
      code: "PUBLIC_API_RATE_LIMIT_EXCEEDED",
      retryAfter: expect.any(Number),
      requestId: res.headers.get("x-request-id"),
    });
    expect(Number.isInteger(res.body.retryAfter)).toBe(true);
    expect(res.body.retryAfter).toBeGreaterThanOrEqual(1);
    expect(res.body.retryAfter).toBeLessThanOrEqual(3600);
    expect(res.headers.get("retry-after")).toBe(String(res.body.retryAfter));
    expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
    // Another key of the same organization has its own window.
    const other = await call("/public/v1/products", { key: fx.acme.without.media });
    expect(other.status).toBe(200);
  });

  it("counts every authenticated request, 403 and 400 included, and sends their headers", async () => {
    use({ ...backend(), RATE_LIMIT_REQUESTS: "5", RATE_LIMIT_WINDOW_SECONDS: "3600" });
    const key = fx.acme.without.products;
    const answers: [number, string | null][] = [];
    for (const path of [
      "/public/v1/products",
      "/public/v1/products",
      "/public/v1/families?page=zero",
      "/public/v1/products",
      "/public/v1/families?nope=1",
      "/public/v1/products",
      "/public/v1/families",
    ]) {
      const res = await call(path, { key });
      answers.push([res.status, res.headers.get("x-ratelimit-remaining")]);
      expect(res.headers.get("ratelimit-policy")).toBe('"default";q=5;w=3600');
    }
    expect(answers).toEqual([
      [403, "4"],
      [403, "3"],
      [400, "2"],
      [403, "1"],
      [400, "0"],
      [429, "0"],
      [429, "0"],
    ]);
  });

  it("limits failed key look-ups per client address, not malformed keys, and not valid cached keys", async () => {
    use({
      ...backend(),
      AUTH_FAILURE_LIMIT: "3",
      AUTH_FAILURE_WINDOW_SECONDS: "30",
      RATE_LIMIT_REQUESTS: "1000",
    });
    const ip = `203.0.113.${Math.floor(Math.random() * 200) + 1}`;
    const headers = { "x-forwarded-for": ip };
    expect((await call("/public/v1/products", { key: fx.globex.full, headers })).status).toBe(200);
    for (let i = 0; i < 10; i++) {
      const res = await call("/public/v1/products", {
        headers: { ...headers, authorization: "Bearer nope" },
      });
      expect(res.status).toBe(401);
    }
    for (let i = 0; i < 3; i++) {
      const res = await call("/public/v1/products", { key: generateApiKey(), headers });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe("PUBLIC_API_KEY_INVALID");
    }
    const blocked = await call("/public/v1/products", { key: generateApiKey(), headers });
    expect(blocked.status).toBe(429);
    expect(blocked.body.code).toBe("PUBLIC_API_RATE_LIMIT_EXCEEDED");
    expect(blocked.headers.get("retry-after")).toBe(String(blocked.body.retryAfter));
    const again = await call("/public/v1/products", { key: generateApiKey(), headers });
    expect(again.status).toBe(429);
    // Another address is not affected; a key already known on this instance still works from the blocked one.
    const elsewhere = await call("/public/v1/products", {
      key: generateApiKey(),
      headers: { "x-forwarded-for": "198.51.100.7" },
    });
    expect(elsewhere.status).toBe(401);
    expect((await call("/public/v1/products", { key: fx.globex.full, headers })).status).toBe(200);
  });
});

describe("Redis stopped mid-run", () => {
  let redis: RedisProcess;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it.each(["allow", "refuse"] as const)(
    "policy %s: never hangs, never 500, recovers when Redis is back",
    async (policy) => {
      use({
        REDIS_URL: redis.url,
        RATE_LIMIT_REQUESTS: "1000",
        RATE_LIMIT_ON_BACKEND_ERROR: policy,
        RATE_LIMIT_TIMEOUT_MS: "200",
      });
      const key = fx.acme.full;
      expect((await call("/public/v1/families", { key })).status).toBe(200);
      await redis.stop();
      for (let i = 0; i < 5; i++) {
        const started = Date.now();
        const res = await call("/public/v1/families", { key });
        expect(Date.now() - started).toBeLessThan(2_000);
        if (policy === "allow") {
          expect(res.status).toBe(200);
        } else {
          expectUnavailable(res);
        }
      }
      await redis.start();
      // Recovered when Redis counts again: the restarted server (empty) holds the key's window after a 200.
      const inspect = new IORedis(redis.url, { maxRetriesPerRequest: 1 });
      try {
        let recovered = false;
        for (let i = 0; i < 50 && !recovered; i++) {
          const res = await call("/public/v1/families", { key });
          recovered =
            res.status === 200 &&
            res.headers.get("x-ratelimit-remaining") !== null &&
            (await inspect.keys("pcapi:rl:key*")).length > 0;
          if (!recovered) await new Promise((r) => setTimeout(r, 200));
        }
        expect(recovered).toBe(true);
      } finally {
        inspect.disconnect();
      }
    },
  );
});
