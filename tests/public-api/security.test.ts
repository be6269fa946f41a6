// The shared security suite: every list endpoint, on PGlite and on the Postgres server.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as publicRoot from "@/app/public/[[...path]]/route";
import { generateApiKey } from "@/lib/keys/format";
import { RESOURCES, call, setupApi, type ApiFixture } from "../support/api";

const REQUEST_ID = /^[0-9a-f-]{36}$/;

function expectError(
  res: { status: number; body: any; headers: Headers }, // eslint-disable-line @typescript-eslint/no-explicit-any
  status: number,
  code: string,
  error: string,
  message?: string | RegExp,
) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  expect(res.body.statusCode).toBe(status);
  expect(res.body.error).toBe(error);
  expect(res.body.code).toBe(code);
  expect(res.body.requestId).toMatch(REQUEST_ID);
  expect(res.headers.get("x-request-id")).toBe(res.body.requestId);
  if (typeof message === "string") expect(res.body.message).toBe(message);
  else if (message) expect(res.body.message).toMatch(message);
  expect(JSON.stringify(res.body)).not.toMatch(/at .*\.(ts|js):\d+|stack|select |from /i);
}

describe.each(["pglite", "pg"] as const)("security suite on %s", (driver) => {
  let fx: ApiFixture;
  beforeAll(async () => {
    fx = await setupApi(driver);
  });
  afterAll(async () => {
    await fx?.close();
  });

  describe.each(RESOURCES)("/public/v1/%s", (resource) => {
    const path = `/public/v1/${resource}`;

    it("answers 200 with data and pagination for a full key", async () => {
      const res = await call(path, { key: fx.acme.full });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(["data", "pagination"]);
      expect(res.body.data.length).toBeGreaterThan(0);
      // Revalidated, never shared (issue 15): a strong ETag per organization, catalog version and query.
      expect(res.headers.get("cache-control")).toBe("private, no-cache");
      expect(res.headers.get("vary")).toBe("Authorization");
      expect(res.headers.get("etag")).toMatch(/^"[\w-]{32}"$/);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(res.headers.get("x-powered-by")).toBeNull();
    });

    it("401 PUBLIC_API_KEY_MISSING without an Authorization header", async () => {
      const res = await call(path);
      expectError(res, 401, "PUBLIC_API_KEY_MISSING", "Unauthorized", "Clé API manquante.");
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
    });

    // Issue 21, row 16: a key in the query was answered "Clé API manquante." with no hint of where it goes.
    it.each(["api_key", "key", "access_token", "apikey", "token", "API_KEY"])(
      "401 naming the Authorization header for a key sent as ?%s=…, the key never echoed nor logged",
      async (name) => {
        const secret = fx.acme.full;
        const logged: unknown[] = [];
        const spies = (["log", "info", "warn", "error", "debug"] as const).map((m) =>
          vi.spyOn(console, m).mockImplementation((...args: unknown[]) => void logged.push(...args)),
        );
        try {
          for (const headers of [{}, { authorization: "Bearer " }] as Record<string, string>[]) {
            const res = await call(`${path}?perPage=5&${name}=${encodeURIComponent(secret)}`, { headers });
            expectError(
              res,
              401,
              "PUBLIC_API_KEY_MISSING",
              "Unauthorized",
              `Clé API manquante : la clé se transmet dans l'en-tête « Authorization: Bearer <clé> », jamais dans l'URL (paramètre « ${name} » ignoré).`,
            );
            expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
            expect(JSON.stringify(res.body)).not.toContain(secret);
            for (const [h, v] of res.headers) expect(v, h).not.toContain(secret);
          }
        } finally {
          for (const s of spies) s.mockRestore();
        }
        expect(JSON.stringify(logged.map(String))).not.toContain(secret);
      },
    );

    it("a key in the header wins: the same parameter beside it is an unknown parameter, its value not echoed", async () => {
      const res = await call(`${path}?api_key=${encodeURIComponent(fx.acme.full)}`, { key: fx.acme.full });
      expectError(res, 400, "PUBLIC_API_INVALID_QUERY", "Bad Request", /« api_key » inconnu/);
      expect(JSON.stringify(res.body)).not.toContain(fx.acme.full);
    });

    it("401 with an empty Bearer token", async () => {
      const res = await call(path, { headers: { authorization: "Bearer " } });
      expectError(res, 401, "PUBLIC_API_KEY_MISSING", "Unauthorized", "Clé API manquante.");
    });

    it("401 PUBLIC_API_KEY_INVALID when the scheme is not Bearer", async () => {
      const res = await call(path, { headers: { authorization: `Basic ${fx.acme.full}` } });
      expectError(res, 401, "PUBLIC_API_KEY_INVALID", "Unauthorized", "Clé API invalide.");
    });

    it("401 PUBLIC_API_KEY_INVALID for malformed keys", async () => {
      for (const bad of [
        "abc",
        "pca_short",
        `${fx.acme.full}x`,
        // The last character changed (the checksum no longer matches): never the character it already is.
        fx.acme.full.slice(0, -1) + (fx.acme.full.endsWith("0") ? "1" : "0"),
        "' or 1=1 --",
      ]) {
        const res = await call(path, { headers: { authorization: `Bearer ${bad}` } });
        expectError(res, 401, "PUBLIC_API_KEY_INVALID", "Unauthorized", "Clé API invalide.");
      }
    });

    it("401 PUBLIC_API_KEY_INVALID for a well-formed unknown key", async () => {
      const res = await call(path, { key: generateApiKey() });
      expectError(res, 401, "PUBLIC_API_KEY_INVALID", "Unauthorized", "Clé API invalide.");
    });

    it("401 PUBLIC_API_KEY_EXPIRED for an expired key", async () => {
      const res = await call(path, { key: fx.acme.expired });
      expectError(res, 401, "PUBLIC_API_KEY_EXPIRED", "Unauthorized", "Clé API expirée.");
    });

    it("401 PUBLIC_API_KEY_REVOKED for a revoked key", async () => {
      const res = await call(path, { key: fx.acme.revoked });
      expectError(res, 401, "PUBLIC_API_KEY_REVOKED", "Unauthorized", "Clé API révoquée.");
    });

    it("403 PUBLIC_API_INSUFFICIENT_SCOPE naming the missing scope", async () => {
      const res = await call(path, { key: fx.acme.without[resource] });
      expectError(res, 403, "PUBLIC_API_INSUFFICIENT_SCOPE", "Forbidden", new RegExp(`${resource}:read`));
    });

    it("a key without another scope still reads this endpoint", async () => {
      const other = RESOURCES.find((r) => r !== resource)!;
      const res = await call(path, { key: fx.acme.without[other] });
      expect(res.status).toBe(200);
    });

    it("never returns the other organization's rows, even with its ids as filters", async () => {
      const own = await call(path, { key: fx.acme.full });
      const theirs = await call(path, { key: fx.globex.full });
      const ownIds = new Set(own.body.data.map((x: { id: string }) => x.id));
      for (const x of theirs.body.data) expect(ownIds.has(x.id)).toBe(false);
      const globexFamily = (await call("/public/v1/families", { key: fx.globex.full })).body.data[0].id;
      const globexCategory = (await call("/public/v1/categories", { key: fx.globex.full })).body.data[0].id;
      const filters: Record<string, string[]> = {
        products: [`familyId=${globexFamily}`, `categoryId=${globexCategory}`],
        attributes: [`familyId=${globexFamily}`],
        categories: [`parentId=${globexCategory}`],
        families: [],
        media: [],
      };
      for (const f of filters[resource]!) {
        const res = await call(`${path}?${f}`, { key: fx.acme.full });
        expect(res.status).toBe(200);
        expect(res.body.data).toEqual([]);
        expect(res.body.pagination).toEqual({ page: 1, perPage: 20, total: 0, totalPages: 0, hasAny: false });
      }
    });

    const invalid: [string, string][] = [
      ["page=0", "page"],
      ["page=-1", "page"],
      ["page=abc", "page"],
      ["page=1.5", "page"],
      ["page=1&page=2", "page"],
      ["perPage=0", "perPage"],
      ["perPage=101", "perPage"],
      ["perPage=1000", "perPage"],
      ["perPage=", "perPage"],
      ["sort=nope.asc", "sort"],
      ["sort=updatedAt", "sort"],
      ["sort=updatedAt.sideways", "sort"],
      ["sort=updatedAt.asc,updatedAt.desc", "sort"],
      ["sort=", "sort"],
      [`q=${"x".repeat(201)}`, "q"],
      ["per_page=10", "per_page"],
      ["organizationId=x", "organizationId"],
    ];
    it.each(invalid)("400 PUBLIC_API_INVALID_QUERY for %s, naming the parameter", async (qs, param) => {
      const res = await call(`${path}?${qs}`, { key: fx.acme.full });
      expectError(res, 400, "PUBLIC_API_INVALID_QUERY", "Bad Request", new RegExp(`« ${param} »`));
    });

    it("checks the key before the query: a bad query with no key is a 401", async () => {
      const res = await call(`${path}?perPage=1000`);
      expect(res.status).toBe(401);
    });

    it("HEAD answers like GET without a body; OPTIONS answers the CORS preflight", async () => {
      const head = await call(path, { key: fx.acme.full, method: "HEAD" });
      expect(head.status).toBe(200);
      expect(head.body).toBeUndefined();
      const pre = await call(path, { method: "OPTIONS" });
      expect(pre.status).toBe(204);
      expect(pre.headers.get("access-control-allow-headers")).toMatch(/Authorization/);
      expect(pre.headers.get("access-control-allow-credentials")).toBeNull();
    });

    it.each(["constructor", "toString", "__proto__", "hasOwnProperty", "valueOf"])(
      "?%s=1 is a 400 naming the unknown parameter, like any other name",
      async (name) => {
        const res = await call(`${path}?${name}=1`, { key: fx.acme.full });
        expectError(res, 400, "PUBLIC_API_INVALID_QUERY", "Bad Request", new RegExp(`« ${name} » inconnu`));
      },
    );

    it.each([
      "page=0x10",
      "page=1e1",
      "perPage=1.0",
      "page=%201",
      "page=1%20",
      "perPage=+5",
      "page=-1",
      "page=١",
    ])("an integer parameter is plain decimal digits: %s is a 400", async (query) => {
      const res = await call(`${path}?${query}`, { key: fx.acme.full });
      expectError(
        res,
        400,
        "PUBLIC_API_INVALID_QUERY",
        "Bad Request",
        new RegExp(`« ${query.split("=")[0]} »`),
      );
    });

    it("the CORS preflight carries a request id and the security headers", async () => {
      const pre = await call(path, {
        method: "OPTIONS",
        headers: { origin: "https://x.test", "access-control-request-method": "GET" },
      });
      expect(pre.status).toBe(204);
      expect(pre.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
      expect(pre.headers.get("x-content-type-options")).toBe("nosniff");
      expect(pre.headers.get("access-control-allow-origin")).toBe("*");
    });

    it("405 with Allow: GET, HEAD for writes", async () => {
      for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
        const res = await call(path, { key: fx.acme.full, method });
        expectError(res, 405, "PUBLIC_API_METHOD_NOT_ALLOWED", "Method Not Allowed");
        expect(res.headers.get("allow")).toBe("GET, HEAD");
      }
    });
  });

  it.each([
    "/public/v1/products/prd_123",
    "/public/v1/channels",
    "/public/v1/exports",
    "/public/v1/webhooks",
    "/public/v1/x/y/z",
  ])("404 PUBLIC_API_NOT_FOUND for %s", async (path) => {
    const res = await call(path, { key: fx.acme.full });
    expectError(res, 404, "PUBLIC_API_NOT_FOUND", "Not Found");
  });

  it.each(["/public", "/public/v1", "/public/v2/products", "/public/anything/else"])(
    "404 PUBLIC_API_NOT_FOUND in the error shape for %s, outside /public/v1's operations",
    async (path) => {
      for (const method of ["GET", "POST", "OPTIONS"]) {
        const res = await publicRoot[method as "GET"](new Request(`http://api.test${path}`, { method }));
        expect(res.status).toBe(404);
        expect(res.headers.get("content-type")).toMatch(/^application\/json/);
        const body = await res.json();
        expect(body).toMatchObject({ statusCode: 404, code: "PUBLIC_API_NOT_FOUND", error: "Not Found" });
        expect(res.headers.get("x-request-id")).toBe(body.requestId);
      }
    },
  );

  it("filters that are invalid for a resource give 400, never 500", async () => {
    const cases: [string, string][] = [
      ["/public/v1/products?channelId=nope", "channelId"],
      [`/public/v1/products?channelId=${"é".repeat(10)}`, "channelId"],
      ["/public/v1/products?familyId=", "familyId"],
      ["/public/v1/attributes?type=TEXT,NOPE", "type"],
      ["/public/v1/attributes?type=text", "type"],
      ["/public/v1/attributes?uniqueValue=yes", "uniqueValue"],
      ["/public/v1/attributes?isScopable=1", "isScopable"],
      ["/public/v1/categories?isMaster=maybe", "isMaster"],
      ["/public/v1/media?type=AUDIO", "type"],
      ["/public/v1/media?orphansOnly=oui", "orphansOnly"],
      ["/public/v1/media?category=", "category"],
      ["/public/v1/families?familyId=x", "familyId"],
      ["/public/v1/categories?categoryId=x", "categoryId"],
    ];
    for (const [path, param] of cases) {
      const res = await call(path, { key: fx.acme.full });
      expectError(res, 400, "PUBLIC_API_INVALID_QUERY", "Bad Request", new RegExp(`« ${param} »`));
    }
  });

  it("odd but harmless ids and search terms never give a 500", async () => {
    const odd = ["%", "_", "\\", "'; drop table products; --", "\u0000", "💥", "a".repeat(128)];
    for (const v of odd) {
      const e = encodeURIComponent(v);
      for (const path of [
        `/public/v1/products?familyId=${e}`,
        `/public/v1/products?categoryId=${e}`,
        `/public/v1/attributes?familyId=${e}`,
        `/public/v1/categories?parentId=${e}`,
        `/public/v1/media?category=${e}`,
        `/public/v1/products?q=${e}`,
      ]) {
        const res = await call(path, { key: fx.acme.full });
        expect([200, 400]).toContain(res.status);
      }
    }
  });
});
