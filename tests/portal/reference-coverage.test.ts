// The reference is generated from the OpenAPI document: every API route must be in it, and every
// parameter it documents must be accepted by the real route handler (with its example value); with the preview
// `details` on, the lists' parameters of reads by ids among them.
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openPglite, type Database } from "@/db/client";
import { migrate } from "@/db/migrate";
import { displayPrefix, generateApiKey, hashApiKey } from "@/lib/keys/format";
import { READ_SCOPES } from "@/lib/keys/scopes";
import { loadConfig, resetConfig } from "@/lib/config";
import { newId } from "@/db/schema";
import { getReferenceEndpoints, type RefEndpoint } from "@/lib/portal/reference";
import { swapRuntime } from "../support/api";
import { createRuntime } from "@/lib/runtime";

const ROOT = path.resolve(__dirname, "../..");
const API_DIR = path.join(ROOT, "app/public/v1");
const NOT_RESOURCES = new Set(["openapi.json", "[...path]"]);

type RouteModule = Record<string, ((request: Request) => Promise<Response>) | unknown>;

// Every `app/public/v1/<name>/route.ts` except the OpenAPI document and the catch-all.
const ROUTE_NAMES = readdirSync(API_DIR, { withFileTypes: true })
  .filter(
    (d) =>
      d.isDirectory() && !NOT_RESOURCES.has(d.name) && existsSync(path.join(API_DIR, d.name, "route.ts")),
  )
  .map((d) => d.name)
  .sort();

let db: Database;
let key: string;
const fixtures: Record<string, string> = {};
const routes: Record<string, RouteModule> = {};
let reference: RefEndpoint[];

beforeAll(async () => {
  db = await openPglite("memory://");
  await migrate(db);
  const orgId = newId("org");
  await db.query("insert into organizations (id, slug, name) values ($1, 'refcov', 'Reference coverage')", [
    orgId,
  ]);
  fixtures.channelId = newId("chn");
  await db.query("insert into channels (id, org_id, code, label) values ($1, $2, 'web', 'Web')", [
    fixtures.channelId,
    orgId,
  ]);
  fixtures.familyId = newId("fam");
  await db.query(
    "insert into families (id, org_id, slug, code, label) values ($1, $2, 'chaises', 'chairs', 'Chaises')",
    [fixtures.familyId, orgId],
  );
  fixtures.categoryId = newId("cat");
  await db.query(
    "insert into categories (id, org_id, slug, label, is_master) values ($1, $2, 'salon', 'Salon', true)",
    [fixtures.categoryId, orgId],
  );
  fixtures.parentId = fixtures.categoryId;
  fixtures.category = "Packshot";
  key = generateApiKey();
  await db.query(
    "insert into api_keys (id, org_id, name, prefix, key_hash, scopes) values ($1, $2, 'refcov', $3, $4, $5)",
    [newId("key"), orgId, displayPrefix(key), hashApiKey(key), [...READ_SCOPES]],
  );
  const config = loadConfig({
    PUBLIC_BASE_URL: "http://api.test",
    RATE_LIMIT_REQUESTS: "100000",
    AUTH_FAILURE_LIMIT: "100000",
  });
  await swapRuntime(createRuntime(config, db));
  for (const name of ROUTE_NAMES)
    routes[name] = (await import(/* @vite-ignore */ path.join(API_DIR, name, "route.ts"))) as RouteModule;
  reference = getReferenceEndpoints();
});

afterAll(async () => {
  await swapRuntime(undefined);
  await db?.close();
});

