// The production server's fast path against Next.js (issue 16): the same requests sent to `npm start`'s server
// (scripts/serve.mjs: /public/v1 answered by the route handlers directly) and to a bare `next start` of the same
// build, each on its own copy of one seeded embedded database, give the same status, headers (names, order and
// values) and body; only request ids, dates and rate-limit reset times differ. Then a key revoked in the console
// of the fast server is refused by its very next API call.
//
// Both have the front door (lib/server/front-server.ts: npm start's server is made with it, `next start`'s gets it
// from instrumentation.ts), so hostile transport is compared too (issue 27, item 6): unknown methods (TRACE),
// malformed percent-encodings, doubled and trailing slashes, dot segments, absolute-form and `*` targets, a header
// block over 16 KB, Next.js' router headers (RSC). Neither lists the router headers in the Vary of an API answer
// (issue 21, row 15): a list answer varies by Authorization and Accept-Encoding only, on both.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { gunzipSync, inflateSync } from "node:zlib";
import { expect, test } from "@playwright/test";
import { freePort } from "../support/ports";
import { collectServerLog } from "../support/server-log";

// Playwright runs from the project's folder.
const ROOT = process.cwd();
const at = (file: string) => JSON.stringify(path.join(ROOT, file));
// The identifier of the product the write cases create.
const CREATED = "PARITY-1";

interface Keys {
  acme: string;
  globex: string;
  productsOnly: string;
  expired: string;
  revoked: string;
  writer: string;
  ids: { familyId: string; categoryId: string; parentId: string; channelId: string; otherFamilyId: string };
  createBody: Record<string, unknown>;
}

interface Server {
  name: string;
  port: number;
  child: ChildProcess;
  output: string;
}

let dataDir = "";
let keys: Keys;
let fast: Server;
let nextStart: Server;
let base = "";

// Seeds the demo into an embedded database (as `npm start` does on first start) with the extra keys the cases
// need, in a child process (PGlite and the seed are the scripts' code, not the test runner's).
function seed(dir: string): void {
  const script = `
    import { writeFileSync } from "node:fs";
    import { loadConfig } from ${at("lib/config.ts")};
    import { openMigratedDatabase } from ${at("scripts/lib/database.ts")};
    import { prepareStartData } from ${at("scripts/lib/first-start.ts")};
    import { createApiKey, revokeApiKey } from ${at("lib/keys/store.ts")};
    const config = loadConfig({ ...process.env, DATA_DIR: ${JSON.stringify(dir)} });
    const { db } = await openMigratedDatabase(config);
    const data = await prepareStartData(db, config, { seed: async () => (await import(${at("db/seed/index.ts")})).seedDemo });
    if (data.kind !== "seeded") throw new Error("not seeded: " + data.kind);
    const one = async (sql, params) => (await db.query(sql, params))[0];
    const acme = data.keys.find((k) => k.org === "acme");
    const globex = data.keys.find((k) => k.org === "globex");
    const org = acme.orgId;
    const key = async (name, scopes, extra = {}) =>
      (await createApiKey(db, { orgId: org, name, scopes, allowWrite: true, ...extra })).key;
    const productsOnly = await key("products only", ["products:read"]);
    const expired = await key("expired", ["products:read"], { expiresAt: new Date(Date.now() - 60_000) });
    const revoked = await key("revoked", ["products:read"]);
    await revokeApiKey(db, revoked);
    const writer = await key("writer", ["products:read", "products:write"]);
    const familyId = (await one("select id from families where org_id = $1 order by code limit 1", [org])).id;
    const categoryId = (await one("select id from categories where org_id = $1 order by slug limit 1", [org])).id;
    const parentId = (await one("select parent_id from categories where org_id = $1 and parent_id is not null order by slug limit 1", [org])).parent_id;
    const channelId = (await one("select id from channels where org_id = $1 order by code limit 1", [org])).id;
    const otherFamilyId = (await one("select id from families where org_id = $1 limit 1", [globex.orgId])).id;
    const required = await db.query(
      "select a.id, a.code, a.type from family_attributes fa join attributes a on a.id = fa.attribute_id where fa.org_id = $1 and fa.family_id = $2 and fa.is_required",
      [org, familyId],
    );
    const values = {};
    const samples = { TEXT: "Chaise", TEXTAREA: "Une description.", NUMBER: 1.5, PRICE: { EUR: 19.99 }, BOOLEAN: true, DATE: "2026-01-31" };
    for (const a of required) {
      if (a.type === "SELECT" || a.type === "MULTI_SELECT")
        values[a.code] = (await one("select value from product_values where org_id = $1 and attribute_id = $2 limit 1", [org, a.id])).value;
      else values[a.code] = samples[a.type];
    }
    values.name = "Chaise de parité";
    values.sku = ${JSON.stringify(CREATED)};
    await db.close();
    writeFileSync(${JSON.stringify(path.join(dir, "parity-keys.json"))}, JSON.stringify({
      acme: acme.key, globex: globex.key, productsOnly, expired, revoked, writer,
      ids: { familyId, categoryId, parentId, channelId, otherFamilyId },
      createBody: { familyId, categoryId, values },
    }));
  `;
  const file = path.join(path.dirname(dir), "seed.mts");
  writeFileSync(file, script);
  const out = spawnSync(process.execPath, ["--import", "tsx", file], { cwd: ROOT, encoding: "utf8" });
  if (out.status !== 0) throw new Error(`seeding failed:\n${out.stdout}\n${out.stderr}`);
}

