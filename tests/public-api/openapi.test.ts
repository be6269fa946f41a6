// The OpenAPI document: served publicly, generated from the validating schemas, and valid for @redocly/cli.
import { redoclyLint } from "../support/redocly";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GET, HEAD, OPTIONS, POST } from "@/app/public/v1/openapi.json/route";
import { LIST_OPERATIONS as ENDPOINTS } from "@/lib/public-api/operations";
import { endpointsFromDocument } from "@/lib/portal/reference";
import { buildOpenApiDocument } from "@/lib/public-api/openapi/document";
import { generateApiKey } from "@/lib/keys/format";
import { READ_SCOPES } from "@/lib/keys/scopes";
import { RATE_LIMIT_HEADERS } from "@/lib/public-api/headers";
import { RESOURCES, call, setupApi, type ApiFixture, type ApiResponse } from "../support/api";
import { insertKey } from "../support/write-preview";

describe("GET /public/v1/openapi.json", () => {
  it("is public JSON describing the five endpoints, their scopes and every parameter", async () => {
    const res = await GET(new Request("http://localhost/public/v1/openapi.json"));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const doc = await res.json();
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths).sort()).toEqual(
      Object.values(ENDPOINTS)
        .map((e) => e.path)
        .sort(),
    );
    for (const e of Object.values(ENDPOINTS)) {
      const op = doc.paths[e.path].get;
      expect(op["x-required-scope"]).toBe(e.scope);
      expect(op.security).toEqual([{ bearerAuth: [e.scope] }]);
      const query = op.parameters.filter((p: { in: string }) => p.in === "query");
      // V1's parameters: a preview feature's (reads by ids) are not in the V1 document.
      const v1 = Object.entries(e.query.params).filter(([, p]) => p.preview === undefined);
      expect(query.map((p: { name: string }) => p.name).sort()).toEqual(v1.map(([name]) => name).sort());
      expect(op.parameters.filter((p: { in: string }) => p.in !== "query")).toEqual([
        expect.objectContaining({ name: "If-None-Match", in: "header", required: false }),
      ]);
      expect(Object.keys(op.responses).sort()).toEqual([
        "200",
        "304",
        "400",
        "401",
        "403",
        "429",
        "500",
        "503",
      ]);
      const updatedSince = op.parameters.find((p: { name: string }) => p.name === "updatedSince");
      expect(updatedSince.schema).toMatchObject({ type: "string", format: "date-time" });
      expect(updatedSince.description).toMatch(/inclusive/);
      const perPage = op.parameters.find((p: { name: string }) => p.name === "perPage");
      expect(perPage.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 100, default: 20 });
      const sort = op.parameters.find((p: { name: string }) => p.name === "sort");
      expect(sort.schema.default).toBe("updatedAt.desc");
      expect(op.responses["429"].content["application/json"].examples.rateLimited.value).toMatchObject({
        statusCode: 429,
        error: "Too Many Requests",
        code: "PUBLIC_API_RATE_LIMIT_EXCEEDED",
        message: "Limite de requêtes dépassée.",
      });
    }
    const typeParam = doc.paths["/public/v1/attributes"].get.parameters.find(
      (p: { name: string }) => p.name === "type",
    );
    expect(typeParam).toMatchObject({ style: "form", explode: false, schema: { type: "array" } });
    expect(typeParam.schema.items.enum).toContain("TEXT");
  });

  it("documents conditional lists: If-None-Match, the ETag of a 200 and the 304 without a body", async () => {
    const doc = await (await GET(new Request("http://localhost/public/v1/openapi.json"))).json();
    const rateLimit = [
      "X-Request-Id",
      "RateLimit",
      "RateLimit-Policy",
      "X-RateLimit-Limit",
      "X-RateLimit-Remaining",
    ];
    for (const e of Object.values(ENDPOINTS)) {
      const op = doc.paths[e.path].get;
      const ifNoneMatch = op.parameters.find((p: { name: string }) => p.name === "If-None-Match");
      expect(ifNoneMatch.schema.type).toBe("string");
      expect(ifNoneMatch.example).toMatch(/^"[\w-]{32}"$/);
      expect(ifNoneMatch.description).toMatch(/304 Not Modified/);
      const ok = op.responses["200"];
      expect(Object.keys(ok.headers)).toEqual(
        expect.arrayContaining([...rateLimit, "ETag", "Cache-Control", "Vary"]),
      );
      const notModified = op.responses["304"];
      expect(notModified.content).toBeUndefined();
      expect(notModified.description).toMatch(/^Not Modified/);
      expect(Object.keys(notModified.headers)).toEqual(
        expect.arrayContaining([...rateLimit, "ETag", "Cache-Control", "Vary"]),
      );
      for (const h of Object.values({ ...ok.headers, ...notModified.headers }) as { $ref: string }[])
        expect(doc.components.headers[h.$ref.replace("#/components/headers/", "")], h.$ref).toBeDefined();
    }
    expect(doc.components.headers.ETag.description).toMatch(/If-None-Match/);
    expect(doc.components.headers["Cache-Control"].schema.enum).toEqual(["private, no-cache"]);
    expect(doc.components.headers.Vary.example).toBe("Authorization");
    expect(doc.info.description).toMatch(/updatedSince/);
  });

  it("is what the reference reads: updatedSince with its format, If-None-Match as a header, the 304 as an answer", () => {
    for (const e of endpointsFromDocument(buildOpenApiDocument("http://api.test"))) {
      expect(
        e.params.find((p) => p.name === "updatedSince"),
        e.path,
      ).toMatchObject({
        type: "string",
        format: "date-time",
        example: "2026-06-07T09:30:12.345Z",
      });
      expect(e.params.map((p) => p.name)).not.toContain("If-None-Match");
      expect(e.headerParams.map((p) => p.name)).toEqual(["If-None-Match"]);
      expect(e.successHeaderDocs.find((h) => h.name === "ETag")!.description).toMatch(/If-None-Match/);
      expect(e.notModified!.description).toMatch(/^Not Modified/);
      expect(e.notModified!.headers.map((h) => h.name)).toEqual(
        expect.arrayContaining(["ETag", "X-Request-Id", "RateLimit"]),
      );
      expect(e.notModified!.headers.every((h) => h.description !== "")).toBe(true);
      expect(e.errors.map((x) => x.status)).toEqual(["400", "401", "403", "429", "500", "503"]);
    }
  });

  it("carries a request id and the API's security headers, and answers HEAD, OPTIONS and 405 like the lists", async () => {
    const url = "http://localhost/public/v1/openapi.json";
    const res = await GET(new Request(url));
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("cache-control")).toBe("public, max-age=300");
    const head = await HEAD(new Request(url, { method: "HEAD" }));
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    const pre = await OPTIONS();
    expect(pre.status).toBe(204);
    expect(pre.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const post = await POST(new Request(url, { method: "POST" }));
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    expect((await post.json()).code).toBe("PUBLIC_API_METHOD_NOT_ALLOWED");
  });

  it("passes @redocly/cli lint with no error", async () => {
    const doc = await (await GET(new Request("http://localhost/public/v1/openapi.json"))).json();
    const { failed, output } = redoclyLint(doc);
    expect(output).not.toMatch(/\berror\b.*\b(no-|spec|struct)/);
    expect(failed, output).toBe(false);
  }, 60_000);
});