async function get(name: string, query: [string, string][]): Promise<{ status: number; body: unknown }> {
  const handler = routes[name]!.GET as (request: Request) => Promise<Response>;
  const url = new URL(`/public/v1/${name}`, "http://api.test");
  for (const [k, v] of query) url.searchParams.append(k, v);
  const res = await handler(new Request(url, { headers: { authorization: `Bearer ${key}` } }));
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

function valueOf(param: { name: string; example?: string }): string | undefined {
  return param.example ?? fixtures[param.name];
}

describe("reference coverage", () => {
  it("finds the API routes on disk", () => {
    expect(ROUTE_NAMES.length).toBeGreaterThanOrEqual(5);
  });

  it("documents every route of the API, and only those (a preview feature's, off here, is a 404)", async () => {
    const documented = reference.map((e) => e.path).sort();
    const served: string[] = [];
    for (const n of ROUTE_NAMES) if ((await get(n, [])).status !== 404) served.push(`/public/v1/${n}`);
    expect(documented).toEqual(served);
    expect(served.length).toBeGreaterThanOrEqual(5);
    for (const e of reference) {
      expect(e.slug, `reference page slug of ${e.path}`).toBe(e.path.replace("/public/v1/", ""));
      expect(e.scope, `scope of ${e.path}`).toMatch(/^[a-z]+:read$/);
      expect(e.params.length, `parameters of ${e.path}`).toBeGreaterThan(0);
      expect(e.itemFields.length, `response fields of ${e.path}`).toBeGreaterThan(0);
    }
    expect(existsSync(path.join(ROOT, "app/reference/[slug]/page.tsx"))).toBe(true);
  });

  it("has a value to try for every documented parameter (its example, or an id of the fixture)", () => {
    const missing = reference.flatMap((e) =>
      e.params.filter((p) => valueOf(p) === undefined).map((p) => `${e.path} ${p.name}`),
    );
    expect(missing).toEqual([]);
  });

  it("every documented parameter, with its example, is accepted by the real route (no 400)", async () => {
    const rejected: string[] = [];
    for (const e of reference) {
      const name = e.path.replace("/public/v1/", "");
      for (const p of e.params) {
        const value = valueOf(p)!;
        const res = await get(name, [[p.name, value]]);
        if (res.status !== 200)
          rejected.push(`${e.path}?${p.name}=${value} → ${res.status} ${JSON.stringify(res.body)}`);
      }
    }
    expect(rejected).toEqual([]);
  });

  it("every endpoint accepts all its documented parameters together", async () => {
    for (const e of reference) {
      const name = e.path.replace("/public/v1/", "");
      const res = await get(
        name,
        e.params.map((p) => [p.name, valueOf(p)!]),
      );
      expect(res.status, `${e.path}: ${JSON.stringify(res.body)}`).toBe(200);
    }
  });

  it("would catch a parameter the API rejects: an undocumented one answers 400", async () => {
    for (const e of reference) {
      const name = e.path.replace("/public/v1/", "");
      expect(e.params.some((p) => p.name === "per_page")).toBe(false);
      const res = await get(name, [["per_page", "5"]]);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "PUBLIC_API_INVALID_QUERY" });
    }
  });
});

describe("reference coverage with the preview details on", () => {
  let lists: RefEndpoint[];
  beforeAll(async () => {
    vi.stubEnv("PUBLIC_API_PREVIEW", "details");
    resetConfig();
    const config = loadConfig({
      PUBLIC_BASE_URL: "http://api.test",
      PUBLIC_API_PREVIEW: "details",
      RATE_LIMIT_REQUESTS: "100000",
      AUTH_FAILURE_LIMIT: "100000",
    });
    await swapRuntime(createRuntime(config, db));
    // The lists: the routes on disk whose page is a page of items (an item read whole has a route of its own).
    lists = getReferenceEndpoints().filter((e) => ROUTE_NAMES.includes(e.path.replace("/public/v1/", "")));
  });
  afterAll(() => {
    vi.unstubAllEnvs();
    resetConfig();
  });

  it("documents reads by ids on every list, marked preview", () => {
    expect(lists.map((e) => e.slug)).toEqual([
      "products",
      "families",
      "attributes",
      "categories",
      "media",
      "channels",
    ]);
    for (const e of lists) {
      const preview = e.params.filter((p) => p.preview).map((p) => p.name);
      expect(preview, e.path).toEqual(e.slug === "products" ? ["ids", "identifiers"] : ["ids"]);
    }
  });

  it("every documented parameter, with its example, is accepted by the real route, alone and all together", async () => {
    const rejected: string[] = [];
    for (const e of lists) {
      const name = e.path.replace("/public/v1/", "");
      for (const p of e.params) {
        const value = valueOf(p);
        expect(value, `${e.path} ${p.name}`).toBeDefined();
        const res = await get(name, [[p.name, value!]]);
        if (res.status !== 200)
          rejected.push(`${e.path}?${p.name}=${value} → ${res.status} ${JSON.stringify(res.body)}`);
      }
      const together = await get(
        name,
        e.params.map((p) => [p.name, valueOf(p)!]),
      );
      if (together.status !== 200)
        rejected.push(`${e.path} (all) → ${together.status} ${JSON.stringify(together.body)}`);
    }
    expect(rejected).toEqual([]);
  });
});
