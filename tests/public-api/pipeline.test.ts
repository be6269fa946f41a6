// The pipeline's stages in order (lib/public-api/pipeline.ts): key → 401, rate limit → 429, scope → 403, query →
// 400, (writes: content type → 415, size → 413, JSON → 400), If-None-Match → 400 or 304, then the handler. A request
// wrong at two stages gets the earlier stage's answer. In-process (publicApi.fetch) on the seeded demo database.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WRITE_SCOPE } from "@/lib/keys/scopes";
import { withNeeds } from "@/lib/preview";
import { IF_NONE_MATCH_MAX } from "@/lib/public-api/conditional";
import { WRITE_BODY_LIMIT } from "@/lib/public-api/json-body";
import { createRuntime, setRuntime } from "@/lib/runtime";
import { call, expectError, insertKey, setupApi, type ApiFixture, type CallOptions } from "../support/api";

let fx: ApiFixture;
let writer: string;

beforeAll(async () => {
  fx = await setupApi("pglite");
  writer = await insertKey(fx.db, fx.acme.orgId, [WRITE_SCOPE, "products:read"]);
}, 120_000);

afterAll(async () => {
  await fx?.close();
});

// Runs `fn` on a runtime of the fixture's database with these settings changed.
async function withConfig(change: Partial<ApiFixture["config"]>, fn: () => Promise<void>): Promise<void> {
  const rt = createRuntime({ ...fx.config, ...change }, fx.db);
  setRuntime(rt);
  try {
    await fn();
  } finally {
    setRuntime(fx.runtime);
    await rt.close();
  }
}

const BAD_QUERY = "/public/v1/products?perPage=1000";
const LONG_TAG = `"${"x".repeat(IF_NONE_MATCH_MAX)}"`;

describe("reads: the stages in order", () => {
  it("no key → 401, before a bad query's 400", async () => {
    const res = await call(BAD_QUERY);
    expectError(res, 401, "PUBLIC_API_KEY_MISSING");
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
  });

  it("an unknown key → 401, before a bad query's 400 and a missing scope's 403", async () => {
    expectError(
      await call(BAD_QUERY, { key: `${fx.acme.full.slice(0, -4)}zzzz` }),
      401,
      "PUBLIC_API_KEY_INVALID",
    );
    expectError(await call(BAD_QUERY, { key: fx.acme.revoked }), 401, "PUBLIC_API_KEY_REVOKED");
    expectError(await call(BAD_QUERY, { key: fx.acme.expired }), 401, "PUBLIC_API_KEY_EXPIRED");
  });

  it("a key over its rate limit → 429, before its missing scope's 403", async () => {
    await withConfig({ RATE_LIMIT_REQUESTS: 1 }, async () => {
      const key = fx.acme.without.products;
      expectError(await call(BAD_QUERY, { key }), 403, "PUBLIC_API_INSUFFICIENT_SCOPE");
      const over = await call(BAD_QUERY, { key });
      expectError(over, 429, "PUBLIC_API_RATE_LIMIT_EXCEEDED");
      expect(Number(over.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      // The rate limit counts per key: another key of the organization is not refused.
      expectError(await call(BAD_QUERY, { key: fx.acme.full }), 400, "PUBLIC_API_INVALID_QUERY");
    });
  });

  it("a missing scope → 403, before an invalid query's 400", async () => {
    const res = await call(BAD_QUERY, { key: fx.acme.without.products });
    expectError(res, 403, "PUBLIC_API_INSUFFICIENT_SCOPE");
    expect(res.body.message).toContain("« products:read »");
  });

  it("an invalid query → 400, before If-None-Match is read", async () => {
    const res = await call(BAD_QUERY, { key: fx.acme.full, headers: { "if-none-match": LONG_TAG } });
    expectError(res, 400, "PUBLIC_API_INVALID_QUERY");
    expect(res.body.message).toContain("« perPage »");
    // The query valid, the header is the next stage's 400.
    const header = await call("/public/v1/products", {
      key: fx.acme.full,
      headers: { "if-none-match": LONG_TAG },
    });
    expectError(header, 400, "PUBLIC_API_INVALID_HEADER");
  });

  it("a valid request: 200 with its ETag, then 304 for that tag", async () => {
    const first = await call("/public/v1/families?perPage=2", { key: fx.acme.full });
    expect(first.status).toBe(200);
    const tag = first.headers.get("etag")!;
    const again = await call("/public/v1/families?perPage=2", {
      key: fx.acme.full,
      headers: { "if-none-match": tag },
    });
    expect(again.status).toBe(304);
    expect(again.body).toBeUndefined();
    expect(again.headers.get("etag")).toBe(tag);
  });
});

describe("writes: the body's stages after the scope and the query", () => {
  const write = (opts: CallOptions & { path?: string }) =>
    call(opts.path ?? "/public/v1/products", { method: "POST", ...opts });

  // The write preview on for these requests (it needs details).
  const writes = (fn: () => Promise<void>) => withConfig({ preview: withNeeds(["writes"]) }, fn);

  it("no key → 401; a read key → 403, whatever the body", async () => {
    await writes(async () => {
      const body = "not json";
      expectError(
        await write({ body, headers: { "content-type": "text/plain" } }),
        401,
        "PUBLIC_API_KEY_MISSING",
      );
      const read = await write({ key: fx.acme.full, body, headers: { "content-type": "text/plain" } });
      expectError(read, 403, "PUBLIC_API_INSUFFICIENT_SCOPE");
      expect(read.body.message).toContain(`« ${WRITE_SCOPE} »`);
    });
  });

  it("an invalid query → 400, before the body is read", async () => {
    await writes(async () => {
      const res = await write({
        path: "/public/v1/products?dryRun=yes",
        key: writer,
        body: "x",
        headers: { "content-type": "text/plain" },
      });
      expectError(res, 400, "PUBLIC_API_INVALID_QUERY");
    });
  });

  it("then the content type → 415, the size → 413, the JSON → 400", async () => {
    await writes(async () => {
      const json = { "content-type": "application/json" };
      const huge = `{"a":"${"x".repeat(WRITE_BODY_LIMIT)}"}`;
      const type = await write({ key: writer, body: huge, headers: { "content-type": "text/plain" } });
      expectError(type, 415, "PUBLIC_API_UNSUPPORTED_MEDIA_TYPE");
      expectError(
        await write({ key: writer, body: `${huge}{`, headers: json }),
        413,
        "PUBLIC_API_PAYLOAD_TOO_LARGE",
      );
      const malformed = await write({ key: writer, body: "{", headers: json });
      expectError(malformed, 400, "PUBLIC_API_INVALID_BODY");
      expect(malformed.body.details).toEqual([expect.objectContaining({ code: "INVALID_JSON" })]);
    });
  });

  it("a well-formed body reaches the catalog's checks (here: the fields it lacks)", async () => {
    await writes(async () => {
      const res = await write({ key: writer, body: "{}", headers: { "content-type": "application/json" } });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("PUBLIC_API_INVALID_BODY");
      expect(res.body.details.length).toBeGreaterThan(0);
    });
  });
});