// What the document says of the 200 and the 304 of each list against what its route really answers (PGlite).
describe("the documented conditional answers are the routes' answers", () => {
  let fx: ApiFixture;
  beforeAll(async () => {
    fx = await setupApi("pglite");
  }, 120_000);
  afterAll(async () => {
    await fx?.close();
  });

  it.each(RESOURCES)(
    "%s: every documented header of the 200 and the 304 is sent, the 304 without a body",
    async (r) => {
      const doc = buildOpenApiDocument("http://api.test") as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
      const op = doc.paths[`/public/v1/${r}`].get;
      const ok = await call(`/public/v1/${r}`, { key: fx.acme.full });
      expect(ok.status).toBe(200);
      for (const h of Object.keys(op.responses["200"].headers))
        expect(ok.headers.get(h), `200 ${h}`).not.toBeNull();
      const example = op.parameters.find((p: { name: string }) => p.name === "If-None-Match").example;
      // The documented example is only the shape of a tag: it matches nothing.
      const other = await call(`/public/v1/${r}`, {
        key: fx.acme.full,
        headers: { "if-none-match": example },
      });
      expect(other.status).toBe(200);
      const res = await call(`/public/v1/${r}`, {
        key: fx.acme.full,
        headers: { "if-none-match": ok.headers.get("etag")! },
      });
      expect(res.status).toBe(304);
      expect(res.body).toBeUndefined();
      for (const h of Object.keys(op.responses["304"].headers))
        expect(res.headers.get(h), `304 ${h}`).not.toBeNull();
      expect(res.headers.get("cache-control")).toBe(doc.components.headers["Cache-Control"].schema.enum[0]);
      expect(res.headers.get("vary")).toContain(doc.components.headers.Vary.example);
    },
  );
});

