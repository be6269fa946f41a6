// The Python client (clients/python/pca_client.py) against a server whose rate limit is small (3 requests per 2 s
// per key): a 429 is sent again after its Retry-After, as many times as needed within max_retries, and the reads
// succeed; with max_retries=0 the 429 raises CatalogApiError with the catalogue's code, message and retryAfter.
// Each case has a key of its own, so that one's spent quota is no other's. Through a recording proxy
// (python-support.ts), which times each request and reads each answer's Retry-After.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { READ_SCOPES } from "@/lib/keys/scopes";
import { insertKey } from "../support/api";
import { startApiServer, type ApiServer } from "../support/api-server";
import { runPython, startProxy, type FaultProxy } from "./python-support";

const LIMIT = 3;
const WINDOW_SECONDS = 2;

let api: ApiServer;
let proxy: FaultProxy;

beforeAll(async () => {
  api = await startApiServer("pglite", {
    RATE_LIMIT_REQUESTS: String(LIMIT),
    RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
  });
  proxy = await startProxy(api.baseUrl);
});

afterAll(async () => {
  await proxy?.close();
  await api?.close();
});

const newKey = () => insertKey(api.fx.db, api.fx.globex.orgId, READ_SCOPES);

describe("the rate limit", { timeout: 60_000 }, () => {
  it("a 429 is retried after its Retry-After until the read succeeds", async () => {
    const key = await newKey();
    const t = Date.now();
    const [retries, totals] = await runPython(
      `
retries = []
client = Client(BASE, KEY, on_retry=lambda r: retries.append([r.attempt, r.delay, r.status, r.error.retry_after]))
totals = []
while len(totals) < 12 and (len(totals) < ${LIMIT + 2} or not retries):
    totals.append(client.page("families", perPage=1)["pagination"]["total"])
out(retries)
out(totals)
`,
      { PCA_BASE_URL: proxy.url, PCA_API_KEY: key },
    );
    // At least LIMIT + 2 reads, and more until one meets the limit: a loaded machine can spread them over the
    // sliding window enough that the first few all pass.
    expect(totals.length).toBeGreaterThanOrEqual(LIMIT + 2);
    expect(new Set(totals).size).toBe(1);
    expect(totals[0]).toBeGreaterThan(0);
    expect(retries.length).toBeGreaterThanOrEqual(1);
    const seen = proxy.seen.filter((s) => s.at >= t);
    const refused = seen.filter((s) => s.status === 429);
    expect(refused).toHaveLength(retries.length);
    expect(seen.filter((s) => s.status === 200)).toHaveLength(totals.length);
    for (const [i, r] of refused.entries()) {
      const retryAfter = Number(r.headers!["retry-after"]);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      // The client waited what the answer said, then sent the same request.
      const [, delay, status, given] = retries[i];
      expect([delay, status, given]).toEqual([retryAfter, 429, retryAfter]);
      const next = seen[seen.indexOf(r) + 1]!;
      expect(next.url).toBe(r.url);
      expect(next.at - r.at).toBeGreaterThanOrEqual(retryAfter * 1000 - 10);
    }
  });

  it("with max_retries=0, the 429 raises CatalogApiError with the catalogue's code", async () => {
    const key = await newKey();
    const [error, calls] = await runPython(
      `
client = Client(BASE, KEY, max_retries=0)
calls = 0
try:
    # The fourth read within one window meets the limit; reads spread over the sliding window may all pass, so
    # reading goes on (up to 12) until one does not.
    for _ in range(12):
        client.page("products", perPage=1)
        calls += 1
except CatalogApiError as e:
    out(dict(error_of(e), leaks=KEY in str(e) + repr(e) + json.dumps(e.body)))
out(calls)
`,
      { PCA_BASE_URL: proxy.url, PCA_API_KEY: key },
    );
    expect(calls).toBeGreaterThanOrEqual(LIMIT);
    expect(calls).toBeLessThan(12);
    expect(error).toMatchObject({
      type: "CatalogApiError",
      status: 429,
      code: "PUBLIC_API_RATE_LIMIT_EXCEEDED",
      message: "Limite de requêtes dépassée.",
      path: "/public/v1/products?perPage=1",
      leaks: false,
    });
    expect(error.retry_after).toBeGreaterThanOrEqual(1);
    expect(error.retry_after).toBeLessThanOrEqual(WINDOW_SECONDS);
    expect(error.body).toMatchObject({
      statusCode: 429,
      error: "Too Many Requests",
      retryAfter: error.retry_after,
    });
    expect(error.request_id).toMatch(/^[0-9a-f-]{36}$/);
  });
});