function start(name: string, args: string[], port: number, dir: string, env: Record<string, string>): Server {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      DATA_DIR: dir,
      PUBLIC_BASE_URL: base,
      PUBLIC_API_WRITE_PREVIEW: "true",
      // Sliding windows of a day: the remaining quota is then a count of the requests so far on both servers (a
      // minute's window, crossed between the two requests of a case, weighs the previous one differently).
      RATE_LIMIT_WINDOW_SECONDS: "86400",
      AUTH_FAILURE_WINDOW_SECONDS: "86400",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const server: Server = { name, port, child, output: "" };
  collectServerLog(child, `parity ${name}`);
  child.stdout!.on("data", (d: Buffer) => (server.output += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (server.output += d.toString()));
  return server;
}

async function ready(s: Server): Promise<void> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (s.child.exitCode !== null) throw new Error(`${s.name} exited (${s.child.exitCode}):\n${s.output}`);
    const ok = await raw(s.port, { method: "GET", path: "/public/v1/openapi.json" }).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${s.name} did not answer within 90 s:\n${s.output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

interface Req {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

interface Answer {
  status: number;
  /** Header names in order (lower case) and values. */
  headers: [string, string][];
  body: Buffer;
}

const agents = new Map<number, http.Agent>();

// One request on a kept-alive connection, the path sent as written.
function raw(port: number, r: Req): Promise<Answer> {
  let agent = agents.get(port);
  if (!agent) agents.set(port, (agent = new http.Agent({ keepAlive: true, maxSockets: 1 })));
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, method: r.method, path: r.path, headers: r.headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const headers: [string, string][] = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2)
            headers.push([res.rawHeaders[i]!.toLowerCase(), res.rawHeaders[i + 1]!]);
          resolve({ status: res.statusCode!, headers, body: Buffer.concat(chunks) });
        });
      },
    );
    req.on("error", reject);
    req.end(r.body);
  });
}

// Next.js' router headers, as it lists them in Vary.
const ROUTER_VARY = /^(rsc|next-router-[a-z-]+|next-url)$/i;

// The names an answer's Vary lists (all its Vary lines), in order.
function varyOf(a: Answer): string[] {
  return a.headers
    .filter(([n]) => n === "vary")
    .flatMap(([, v]) => v.split(","))
    .map((n) => n.trim())
    .filter(Boolean);
}

// What may differ between two answers to the same request: ids, dates, reset times, created rows' ids and times.
function normalize(a: Answer): { status: number; headers: string[]; vary: string[]; body: unknown } {
  const encoding = a.headers.find(([n]) => n === "content-encoding")?.[1];
  const bytes =
    encoding === "gzip" ? gunzipSync(a.body) : encoding === "deflate" ? inflateSync(a.body) : a.body;
  const type = a.headers.find(([n]) => n === "content-type")?.[1] ?? "";
  let body: unknown = bytes.toString("utf8");
  // Whether the answer holds the created product, whose id and times are its own on each server: then so is the
  // ETag, which names the answer's bytes.
  let created = false;
  if (type.includes("json") && bytes.length) {
    body = JSON.parse(bytes.toString("utf8"), (k, v: unknown) => {
      if (k === "requestId") return "<id>";
      if (v && typeof v === "object" && (v as { identifier?: string }).identifier === CREATED) {
        created = true;
        return { ...v, id: "<prd>", updatedAt: "<time>" };
      }
      return v;
    });
    if (a.status === 201) body = { ...(body as object), id: "<prd>", createdAt: "<time>" };
  }
  const vary = varyOf(a);
  const headers = a.headers
    .filter(([n]) => n !== "vary")
    .map(([n, v]) => {
      if (n === "date" || n === "x-request-id" || n === "x-ratelimit-reset") return `${n}: <varies>`;
      if (n === "ratelimit") return `${n}: ${v.replace(/;t=\d+/, ";t=<s>")}`;
      if (n === "location") return `${n}: ${v.replace(/prd_[A-Za-z0-9]+/, "<prd>")}`;
      if (n === "etag" && created) return `${n}: <names the created product's own id and times>`;
      if (n === "content-length" && encoding) return `${n}: <gzip>`;
      return `${n}: ${v}`;
    });
  return { status: a.status, headers, vary, body };
}

