// Preview feature `export` through the router (issue 24, item 3), on PGlite and on the Postgres server: every
// resource streamed as NDJSON in id order, each line as its read answers it (a detail for products, families and
// attributes, a list item for the others), the end line's cursor the feed head of the snapshot, resume with `after`,
// gzip through npm start's node:http host and none added by the route file (the Next.js path); the shared security
// cases on each resource, one request of the quota per export, two exports at once per key, the snapshot ended by
// the end, a client gone, an idle client, a failed batch; on the server, a change committed during an export is not
// in it but in the feed after its cursor, and export + feed = the catalog. Off, the path is an unknown one.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { readChanges, type ChangeEvent } from "@/lib/catalog/feed/changes";
import { openExport } from "@/lib/catalog/feed/export";
import { MIRRORED, type Item, type Mirrored } from "@/lib/catalog/resources/items";
import { loadConfig } from "@/lib/config";
import { generateApiKey } from "@/lib/keys/format";
import { ndjsonStream } from "@/lib/public-api/export-stream";
import { EXPORTS_PER_KEY } from "@/lib/public-api/operations/export-resource";
import { publicApi } from "@/lib/public-api/router";
import { createRuntime } from "@/lib/runtime";
import { createApiHost } from "@/lib/server/api-host";
import { call, expectError, setupApi, swapRuntime, type ApiFixture } from "../support/api";
import { apiState } from "@/lib/public-api/state";

const PREVIEW = { PUBLIC_API_PREVIEW: "details,changes,export" };
const BASE_URL = "http://api.test";

// The resources whose lines are what their detail endpoint answers; the others' are their list's items.
const WHOLE: Partial<Record<Mirrored, string>> = {
  products: "products",
  families: "families",
  attributes: "attributes",
};

// An export's answer read to its end: status, headers, text, and its lines parsed (an error's JSON body as `body`).
interface ExportAnswer {
  status: number;
  headers: Headers;
  text: string;
  lines: Record<string, unknown>[];
  body?: Record<string, unknown>;
}

