// The TypeScript client's retries against a real server on loopback with a small rate limit (3 requests per 2 s per
// key): a 429 waited out after its Retry-After then answered, or thrown typed with no retry left; a 503 and a lost
// connection (through a faulty proxy in front of the server) sent again; a server that cannot be reached, a
// CatalogNetworkError. The key is in no error and in nothing onRetry is told.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { READ_SCOPES } from "@/lib/keys/scopes";
import {
  CatalogApiError,
  CatalogClient,
  CatalogNetworkError,
  type RetryInfo,
} from "@/clients/typescript/src/index";
import { insertKey } from "../support/api";
import { startApiServer, type ApiServer } from "../support/api-server";

let api: ApiServer;

beforeAll(async () => {
  api = await startApiServer("pglite", {
    PUBLIC_API_PREVIEW: "all",
    RATE_LIMIT_REQUESTS: "3",
    RATE_LIMIT_WINDOW_SECONDS: "2",
  });
});

afterAll(async () => {
  await api?.close();
});

// A key of acme's with every read scope, and a rate limit of its own.
const newKey = () => insertKey(api.fx.db, api.fx.acme.orgId, READ_SCOPES);

// A proxy in front of the server whose first requests meet a fault: a 503 with this Retry-After, or the connection
// destroyed before any answer; then it forwards.
async function faultyProxy(faults: ("503" | "reset")[], retryAfter = "1") {
  const requests: string[] = [];
  const server = http.createServer(async (req, res) => {
    requests.push(req.url!);
    const fault = faults.shift();
    if (fault === "reset") return req.socket.destroy();
    if (fault === "503") {
      res.writeHead(503, { "content-type": "application/json; charset=utf-8", "retry-after": retryAfter });
      return res.end(
        JSON.stringify({ statusCode: 503, error: "Service Unavailable", code: "PUBLIC_API_UNAVAILABLE" }),
      );
    }
    const answer = await fetch(api.baseUrl + req.url!, {
      headers: { authorization: req.headers.authorization! },
    });
    res.writeHead(answer.status, {
      "content-type": answer.headers.get("content-type") ?? "application/json",
    });
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

describe("a 429", () => {
  it("is waited out for its Retry-After, then the request is answered", async () => {
    const key = await newKey();
    const retries: RetryInfo[] = [];
    const client = new CatalogClient({ baseUrl: api.baseUrl, key, onRetry: (r) => retries.push(r) });
    // Requests until one meets the limit: three within one window do, but a loaded machine can spread them over
    // two windows, whose boundary starts the count again.
    let answer, waited;
    for (let call = 0; call < 12 && retries.length === 0; call++) {
      const started = Date.now();
      answer = await client.categories.page({ perPage: 1 });
      waited = Date.now() - started;
    }
    expect(answer!.data).toHaveLength(1);
    expect(retries.length).toBeGreaterThanOrEqual(1);
    expect(retries[0]).toMatchObject({ status: 429, attempt: 1, path: "/public/v1/categories?perPage=1" });
    expect(retries[0]!.delaySeconds).toBeGreaterThanOrEqual(1);
    expect(retries[0]!.delaySeconds).toBeLessThanOrEqual(2);
    const total = retries.reduce((s, r) => s + r.delaySeconds, 0);
    expect(waited!).toBeGreaterThanOrEqual(total * 1000 - 50);
    expect(JSON.stringify(retries)).not.toContain(key);
  });

  it("with no retry left, throws CatalogApiError PUBLIC_API_RATE_LIMIT_EXCEEDED with its Retry-After", async () => {
    const key = await newKey();
    const client = new CatalogClient({ baseUrl: api.baseUrl, key, maxRetries: 0 });
    // As above: the fourth request within one window meets the limit; a boundary between them delays it.
    let error: unknown;
    for (let call = 0; call < 12 && error === undefined; call++) {
      error = await client.media.page({ perPage: 1 }).then(
        () => undefined,
        (e: unknown) => e,
      );
    }
    expect(error).toBeInstanceOf(CatalogApiError);
    const e = error as CatalogApiError;
    expect(e.status).toBe(429);
    expect(e.code).toBe("PUBLIC_API_RATE_LIMIT_EXCEEDED");
    expect(e.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(e.body).toMatchObject({ statusCode: 429, retryAfter: e.retryAfterSeconds });
    expect(e.requestId).toMatch(/.+/);
    expect(`${e.message} ${e.stack}`).not.toContain(key);
  });
});

describe("a 503 and a lost connection", () => {
  it("a 503 is sent again after its Retry-After", async () => {
    const proxy = await faultyProxy(["503", "503"]);
    try {
      const retries: RetryInfo[] = [];
      const client = new CatalogClient({
        baseUrl: proxy.url,
        key: await newKey(),
        onRetry: (r) => retries.push(r),
      });
      const started = Date.now();
      const answer = await client.families.page({ perPage: 2 });
      expect(answer.data).toHaveLength(2);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1950);
      expect(retries.map((r) => [r.status, r.attempt, r.delaySeconds])).toEqual([
        [503, 1, 1],
        [503, 2, 1],
      ]);
      expect(proxy.requests).toHaveLength(3);
    } finally {
      await proxy.close();
    }
  });

  it("waits at most maxRetryDelaySeconds, and throws the 503 typed once the retries are spent", async () => {
    const proxy = await faultyProxy(["503", "503", "503"], "3600");
    try {
      const retries: RetryInfo[] = [];
      const client = new CatalogClient({
        baseUrl: proxy.url,
        key: await newKey(),
        maxRetries: 2,
        maxRetryDelaySeconds: 0,
        onRetry: (r) => retries.push(r),
      });
      const error = await client.families.page().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CatalogApiError);
      expect(error).toMatchObject({ status: 503, code: "PUBLIC_API_UNAVAILABLE", retryAfterSeconds: 3600 });
      expect(retries.map((r) => r.delaySeconds)).toEqual([0, 0]);
    } finally {
      await proxy.close();
    }
  });

  it("a connection lost before the answer is sent again after 1 s", async () => {
    const proxy = await faultyProxy(["reset"]);
    try {
      const retries: RetryInfo[] = [];
      const client = new CatalogClient({
        baseUrl: proxy.url,
        key: await newKey(),
        onRetry: (r) => retries.push(r),
      });
      expect((await client.channels()).length).toBeGreaterThan(0);
      expect(retries).toHaveLength(1);
      expect(retries[0]).toMatchObject({ attempt: 1, delaySeconds: 1 });
      expect(retries[0]!.error).toBeInstanceOf(Error);
    } finally {
      await proxy.close();
    }
  });

  it("a server that cannot be reached is a CatalogNetworkError after the retries (1, 2, 4… s, capped)", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const retries: RetryInfo[] = [];
    const key = await newKey();
    const client = new CatalogClient({
      baseUrl: `http://127.0.0.1:${port}`,
      key,
      maxRetries: 3,
      maxRetryDelaySeconds: 0.1,
      onRetry: (r) => retries.push(r),
    });
    const error = await client.products.page().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CatalogNetworkError);
    expect((error as CatalogNetworkError).cause).toBeDefined();
    expect(retries.map((r) => r.delaySeconds)).toEqual([0.1, 0.1, 0.1]);
    expect(`${(error as Error).message}`).not.toContain(key);
  });

  it("an abort during a retry's wait ends the call with the abort, at once", async () => {
    const proxy = await faultyProxy(["503"], "30");
    try {
      const client = new CatalogClient({ baseUrl: proxy.url, key: await newKey() });
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 200);
      const started = Date.now();
      const error = await client.products.page({}, { signal: controller.signal }).catch((e: unknown) => e);
      expect((error as Error).name).toBe("AbortError");
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      await proxy.close();
    }
  });
});