// The cases: [label, request], each sent to both servers.
function cases(): [string, Req][] {
  const auth = (key: string) => ({ authorization: `Bearer ${key}` });
  const a = auth(keys.acme);
  const get = (p: string, headers: Record<string, string> = a): Req => ({ method: "GET", path: p, headers });
  const { familyId, categoryId, parentId, channelId, otherFamilyId } = keys.ids;
  const list: [string, Req][] = [];
  for (const r of ["products", "families", "attributes", "categories", "media"]) {
    const p = `/public/v1/${r}`;
    list.push(
      [`${r} page 1`, get(p)],
      [`${r} perPage and page`, get(`${p}?perPage=3&page=2`)],
      [`${r} past the last page`, get(`${p}?page=999`)],
      [`${r} sort updatedAt.asc`, get(`${p}?sort=updatedAt.asc`)],
      [`${r} q`, get(`${p}?q=a`)],
      [`${r} updatedSince`, get(`${p}?updatedSince=2020-01-01T00:00:00.000Z`)],
      [`${r} HEAD`, { method: "HEAD", path: p, headers: a }],
      [
        `${r} OPTIONS preflight`,
        {
          method: "OPTIONS",
          path: p,
          headers: {
            origin: "https://app.example",
            "access-control-request-method": "GET",
            "access-control-request-headers": "authorization",
          },
        },
      ],
      [`${r} no key`, get(p, {})],
      [`${r} gzip`, get(`${p}?perPage=50`, { ...a, "accept-encoding": "gzip, deflate, br" })],
    );
  }
  list.push(
    ["products sort by label", get("/public/v1/products?sort=label.asc,identifier.desc")],
    ["products family+category", get(`/public/v1/products?familyId=${familyId}&categoryId=${categoryId}`)],
    ["products channel", get(`/public/v1/products?channelId=${channelId}`)],
    ["products unknown channel", get("/public/v1/products?channelId=chn_nope")],
    ["products other org's family", get(`/public/v1/products?familyId=${otherFamilyId}`)],
    ["products q accents", get("/public/v1/products?q=cr%C3%A8me&perPage=5")],
    ["products q plus", get("/public/v1/products?q=a+b")],
    ["products repeated keys", get("/public/v1/products?perPage=2&sort=label.asc&perPage=3")],
    ["products unknown parameter", get("/public/v1/products?per_page=2")],
    ["products bad integer", get("/public/v1/products?page=0x10")],
    ["products bad sort", get("/public/v1/products?sort=price.asc")],
    ["products q too long", get(`/public/v1/products?q=${"x".repeat(201)}`)],
    ["products malformed query escape", get("/public/v1/products?q=%ZZ")],
    ["attributes type", get("/public/v1/attributes?type=SELECT,TEXT&type=NUMBER")],
    ["attributes bad type", get("/public/v1/attributes?type=NOPE")],
    ["categories parent", get(`/public/v1/categories?parentId=${parentId}`)],
    ["media orphans", get("/public/v1/media?orphansOnly=true")],
    ["media bad boolean", get("/public/v1/media?orphansOnly=yes")],
    ["globex products", get("/public/v1/products?perPage=5", auth(keys.globex))],
    ["missing scope", get("/public/v1/families", auth(keys.productsOnly))],
    ["expired key", get("/public/v1/products", auth(keys.expired))],
    ["revoked key", get("/public/v1/products", auth(keys.revoked))],
    ["malformed key", get("/public/v1/products", auth("pca_nope"))],
    ["unknown key", get("/public/v1/products", auth(`pca_${"A".repeat(36)}`))],
    ["not a bearer", get("/public/v1/products", { authorization: "Basic dXNlcjpwYXNz" })],
    ["openapi.json", get("/public/v1/openapi.json", {})],
    ["openapi.json HEAD", { method: "HEAD", path: "/public/v1/openapi.json" }],
    ["openapi.json gzip", get("/public/v1/openapi.json", { "accept-encoding": "gzip" })],
    ["openapi.json POST", { method: "POST", path: "/public/v1/openapi.json" }],
    ["unknown path", get("/public/v1/nope")],
    ["planned path", get("/public/v1/products/prd_1")],
    ["planned path HEAD", { method: "HEAD", path: "/public/v1/channels" }],
    ["planned path DELETE", { method: "DELETE", path: "/public/v1/channels/x" }],
    ["upper-case path", get("/public/v1/PRODUCTS")],
    ["encoded letter", get("/public/v1/product%73")],
    ["encoded slash", get("/public/v1/products%2Fx")],
    ["rsc suffix", get("/public/v1/products.rsc")],
    ["dot segments", get("/public/v1/x/../products?perPage=1")],
    ["encoded dot segments", get("/public/v1/x/%2e%2e/products?perPage=1")],
    ["trailing slash", get("/public/v1/products/?perPage=1")],
    ["doubled slash", get("/public/v1//families?perPage=1")],
    ["doubled slash before public", get("//public/v1/families?perPage=1")],
    ["backslash", get("/public\\v1\\families?perPage=1")],
    ["RSC header", get("/public/v1/products?perPage=1", { ...a, rsc: "1", "next-router-prefetch": "1" })],
    ["malformed path escape", get("/public/v1/%ZZ")],
    ["truncated UTF-8 escape", get("/public/v1/products%E0%A4%A")],
    ["TRACE", { method: "TRACE", path: "/public/v1/products", headers: a }],
    ["absolute-form target", get("http://evil.test/public/v1/products?perPage=1")],
    ["OPTIONS *", { method: "OPTIONS", path: "*" }],
    ["GET *", { method: "GET", path: "*" }],
    ["header block over 16 KB", get("/public/v1/products", { ...a, "x-big": "x".repeat(17 * 1024) })],
    ["Connection: close", get("/public/v1/families?perPage=1", { ...a, connection: "close" })],
  );
  for (const method of ["PUT", "PATCH", "DELETE"]) {
    list.push([`products ${method}`, { method, path: "/public/v1/products", headers: a }]);
    list.push([`families ${method}`, { method, path: "/public/v1/families", headers: a }]);
  }
  return list;
}