async function send(
  path: string,
  opts: { key?: string; method?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  return publicApi.fetch(new Request(new URL(path, BASE_URL), { method: opts.method ?? "GET", headers }));
}

async function read(res: Response): Promise<ExportAnswer> {
  const text = await res.text();
  const ndjson = res.headers.get("content-type") === "application/x-ndjson";
  return {
    status: res.status,
    headers: res.headers,
    text,
    lines: ndjson ? parseLines(text) : [],
    body: !ndjson && text ? JSON.parse(text) : undefined,
  };
}

const parseLines = (text: string) =>
  text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

const exportOf = async (resource: string, key: string, query = "") =>
  read(await send(`/public/v1/export/${resource}${query}`, { key }));

// The items of an export (every line but the end line) and its end line.
function split(a: ExportAnswer): { items: Item[]; end: { end: true; cursor: string; count: number } } {
  const end = a.lines.at(-1) as { end: true; cursor: string; count: number };
  expect(end, "the end line").toMatchObject({ end: true, cursor: expect.stringMatching(/^\d+$/) });
  return { items: a.lines.slice(0, -1) as unknown as Item[], end };
}

// Every item of a list endpoint of the key's organization, by id (pages of 100).
async function listed(path: string, key: string): Promise<Map<string, unknown>> {
  const out = new Map<string, unknown>();
  for (let page = 1; ; page++) {
    const res = await call(`${path}?perPage=100&page=${page}`, { key });
    expect(res.status, path).toBe(200);
    for (const item of res.body.data) out.set(item.id, item);
    if (page >= res.body.pagination.totalPages) return out;
  }
}

// Waits until the database answers a statement from another connection (on PGlite: until no transaction holds it).
const databaseFree = (fx: ApiFixture) =>
  expect(Promise.race([fx.db.query("select 1"), timeout(5_000)])).resolves.toEqual([{ "?column?": 1 }]);
const timeout = (ms: number) =>
  new Promise((_, reject) => setTimeout(() => reject(new Error("timeout")), ms));

// On the server: the transactions left open on the test database (an export that did not end holds one).
async function openTransactions(fx: ApiFixture): Promise<number> {
  if (fx.db.driver !== "pg") return 0;
  const [row] = await fx.db.query<{ n: number }>(
    "select count(*)::int as n from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'",
  );
  return row!.n;
}

describe.each(["pglite", "pg"] as const)("preview `export` on %s", (driver) => {
  let fx: ApiFixture;
  beforeAll(async () => {
    fx = await setupApi(driver, PREVIEW);
  });
  afterAll(async () => {
    await fx?.close();
  });

  it("streams each resource whole, in id order, each line as its read answers it, then the end line", async () => {
    const key = fx.acme.full;
    const [head] = await fx.db.query<{ head: string }>(
      "select head::text from catalog_change_heads where org_id = $1",
      [fx.acme.orgId],
    );
    for (const resource of MIRRORED) {
      const res = await exportOf(resource, key);
      expect(res.status, resource).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/x-ndjson");
      expect(res.headers.get("cache-control")).toBe("private, no-store");
      expect(res.headers.get("etag")).toBeNull();
      const { items, end } = split(res);
      expect(end).toEqual({ end: true, cursor: head!.head, count: items.length });
      // The snapshot's cursor comes first too, in a header a browser may read.
      expect(res.headers.get("x-export-cursor")).toBe(head!.head);
      expect(res.headers.get("access-control-expose-headers")).toContain("X-Export-Cursor");
      // Every item of the list, none else, in the database's id order.
      const list = await listed(`/public/v1/${resource}`, key);
      expect(items.length, resource).toBe(list.size);
      expect(items.length, resource).toBeGreaterThan(0);
      const ids = items.map((i) => i.id);
      const ordered = await fx.db.query<{ id: string }>("select id from unnest($1::text[]) id order by id", [
        ids,
      ]);
      expect(ids).toEqual(ordered.map((r) => r.id));
      // Each line: the detail's body, or the list's item.
      const whole = WHOLE[resource];
      for (const item of items) {
        const expected = whole
          ? (await call(`/public/v1/${whole}/${encodeURIComponent(item.id)}`, { key })).body
          : list.get(item.id);
        expect(item, `${resource} ${item.id}`).toEqual(expected);
      }
    }
  }, 180_000);

  it("resumes after an id: the rest, in the same order, and its own count", async () => {
    const key = fx.acme.full;
    const all = split(await exportOf("products", key)).items;
    const at = 1_234;
    const rest = split(await exportOf("products", key, `?after=${encodeURIComponent(all[at]!.id)}`));
    expect(rest.items).toEqual(all.slice(at + 1));
    expect(rest.end.count).toBe(all.length - at - 1);
    const none = split(await exportOf("products", key, `?after=${encodeURIComponent(all.at(-1)!.id)}`));
    expect(none.items).toEqual([]);
    expect(none.end.count).toBe(0);
  });

  it("gzip through npm start's host when asked for, identity otherwise; the route file adds no encoding", async () => {
    const host = createApiHost((request) => publicApi.answer(request), { compress: true });
    const server = http.createServer((req, res) => host(req, res, req.url!));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    const get = (headers: Record<string, string>) =>
      new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        const req = http.request(
          {
            host: "127.0.0.1",
            port,
            path: "/public/v1/export/products",
            headers: { authorization: `Bearer ${fx.acme.full}`, ...headers },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (c: Buffer) => chunks.push(c));
            res.on("end", () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
          },
        );
        req.on("error", reject);
        req.end();
      });
    try {
      const expected = (await exportOf("products", fx.acme.full)).text;
      const gzip = await get({ "accept-encoding": "gzip, deflate, br" });
      console.log(
        "DEBUG",
        gzip.headers,
        gzip.headers["content-encoding"]
          ? gunzipSync(gzip.body).toString().slice(0, 500)
          : gzip.body.toString().slice(0, 500),
      );
      expect(gzip.headers["content-encoding"]).toBe("gzip");
      expect(gzip.headers["content-type"]).toBe("application/x-ndjson");
      expect(gzip.headers.vary).toContain("Accept-Encoding");
      expect(gunzipSync(gzip.body).toString()).toBe(expected);
      expect(gzip.body.length).toBeLessThan(expected.length / 4);
      const plain = await get({});
      expect(plain.headers["content-encoding"]).toBeUndefined();
      expect(plain.body.toString()).toBe(expected);
      // The Next.js path: the route file's answer is the handler's, never encoded by it (Next.js' compression
      // leaves application/x-ndjson alone and drops a route's own Content-Encoding: see docs/design.md).
      const { GET } = await import("@/app/public/v1/export/[resource]/route");
      const routed = await GET(
        new Request(`${BASE_URL}/public/v1/export/products`, {
          headers: { authorization: `Bearer ${fx.acme.full}`, "accept-encoding": "gzip" },
        }),
      );
      expect(routed.headers.get("content-encoding")).toBeNull();
      expect(await routed.text()).toBe(expected);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it("HEAD answers like GET without a body and ends its snapshot; OPTIONS is the preflight; POST is a 405", async () => {
    const head = await read(await send("/public/v1/export/products", { key: fx.acme.full, method: "HEAD" }));
    expect(head.status).toBe(200);
    expect(head.text).toBe("");
    expect(head.headers.get("content-type")).toBe("application/x-ndjson");
    expect(fx.runtime.part(apiState).exports.size).toBe(0);
    await databaseFree(fx);
    const options = await send("/public/v1/export/products", { method: "OPTIONS" });
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")).toBe("GET, HEAD");
    const post = await call("/public/v1/export/products", { key: fx.acme.full, method: "POST" });
    expectError(post, 405, "PUBLIC_API_METHOD_NOT_ALLOWED");
  });

  it("a name that is not a resource is the 404 of an unknown path, before any key is read", async () => {
    const unknown = await call("/public/v1/nothing-here", { key: fx.acme.full });
    for (const path of [
      "/public/v1/export/orders",
      "/public/v1/export/product",
      "/public/v1/export/Products",
      "/public/v1/export/",
      "/public/v1/export",
      "/public/v1/export/products/x",
    ]) {
      for (const method of ["GET", "HEAD", "OPTIONS"]) {
        const res = await send(path, { key: fx.acme.full, method });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.headers.get("ratelimit"), path).toBeNull();
        if (method === "GET") expect((await res.json()).code).toBe(unknown.body.code);
      }
    }
    // Through the route file too (the Next.js path).
    const route = await import("@/app/public/v1/export/[resource]/route");
    const routed = new Request(`${BASE_URL}/public/v1/export/orders`, {
      headers: { authorization: `Bearer ${fx.acme.full}` },
    });
    expect((await route.GET(routed)).status).toBe(404);
    expect((await route.OPTIONS(routed)).status).toBe(404);
    expect((await route.OPTIONS(new Request(`${BASE_URL}/public/v1/export/media`))).status).toBe(204);
  });

  describe("the shared security cases, on each resource", () => {
    it("401 without a key, with an unknown key, an expired or a revoked one", async () => {
      for (const r of MIRRORED) {
        const path = `/public/v1/export/${r}`;
        expectError(await call(path), 401, "PUBLIC_API_KEY_MISSING");
        expectError(await call(path, { key: generateApiKey() }), 401, "PUBLIC_API_KEY_INVALID");
        expectError(await call(path, { key: fx.acme.expired }), 401, "PUBLIC_API_KEY_EXPIRED");
        expectError(await call(path, { key: fx.acme.revoked }), 401, "PUBLIC_API_KEY_REVOKED");
      }
    });

    it("403 without the resource's scope; channels with any read scope", async () => {
      for (const r of MIRRORED) {
        if (r === "channels") continue;
        const res = await call(`/public/v1/export/${r}`, { key: fx.acme.without[r] });
        expectError(res, 403, "PUBLIC_API_INSUFFICIENT_SCOPE");
        expect(res.body.message).toContain(`${r}:read`);
      }
      for (const without of Object.values(fx.acme.without)) {
        const res = await exportOf("channels", without);
        expect(res.status).toBe(200);
        expect(split(res).items.length).toBeGreaterThan(0);
      }
    });

    it("never another organization's data", async () => {
      for (const r of MIRRORED) {
        const acme = split(await exportOf(r, fx.acme.full)).items.map((i) => i.id);
        const globex = split(await exportOf(r, fx.globex.full)).items.map((i) => i.id);
        expect(globex.length, r).toBeGreaterThan(0);
        expect(
          acme.filter((id) => globex.includes(id)),
          r,
        ).toEqual([]);
        expect(JSON.stringify(await exportOf(r, fx.acme.full))).not.toContain(fx.globex.orgId);
      }
    });

    it("400 for an unknown parameter or an invalid `after`, naming it", async () => {
      for (const r of MIRRORED) {
        const unknown = await call(`/public/v1/export/${r}?per_page=5`, { key: fx.acme.full });
        expectError(unknown, 400, "PUBLIC_API_INVALID_QUERY");
        expect(unknown.body.message).toContain("per_page");
        for (const after of ["", "x".repeat(129), "a%01b"]) {
          const res = await call(`/public/v1/export/${r}?after=${after}`, { key: fx.acme.full });
          expectError(res, 400, "PUBLIC_API_INVALID_QUERY");
          expect(res.body.message).toContain("after");
        }
      }
    });
  });

  it("an export is one request of the key's quota, whatever its size; 429 once the quota is spent", async () => {
    const rt = createRuntime(
      loadConfig({ PUBLIC_BASE_URL: BASE_URL, ...PREVIEW, RATE_LIMIT_REQUESTS: "3" }),
      fx.db,
    );
    await swapRuntime(rt);
    try {
      const remaining: (string | null)[] = [];
      const statuses: number[] = [];
      for (const r of ["products", "media", "categories", "products"]) {
        const res = await exportOf(r, fx.acme.full);
        statuses.push(res.status);
        remaining.push(res.headers.get("x-ratelimit-remaining"));
        if (res.status === 200) expect(split(res).items.length).toBeGreaterThan(0);
        else
          expect(res.body).toMatchObject({
            code: "PUBLIC_API_RATE_LIMIT_EXCEEDED",
            retryAfter: expect.any(Number),
          });
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      expect(remaining).toEqual(["2", "1", "0", "0"]);
    } finally {
      await swapRuntime(fx.runtime);
    }
  });

  it(`streams at most ${EXPORTS_PER_KEY} exports of a key at once: the next is a 429 with Retry-After until one ends`, async () => {
    const key = fx.acme.full;
    const first = await send("/public/v1/export/products", { key });
    expect(first.status).toBe(200);
    // On PGlite the second waits for the first's snapshot to end (one connection); it holds its slot meanwhile.
    const second = send("/public/v1/export/families", { key });
    await expect
      .poll(() => [...fx.runtime.part(apiState).exports.values()], { timeout: 10_000 })
      .toEqual([2]);
    const third = await call("/public/v1/export/categories", { key });
    expectError(third, 429, "PUBLIC_API_RATE_LIMIT_EXCEEDED");
    expect(third.body.retryAfter).toBeGreaterThanOrEqual(1);
    expect(third.headers.get("retry-after")).toBe(String(third.body.retryAfter));
    expect(third.body.message).toContain(`${EXPORTS_PER_KEY} au plus`);
    // Another key is not held back (on the server: PGlite's one connection is the first export's until it ends).
    if (driver === "pg") expect((await exportOf("channels", fx.acme.without.products)).status).toBe(200);
    await first.body!.cancel();
    const rest = split(await read(await second));
    expect(rest.end.count).toBe(rest.items.length);
    expect(fx.runtime.part(apiState).exports.size).toBe(0);
    expect((await exportOf("categories", key)).status).toBe(200);
  });

  it("a client that goes away ends the snapshot and frees its slot and its connection", async () => {
    const res = await send("/public/v1/export/products", { key: fx.acme.full });
    const reader = res.body!.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value).split("\n").length).toBeGreaterThan(100);
    await reader.cancel();
    expect(fx.runtime.part(apiState).exports.size).toBe(0);
    await databaseFree(fx);
    expect(await openTransactions(fx)).toBe(0);
  });

  it("a client gone while the next batch is read ahead: the snapshot ends after that batch, never under another request", async () => {
    // The batch read ahead runs its statements one after the other on the snapshot's connection. Ended between two
    // of them, the transaction gave the connection back to the pool with the batch's next statement still to come:
    // it ran inside the next request's transaction, whose SET TRANSACTION then failed (a 500). Found by the
    // isolation sweep (tests/security/tenant-isolation.test.ts).
    for (let i = 0; i < 20; i++) {
      const res = await send("/public/v1/export/products", { key: fx.acme.full });
      const reader = res.body!.getReader();
      await reader.read();
      await reader.cancel();
      const next = await send("/public/v1/export/families", { key: fx.globex.full });
      const text = await next.text();
      expect(next.status, text.slice(0, 300)).toBe(200);
      expect(JSON.parse(text.trim().split("\n").pop()!)).toMatchObject({ end: true });
    }
    expect(fx.runtime.part(apiState).exports.size).toBe(0);
    await databaseFree(fx);
    expect(await openTransactions(fx)).toBe(0);
  });

  it("a client that reads nothing for the idle delay loses its export: the snapshot ends, the stream errors", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const snapshot = await openExport(
        await fx.runtime.db(),
        await fx.runtime.catalog(),
        { id: fx.acme.orgId, slug: fx.acme.slug },
        "products",
        {},
        BASE_URL,
      );
      let ended = false;
      const stream = ndjsonStream(snapshot, {
        idleMs: 200,
        requestId: "idle-test",
        onEnd: () => (ended = true),
      });
      const reader = stream.getReader();
      expect((await reader.read()).done).toBe(false);
      await expect.poll(() => ended, { timeout: 10_000 }).toBe(true);
      await databaseFree(fx);
      expect(await openTransactions(fx)).toBe(0);
      await expect(reader.read()).rejects.toThrow("export idle");
      expect(errors.mock.calls.some((c) => String(c[0]).includes("read nothing"))).toBe(true);
    } finally {
      errors.mockRestore();
    }
  });

  if (driver === "pg")
    it("a batch that fails ends the stream without its end line, logged; the next export is served", async () => {
      const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
      try {
        const res = await send("/public/v1/export/products", { key: fx.acme.full });
        expect(res.status).toBe(200);
        // The export's connection is lost (a server restart, a network cut): its backend is terminated. It is found
        // by its open transaction; its batch may be between two statements or inside one when the signal lands,
        // so the backend is terminated by its pid, whatever its state by then.
        let pids: number[] = [];
        await expect
          .poll(async () => {
            pids = (
              await fx.db.query<{ pid: number }>(
                `select pid from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'`,
              )
            ).map((r) => r.pid);
            return pids.length;
          })
          .toBe(1);
        const killed = await fx.db.query<{ ok: boolean }>("select pg_terminate_backend($1) as ok", [pids[0]]);
        expect(killed).toEqual([{ ok: true }]);
        const reader = res.body!.getReader();
        let text = "";
        await expect(
          (async () => {
            for (;;) {
              const { done, value } = await reader.read();
              if (done) return;
              text += new TextDecoder().decode(value);
            }
          })(),
        ).rejects.toThrow();
        expect(text).not.toContain('"end":true');
        expect(errors.mock.calls.some((c) => String(c[0]).includes("export cut after"))).toBe(true);
        expect(fx.runtime.part(apiState).exports.size).toBe(0);
        expect(split(await exportOf("products", fx.acme.full)).end.count).toBe(3_000);
      } finally {
        errors.mockRestore();
      }
    });

  // Issue 24: "export + feed from that cursor = the catalog". Only the server runs another connection's commit
  // while the export's snapshot is open (PGlite's one connection waits for the export to end).
  if (driver === "pg")
    it("a change committed during an export is not in it, but in the feed after its cursor; export + feed = the catalog", async () => {
      const key = fx.acme.full;
      const org = { id: fx.acme.orgId, slug: fx.acme.slug };
      const res = await send("/public/v1/export/products", { key });
      expect(res.status).toBe(200);
      // Another connection commits while the snapshot is open: a product renamed, another deleted.
      const [renamed] = await fx.db.query<{ id: string; label: string }>(
        "select id, label from products where org_id = $1 order by id desc limit 1",
        [org.id],
      );
      const [deleted] = await fx.db.query<{ id: string }>(
        "select id from products where org_id = $1 order by id limit 1 offset 10",
        [org.id],
      );
      await fx.db.query("update products set label = 'Renommée pendant l''export' where id = $1", [
        renamed!.id,
      ]);
      await fx.db.query("delete from products where id = $1", [deleted!.id]);
      const { items, end } = split(await read(res));
      const exported = new Map(items.map((i) => [i.id, i]));
      expect((exported.get(renamed!.id) as unknown as { label: string }).label).toBe(renamed!.label);
      expect(exported.has(deleted!.id)).toBe(true);
      // The feed from the export's cursor.
      const ctx = await fx.runtime.catalog();
      const events: ChangeEvent[] = [];
      for (let after = end.cursor; ;) {
        const page = await readChanges(ctx, org, { after, types: ["products"], limit: 500 }, BASE_URL);
        events.push(...page.data);
        after = page.cursor;
        if (!page.hasMore) break;
      }
      expect(events.find((e) => e.id === renamed!.id)).toMatchObject({
        op: "upsert",
        item: { label: "Renommée pendant l'export" },
      });
      expect(events.find((e) => e.id === deleted!.id)).toMatchObject({ op: "delete", item: null });
      // Applied to the export, the feed gives the catalog as a new export reads it now.
      for (const e of events) {
        if (e.op === "delete") exported.delete(e.id);
        else exported.set(e.id, e.item!);
      }
      const now = split(await exportOf("products", key)).items;
      expect([...exported.values()].sort((a, b) => (a.id < b.id ? -1 : 1))).toEqual(
        [...now].sort((a, b) => (a.id < b.id ? -1 : 1)),
      );
    });
});

describe("preview `export` off (V1)", () => {
  let fx: ApiFixture;
  beforeAll(async () => {
    fx = await setupApi("pglite", { PUBLIC_API_PREVIEW: "details,changes" });
  });
  afterAll(async () => {
    await fx?.close();
  });

  it("its path is the 404 of an unknown path, whatever the method", async () => {
    const unknown = await call("/public/v1/nothing-here", { key: fx.acme.full });
    for (const path of ["/public/v1/export/products", "/public/v1/export/channels", "/public/v1/export/x"]) {
      for (const method of ["GET", "HEAD", "OPTIONS", "POST"]) {
        const res = await call(path, { key: fx.acme.full, method });
        expect(res.status, `${method} ${path}`).toBe(404);
        if (method !== "HEAD")
          expect(res.body).toMatchObject({ code: unknown.body.code, message: unknown.body.message });
      }
    }
    expect(fx.runtime.part(apiState).exports.size).toBe(0);
  });
});