// Issue 21, row 14: the document's details, each against what the server does.
describe("the document's ids, names, contact and bounds", () => {
  let fx: ApiFixture;
  beforeAll(async () => {
    fx = await setupApi("pglite");
  }, 120_000);
  afterAll(async () => {
    await fx?.close();
  });
  type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  const v1 = buildOpenApiDocument("http://api.test") as Json;
  const writes = buildOpenApiDocument("http://api.test", { preview: ["writes"] }) as Json;

  it("gives each id example its resource's prefix, nested ids too", () => {
    const example = (doc: Json, schema: string, ...path: string[]) => {
      let s = doc.components.schemas[schema];
      for (const p of path) s = s.properties[p];
      return s.example;
    };
    const expected: [Json, string, string[], string][] = [
      [v1, "Product", ["id"], "prd_"],
      [v1, "Product", ["family", "id"], "fam_"],
      [v1, "Product", ["category", "id"], "cat_"],
      [v1, "Family", ["id"], "fam_"],
      [v1, "Attribute", ["id"], "att_"],
      [v1, "Category", ["id"], "cat_"],
      [v1, "Category", ["parentId"], "cat_"],
      [v1, "Media", ["id"], "med_"],
      [writes, "CreatedProduct", ["id"], "prd_"],
      [writes, "CreatedProduct", ["familyId"], "fam_"],
      [writes, "CreatedProduct", ["categoryId"], "cat_"],
      [writes, "ProductDraft", ["familyId"], "fam_"],
      [writes, "ProductDraft", ["categoryId"], "cat_"],
    ];
    for (const [doc, schema, path, prefix] of expected)
      expect(example(doc, schema, ...path), `${schema}.${path.join(".")}`).toMatch(
        new RegExp(`^${prefix}\\w+$`),
      );
  });

  it("names the error schema ApiError (no type that shadows the global Error), and has a contact", () => {
    for (const doc of [v1, writes]) {
      expect(doc.components.schemas.Error).toBeUndefined();
      expect(doc.components.schemas.ApiError).toMatchObject({ type: "object" });
      const refs = [...JSON.stringify(doc).matchAll(/"#\/components\/schemas\/(\w+)"/g)].map((m) => m[1]!);
      for (const name of new Set(refs)) expect(doc.components.schemas[name], name).toBeDefined();
      expect(refs).toContain("ApiError");
      expect(doc.info.contact).toEqual({ name: expect.any(String), url: "http://api.test/docs" });
    }
  });

  it.each(RESOURCES)("%s: the sort pattern takes what the server takes", async (r) => {
    const param = v1.paths[`/public/v1/${r}`].get.parameters.find((p: Json) => p.name === "sort");
    const pattern = new RegExp(param.schema.pattern);
    const fields = [...param.schema.pattern.matchAll(/\(\?:([\w|]+)\)\\\./g)][0]![1].split("|") as string[];
    const token = fc.oneof(
      fc
        .tuple(fc.constantFrom(...fields, "id", "nope", "Label"), fc.constantFrom(".asc", ".desc", ".up", ""))
        .map(([f, o]) => f + o),
      fc.constantFrom("", " ", "updatedAt.desc "),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(token, fc.constantFrom("", " ")), { minLength: 1, maxLength: 3 }),
        async (parts) => {
          const value = parts.map(([t, sp]) => `${sp}${t}`).join(",");
          const res = await call(`/public/v1/${r}?perPage=1&sort=${encodeURIComponent(value)}`, {
            key: fx.acme.full,
          });
          const names = value.split(",").map((p) => p.trim().split(".")[0]);
          const repeated = new Set(names).size !== names.length;
          if (res.status === 200) expect(pattern.test(value), value).toBe(true);
          else {
            expect(res.status, value).toBe(400);
            if (!repeated) expect(pattern.test(value), value).toBe(false);
          }
        },
      ),
      { numRuns: 40 },
    );
    expect(param.schema.maxLength).toBe(500);
  });

  it.each(RESOURCES)("%s: If-None-Match has the server's bound", async (r) => {
    const param = v1.paths[`/public/v1/${r}`].get.parameters.find((p: Json) => p.name === "If-None-Match");
    const max = param.schema.maxLength as number;
    expect(max).toBeGreaterThan(200);
    // One tag of the given length (no trailing spaces: a Request trims them).
    const tag = (length: number) => `"${"a".repeat(length - 2)}"`;
    const atMax = await call(`/public/v1/${r}`, {
      key: fx.acme.full,
      headers: { "if-none-match": tag(max) },
    });
    expect(atMax.status).toBe(200);
    const over = await call(`/public/v1/${r}`, {
      key: fx.acme.full,
      headers: { "if-none-match": tag(max + 1) },
    });
    expect(over.status).toBe(400);
    const example =
      v1.paths[`/public/v1/${r}`].get.responses["400"].content["application/json"].examples.ifNoneMatchTooLong
        .value;
    expect({ ...over.body, requestId: "<id>" }).toEqual({ ...example, requestId: "<id>" });
    expect(over.headers.get("etag")).toBeNull();
  });

  it.each(RESOURCES)("%s: one Allow for the 405 and the preflight", async (r) => {
    const pre = await call(`/public/v1/${r}`, { method: "OPTIONS" });
    const notAllowed = await call(`/public/v1/${r}`, { key: fx.acme.full, method: "DELETE" });
    expect(notAllowed.status).toBe(405);
    expect(pre.headers.get("allow")).toBe(notAllowed.headers.get("allow"));
    expect(notAllowed.body.message).toContain(`Méthodes autorisées : ${pre.headers.get("allow")}.`);
  });
});