// The write preview's cases (on in both servers), last: the creation changes the catalog.
function writeCases(): [string, Req][] {
  const auth = (key: string) => ({ authorization: `Bearer ${key}` });
  const a = auth(keys.acme);
  const w = { ...auth(keys.writer), "content-type": "application/json" };
  const post = (
    body: string | Buffer,
    headers: Record<string, string> = w,
    p = "/public/v1/products",
  ): Req => ({
    method: "POST",
    path: p,
    headers,
    body,
  });
  const valid = JSON.stringify(keys.createBody);
  return [
    ["POST families", post(valid, w, "/public/v1/families")],
    ["POST without write scope", post(valid, { ...a, "content-type": "application/json" })],
    ["POST not JSON type", post(valid, { ...auth(keys.writer), "content-type": "text/plain" })],
    ["POST malformed JSON", post("{ nope")],
    ["POST not an object", post("[1,2]")],
    ["POST invalid fields", post(JSON.stringify({ familyId: "fam_nope", categoryId: 3, values: {} }))],
    ["POST over 64 KB", post(JSON.stringify({ pad: "x".repeat(70 * 1024) }))],
    ["POST dry run", post(valid, w, "/public/v1/products?dryRun=true")],
    ["POST creates", post(valid)],
    ["POST same identifier again", post(valid)],
    ["products after the creation", { method: "GET", path: "/public/v1/products?perPage=3", headers: a }],
  ];
}

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  dataDir = mkdtempSync(path.join(os.tmpdir(), "pca-e2e-parity-"));
  const seeded = path.join(dataDir, "seeded");
  mkdirSync(seeded);
  seed(seeded);
  keys = JSON.parse(readFileSync(path.join(seeded, "parity-keys.json"), "utf8")) as Keys;
  cpSync(seeded, path.join(dataDir, "fast"), { recursive: true });
  cpSync(seeded, path.join(dataDir, "next"), { recursive: true });
  const [fastPort, nextPort] = [await freePort(), await freePort()];
  // Both servers build their absolute URLs (media files, Location) from the same base.
  base = `http://127.0.0.1:${fastPort}`;
  fast = start("npm start (serve.mjs)", ["scripts/serve.mjs"], fastPort, path.join(dataDir, "fast"), {
    PORT: String(fastPort),
    HOSTNAME: "127.0.0.1",
  });
  nextStart = start(
    "next start",
    [path.join(ROOT, "node_modules/next/dist/bin/next"), "start", "-p", String(nextPort), "-H", "127.0.0.1"],
    nextPort,
    path.join(dataDir, "next"),
    { PORT: String(nextPort) },
  );
  await Promise.all([ready(fast), ready(nextStart)]);
});

