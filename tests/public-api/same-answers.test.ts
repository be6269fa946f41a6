// The API's answers to a fixed set of requests, recorded once and compared on every run: a refactoring must leave
// every status, header and body byte-for-byte the same (request ids and rate-limit reset times aside).
// To record anew after a deliberate change of behaviour: RECORD_ANSWERS=1 npx vitest run tests/public-api/same-answers.test.ts
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, setupApi, type ApiFixture } from "../support/api";

const FILE = path.join(import.meta.dirname, "same-answers.json");
const RECORD = process.env.RECORD_ANSWERS === "1";

// Headers that differ on every run by design.
const VARYING = new Set(["x-request-id", "date"]);

interface Answer {
  request: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

function normalise(status: number, headers: Headers, text: string, request: string): Answer {
  const h: Record<string, string> = {};
  for (const [k, v] of headers) {
    if (VARYING.has(k)) continue;
    if (k === "x-ratelimit-reset") h[k] = "<reset>";
    else if (k === "ratelimit") h[k] = v.replace(/;t=\d+/, ";t=<reset>");
    // A list's tag hashes the catalog version, a sequence's value: its shape is what stays the same.
    else if (k === "etag") h[k] = v.replace(/^"[\w-]{32}"$/, "<etag>");
    else if (k === "retry-after" && /rate/i.test(text)) h[k] = "<reset>";
    else h[k] = v;
  }
  const body = text
    .replace(/"requestId":"[0-9a-f-]{36}"/g, '"requestId":"<id>"')
    .replace(/"retryAfter":\d+/g, '"retryAfter":"<reset>"');
  return { request, status, headers: h, body };
}

describe("the same answers", () => {
  let fx: ApiFixture;
  beforeAll(async () => {
    fx = await setupApi("pglite", { RATE_LIMIT_REQUESTS: "1000" });
  });
  afterAll(async () => {
    await fx?.close();
  });

  it("to every endpoint, filter, sort, search, deep page, channel, method and error", async () => {
    const one = async <T>(sql: string) => (await fx.db.query<{ id: T }>(sql))[0]!.id;
    const acme = fx.acme.orgId;
    const family = await one(
      `select family_id as id from products p where org_id = '${acme}' order by p.id limit 1`,
    );
    const category = await one(
      `select category_id as id from products p where org_id = '${acme}' order by p.id limit 1`,
    );
    const parent = await one(
      `select parent_id as id from categories where org_id = '${acme}' and parent_id is not null order by id limit 1`,
    );
    const channel = await one(`select id from channels where org_id = '${acme}' order by id limit 1`);
    const globexFamily = await one(
      `select id from families where org_id = '${fx.globex.orgId}' order by id limit 1`,
    );
    const full = fx.acme.full;
    const requests: [string, { key?: string | null; method?: string }][] = [];
    const get = (p: string, key: string | null = full) => requests.push([p, { key }]);
    for (const r of ["products", "families", "attributes", "categories", "media"]) {
      get(`/public/v1/${r}`);
      get(`/public/v1/${r}?perPage=3&page=2`);
      get(`/public/v1/${r}?page=100000`);
      get(`/public/v1/${r}?sort=updatedAt.asc&perPage=5`);
      get(`/public/v1/${r}?q=e&perPage=4`);
      get(`/public/v1/${r}?perPage=0`);
      get(`/public/v1/${r}?nope=1`);
      get(`/public/v1/${r}?sort=id.sideways`);
      get(`/public/v1/${r}`, null);
      get(`/public/v1/${r}`, "pca_notakeyatall");
      get(`/public/v1/${r}`, fx.acme.expired);
      get(`/public/v1/${r}`, fx.acme.revoked);
      get(`/public/v1/${r}`, fx.acme.without[r as "products"]);
      requests.push([`/public/v1/${r}?perPage=2`, { key: full, method: "HEAD" }]);
      requests.push([`/public/v1/${r}`, { method: "OPTIONS" }]);
      requests.push([`/public/v1/${r}`, { key: full, method: "POST" }]);
    }
    get(`/public/v1/products?sort=label.asc,identifier.desc&perPage=7`);
    get(`/public/v1/products?sort=identifier.asc&perPage=5&page=40`);
    get(`/public/v1/products?familyId=${family}&categoryId=${category}&perPage=5`);
    get(`/public/v1/products?familyId=${globexFamily}`);
    get(`/public/v1/products?channelId=${channel}&perPage=5&sort=label.desc`);
    get(`/public/v1/products?channelId=chn_nope`);
    get(`/public/v1/products?q=chaise&perPage=5`);
    get(`/public/v1/products?q=CRÈME&perPage=5`);
    get(`/public/v1/products?perPage=100&page=30`);
    get(`/public/v1/products?perPage=20&page=149`);
    get(`/public/v1/attributes?type=TEXT,NUMBER&uniqueValue=false&isScopable=true`);
    get(`/public/v1/attributes?familyId=${family}&sort=type.desc,code.asc`);
    get(`/public/v1/categories?parentId=${parent}`);
    get(`/public/v1/categories?parentId=null&isMaster=true`);
    get(`/public/v1/media?type=IMAGE&orphansOnly=true&perPage=5`);
    get(`/public/v1/media?category=ambiance&sort=originalName.asc`);
    get(`/public/v1/media?type=VIDEO,IMAGE&sort=type.desc,slug.asc&perPage=6`);
    get(`/public/v1/products/prd_123`);
    get(`/public/v1/channels`);

    const answers: Answer[] = [];
    for (const [p, opts] of requests) {
      const res = await call(p, opts);
      const text = res.body === undefined ? "" : JSON.stringify(res.body);
      answers.push(
        normalise(
          res.status,
          res.headers,
          text,
          `${opts.method ?? "GET"} ${p} ${opts.key === full ? "full" : opts.key ? "other-key" : "no-key"}`,
        ),
      );
    }
    expect(answers.length).toBeGreaterThan(90);
    if (RECORD || !existsSync(FILE)) {
      writeFileSync(FILE, `${JSON.stringify(answers, null, 2)}\n`);
      if (!RECORD) throw new Error(`${FILE} was missing: recorded it; run again to compare`);
    }
    const recorded = JSON.parse(readFileSync(FILE, "utf8")) as Answer[];
    expect(answers.map((a) => a.request)).toEqual(recorded.map((a) => a.request));
    for (let i = 0; i < answers.length; i++) expect(answers[i], answers[i]!.request).toEqual(recorded[i]);
  });
});