// Issue 21, row 12: the rate-limit headers were sent on 400, 401, 403 (and every write-preview error) but declared on
// 200, 304 and 429 only. Each documented status of each list, provoked on the real route: every rate-limit header it
// carries is declared on that status.
describe("every rate-limit header an answer carries is declared on its status", () => {
  let fx: ApiFixture;
  beforeAll(async () => {
    fx = await setupApi("pglite", { RATE_LIMIT_REQUESTS: "3" });
  }, 120_000);
  afterAll(async () => {
    vi.restoreAllMocks();
    await fx?.close();
  });

  it.each(RESOURCES)("%s", async (r) => {
    const doc = buildOpenApiDocument("http://api.test") as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    const op = doc.paths[`/public/v1/${r}`].get;
    const path = `/public/v1/${r}`;
    // A fresh key per answer (3 requests per window), with every read scope or all but this list's.
    const fresh = (scopes: readonly string[] = READ_SCOPES) => insertKey(fx, fx.acme.orgId, scopes);
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const answers: Record<string, ApiResponse> = {};
    answers["200"] = await call(path, { key: await fresh() });
    const again = await fresh();
    const tag = (await call(path, { key: again })).headers.get("etag")!;
    answers["304"] = await call(path, { key: again, headers: { "if-none-match": tag } });
    answers["400"] = await call(`${path}?perPage=0`, { key: await fresh() });
    answers["401"] = await call(path, { key: generateApiKey() });
    answers["403"] = await call(path, { key: await fresh(READ_SCOPES.filter((s) => s !== `${r}:read`)) });
    // The quota spent, then the first 429. The sliding window weighs the previous window's requests down (rounded
    // down) once a window ends, so a fourth request just past a window's edge may still pass: a few more tries.
    const spent = await fresh();
    for (let i = 0; i < 3; i++) await call(`${path}?perPage=1`, { key: spent });
    answers["429"] = await call(path, { key: spent });
    for (let i = 0; i < 3 && answers["429"].status !== 429; i++)
      answers["429"] = await call(path, { key: spent });
    vi.spyOn(fx.runtime, "catalog").mockRejectedValueOnce(new Error("boom"));
    answers["500"] = await call(path, { key: await fresh() });
    vi.spyOn(fx.runtime, "catalog").mockRejectedValueOnce(
      Object.assign(new Error("down"), { code: "ECONNREFUSED" }),
    );
    answers["503"] = await call(path, { key: await fresh() });

    expect(Object.keys(answers).sort()).toEqual(Object.keys(op.responses).sort());
    for (const [status, res] of Object.entries(answers)) {
      expect(String(res.status), status).toBe(status);
      const sent = Object.keys(RATE_LIMIT_HEADERS).filter((h) => res.headers.get(h) !== null);
      // The answers given after the limiter carry them all (a 401: the auth-failures policy of the address).
      expect(sent, status).toEqual(Object.keys(RATE_LIMIT_HEADERS));
      expect(Object.keys(op.responses[status].headers ?? {}), status).toEqual(expect.arrayContaining(sent));
    }
  });
});