test.afterAll(async () => {
  for (const agent of agents.values()) agent.destroy();
  for (const s of [fast, nextStart]) {
    if (s && s.child.exitCode === null) {
      const exited = new Promise((r) => s.child.once("exit", r));
      s.child.kill("SIGTERM");
      await exited;
    }
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

test("every endpoint, filter, error, method and path answers the same on the fast path and under next start", async () => {
  test.setTimeout(120_000);
  const all = cases();
  // A conditional request with the tag of a first answer (304 once ETags exist; 200 twice until then).
  const first = await raw(fast.port, all[0]![1]);
  const etag = first.headers.find(([n]) => n === "etag")?.[1] ?? '"no-etag-yet"';
  await raw(nextStart.port, all[0]![1]);
  all.push(
    ["If-None-Match: the tag", { ...all[0]![1], headers: { ...all[0]![1].headers, "if-none-match": etag } }],
    [
      "If-None-Match: another tag",
      { ...all[0]![1], headers: { ...all[0]![1].headers, "if-none-match": '"x"' } },
    ],
    ...writeCases(),
  );
  let compared = 0;
  for (const [label, req] of all) {
    const fastAnswer = await raw(fast.port, req);
    const f = normalize(fastAnswer);
    const n = normalize(await raw(nextStart.port, req));
    const what = `${label}: ${req.method} ${req.path.slice(0, 100)}`;
    expect.soft(f, what).toEqual(n);
    // The API's own Vary (both servers, compared above): none of Next.js' router headers; a list's 200 by
    // Authorization and Accept-Encoding.
    expect
      .soft(
        varyOf(fastAnswer).filter((v) => ROUTER_VARY.test(v)),
        what,
      )
      .toEqual([]);
    const isList = /^\/public\/v1\/(products|families|attributes|categories|media)(\?|$)/.test(req.path);
    if (isList && f.status === 200 && req.method === "GET")
      expect.soft(varyOf(fastAnswer), what).toEqual(["Authorization", "Accept-Encoding"]);
    compared++;
  }
  expect(compared).toBeGreaterThan(100);
  expect(fast.output).not.toContain("through Next.js");
});

test("a key revoked in the console is refused by the fast path's next call", async ({ page }) => {
  const users = (
    JSON.parse(readFileSync(path.join(dataDir, "fast", "demo-keys.json"), "utf8")) as {
      users: { email: string; password: string }[];
    }
  ).users;
  const owner = users.find((u) => u.email === "owner@acme.example")!;
  await page.goto(`${base}/console`);
  await page.getByLabel("Email").fill(owner.email);
  await page.getByLabel("Password").fill(owner.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).toHaveURL(/\/console\/acme\/keys/);
  await page.getByLabel("Name").fill("fast path check");
  await page.getByRole("button", { name: "Create key" }).click();
  const shown = page.locator("section.new-key code");
  await expect(shown).toHaveText(/^pca_[0-9A-Za-z]{36}$/);
  const key = (await shown.textContent())!;
  const call = () =>
    raw(fast.port, {
      method: "GET",
      path: "/public/v1/products?perPage=1",
      headers: { authorization: `Bearer ${key}` },
    });
  // Known to the fast path's key cache (a positive entry) before the revocation.
  expect((await call()).status).toBe(200);
  await page.getByRole("button", { name: "Done" }).click();
  const row = page.locator("tr").filter({ hasText: key.slice(0, 12) });
  await row.getByRole("button", { name: "Revoke…" }).click();
  const revoked = page.waitForResponse((r) => /\/keys\/[^/]+\/revoke$/.test(r.url()));
  // The confirmation is a dialog of its own (issue 21, row 20).
  await page.getByRole("dialog").getByRole("button", { name: "Revoke", exact: true }).click();
  expect((await revoked).status()).toBe(200);
  await expect(row).toContainText("revoked");
  const after = await call();
  expect(after.status).toBe(401);
  expect(JSON.parse(after.body.toString()).code).toBe("PUBLIC_API_KEY_REVOKED");
});
