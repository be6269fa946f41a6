// The TypeScript client (clients/typescript) against a real server on loopback (every preview feature on): every page
// of a list, the detail reads, the channels, the export (whole, and cut on the way then resumed through a cutting
// proxy), the change feed followed with long polling while a write is made, and its typed errors (410, 401, 404).
import http from "node:http";
import { inspect } from "node:util";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pruneChanges } from "@/lib/catalog/feed/change-retention";
import { applyChange } from "@/lib/demo/catalog-activity";
import {
  CatalogApiError,
  CatalogClient,
  type ChangesPage,
  type ExportLine,
  type Item,
  type ListAnswer,
  splitLines,
} from "@/clients/typescript/src/index";
import { startApiServer, type ApiServer } from "../support/api-server";

let api: ApiServer;
let client: CatalogClient;

beforeAll(async () => {
  api = await startApiServer("pglite", { PUBLIC_API_PREVIEW: "all" });
  client = new CatalogClient({ baseUrl: api.baseUrl, key: api.fx.acme.full });
});

afterAll(async () => {
  await api?.close();
});

// Every line of an export.
async function readAll(lines: AsyncIterable<ExportLine>): Promise<{ items: Item[]; end?: ExportLine }> {
  const items: Item[] = [];
  for await (const line of lines) {
    if ("item" in line) items.push(line.item);
    else return { items, end: line };
  }
  return { items };
}

// A proxy in front of the server that cuts the first export it forwards after `cutAfterLines` lines and half of the
// next one (the connection lost), and forwards everything else as it comes.
async function cuttingProxy(
  cutAfterLines: number,
): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  let cuts = 1;
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer(async (req, res) => {
    requests.push(req.url!);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers))
      if (typeof v === "string" && k !== "host") headers.set(k, v);
    headers.delete("accept-encoding");
    const answer = await fetch(api.baseUrl + req.url!, { headers });
    const out = Object.fromEntries(answer.headers);
    delete out["content-length"];
    delete out["transfer-encoding"];
    delete out["content-encoding"]; // fetch has decompressed it
    res.writeHead(answer.status, out);
    const cut = req.url!.startsWith("/public/v1/export/") && cuts-- > 0;
    const reader = answer.body!.getReader();
    let lines = 0;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return res.end();
      const text = Buffer.from(value);
      if (!cut) {
        res.write(text);
        continue;
      }
      let at = -1;
      while (lines < cutAfterLines && (at = text.indexOf(10, at + 1)) >= 0) lines++;
      if (lines < cutAfterLines) {
        res.write(text);
        continue;
      }
      await reader.cancel(); // the export's snapshot ends: PGlite is free again
      await new Promise((resolve) => res.write(text.subarray(0, at + 20), resolve));
      await new Promise((resolve) => setTimeout(resolve, 50));
      res.socket?.destroy();
      return;
    }
  });
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe("the lists", () => {
  it("walks every page of a list: the pages fetched by hand, in order, as many as the total", async () => {
    const perPage = 7;
    const byHand: string[] = [];
    let answer: ListAnswer<"families">;
    let page = 1;
    do {
      const res = await fetch(
        `${api.baseUrl}/public/v1/families?perPage=${perPage}&page=${page}&sort=label.asc`,
        {
          headers: { Authorization: `Bearer ${api.fx.acme.full}` },
        },
      );
      expect(res.status).toBe(200);
      answer = (await res.json()) as ListAnswer<"families">;
      byHand.push(...answer.data.map((f) => f.id));
      page++;
    } while (page <= answer.pagination.totalPages);
    expect(answer.pagination.totalPages).toBeGreaterThan(1);

    const walked: string[] = [];
    for await (const family of client.families.list({ perPage, sort: "label.asc" })) walked.push(family.id);
    expect(walked).toEqual(byHand);
    expect(walked).toHaveLength(answer.pagination.total);

    const first = await client.families.page({ perPage, sort: "label.asc" });
    expect(first.data.map((f) => f.id)).toEqual(byHand.slice(0, perPage));
    expect(first.pagination.total).toBe(answer.pagination.total);
  });

  it("walks every product, a hundred a page, each once", async () => {
    const { pagination } = await client.products.page({ perPage: 1, sort: "identifier.asc" });
    const seen = new Set<string>();
    for await (const product of client.products.list({ perPage: 100, sort: "identifier.asc" }))
      seen.add(product.id);
    expect(seen.size).toBe(pagination.total);
  });

  it("sends a list's array parameters comma-separated: reads by ids", async () => {
    const { data } = await client.products.page({ perPage: 3, sort: "identifier.asc" });
    const ids = data.map((p) => p.id);
    const read = await client.products.page({ ids, sort: "identifier.asc" });
    expect(read.data.map((p) => p.id)).toEqual(ids);
    expect(read.pagination.total).toBe(3);
  });
});

describe("the detail reads and the channels", () => {
  it("reads a product, a family, an attribute whole, and every channel", async () => {
    const { data } = await client.products.page({ perPage: 1 });
    const product = await client.products.get(data[0]!.id);
    expect(product.id).toBe(data[0]!.id);
    expect(product).toHaveProperty("values");
    const family = await client.families.get(product.family.id);
    expect(family.id).toBe(product.family.id);
    const [attribute] = (await client.attributes.page({ perPage: 1 })).data;
    expect((await client.attributes.get(attribute!.id)).id).toBe(attribute!.id);
    const channels = await client.channels();
    const listed = await client.categories.page({ perPage: 1 }); // another list, any resource
    expect(listed.pagination.total).toBeGreaterThan(0);
    expect(channels.length).toBeGreaterThan(0);
    expect(channels.every((c) => c.id.startsWith("chn_"))).toBe(true);
  });

  it("types a 404 and a 401 from the error catalogue", async () => {
    const missing = await client.products.get("prd_doesnotexist000").catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(CatalogApiError);
    expect((missing as CatalogApiError).status).toBe(404);
    expect((missing as CatalogApiError).code).toBe("PUBLIC_API_NOT_FOUND");
    expect((missing as CatalogApiError).requestId).toMatch(/.+/);

    const badKey = "pca_live_thisisnotakeyatall00000000000000";
    const stranger = new CatalogClient({ baseUrl: api.baseUrl, key: badKey });
    const refused = await stranger.products.page().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(CatalogApiError);
    expect((refused as CatalogApiError).status).toBe(401);
    expect((refused as CatalogApiError).code).toMatch(/^PUBLIC_API_KEY_/);
    // The key is never in what the error says, nor in what an inspection of the client shows.
    expect(JSON.stringify({ m: (refused as Error).message, s: (refused as Error).stack })).not.toContain(
      badKey,
    );
    expect(inspect(stranger, { depth: 10, showHidden: true })).not.toContain(badKey);
    expect(JSON.stringify(stranger)).not.toContain(badKey);
  });
});

describe("the export", () => {
  it("splits NDJSON into lines, a line split across chunks held until its end comes", () => {
    const first = splitLines("", '{"id":"a"}\n{"id":');
    expect(first).toEqual({ lines: ['{"id":"a"}'], rest: '{"id":' });
    const second = splitLines(first.rest, '"b"}\n\n{"end":true');
    expect(second).toEqual({ lines: ['{"id":"b"}'], rest: '{"end":true' });
    expect(splitLines(second.rest, ',"cursor":"1","count":2}\n')).toEqual({
      lines: ['{"end":true,"cursor":"1","count":2}'],
      rest: "",
    });
  });

  it("streams every item (as many as the list's total), then its end with the feed's cursor", async () => {
    const { pagination } = await client.products.page({ perPage: 1 });
    const { items, end } = await readAll(client.export("products"));
    expect(items).toHaveLength(pagination.total);
    expect(new Set(items.map((i) => i.id)).size).toBe(items.length);
    expect(end).toMatchObject({ end: true, count: pagination.total });
    expect((end as { cursor: string }).cursor).toMatch(/^\d+$/);
  });

  it("asks for an export plain unless told to compress it, and reads it the same either way", async () => {
    const seen: { asked: string | null; answered: string | null }[] = [];
    const recording = new CatalogClient({
      baseUrl: api.baseUrl,
      key: api.fx.acme.full,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        seen.push({
          asked: new Headers(init?.headers).get("accept-encoding"),
          answered: response.headers.get("content-encoding"),
        });
        return response;
      },
    });
    const plain = await readAll(recording.export("products"));
    const gzipped = await readAll(recording.export("products", { compress: true }));
    expect(seen).toEqual([
      { asked: "identity", answered: null },
      { asked: "gzip", answered: "gzip" },
    ]);
    expect(gzipped.items).toEqual(plain.items);
    expect(gzipped.end).toEqual(plain.end);
  });

  it("resumes an export cut on the way after the last id read, ending with the first request's cursor", async () => {
    const whole = await readAll(client.export("products"));
    const proxy = await cuttingProxy(25);
    try {
      const retries: number[] = [];
      const cut = new CatalogClient({
        baseUrl: proxy.url,
        key: api.fx.acme.full,
        onRetry: (r) => retries.push(r.attempt),
      });
      const resumed = await readAll(cut.export("products"));
      expect(resumed.items.map((i) => i.id)).toEqual(whole.items.map((i) => i.id));
      expect(resumed.end).toMatchObject({ end: true, count: whole.items.length });
      expect(retries).toEqual([1]);
      const exports = proxy.requests.filter((r) => r.startsWith("/public/v1/export/products"));
      expect(exports).toEqual([
        "/public/v1/export/products",
        `/public/v1/export/products?after=${encodeURIComponent(whole.items[24]!.id)}`,
      ]);
      // Nothing was written in between: the first request's cursor is the whole export's.
      expect((resumed.end as { cursor: string }).cursor).toBe((whole.end as { cursor: string }).cursor);
    } finally {
      await proxy.close();
    }
  });

  it("stops when the caller breaks out, and the server serves the next request", async () => {
    let n = 0;
    for await (const line of client.export("products")) if ("item" in line && ++n === 3) break;
    expect(n).toBe(3);
    expect((await client.channels()).length).toBeGreaterThan(0);
  });
});

describe("the change feed", () => {
  it("follows the feed with long polling and gets a write made while it waits", async () => {
    const { end } = await readAll(client.export("channels"));
    const from = (end as { cursor: string }).cursor;
    const controller = new AbortController();
    const pages: ChangesPage[] = [];
    const started = Date.now();
    const following = (async () => {
      for await (const page of client.follow({
        after: from,
        types: ["products"],
        wait: 10,
        signal: controller.signal,
      })) {
        pages.push(page);
        if (page.data.length > 0) controller.abort();
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 500)); // the long poll is waiting on the server
    const applied = await applyChange(api.fx.db, api.fx.acme.orgId, { kind: "relabel", pick: 3, salt: 7 });
    expect(applied).toBeDefined();
    await following; // ends cleanly once aborted
    expect(Date.now() - started).toBeLessThan(9_000);
    const events = pages.flatMap((p) => p.data);
    expect(events.length).toBeGreaterThan(0);
    expect(events[0]).toMatchObject({ type: "products", op: "upsert", id: applied!.id });
    expect(Number(pages.at(-1)!.cursor)).toBeGreaterThan(Number(from));
  });

  it("asks again at once while a page says hasMore, one page per request", async () => {
    const { end } = await readAll(client.export("channels"));
    const from = (end as { cursor: string }).cursor;
    for (const salt of [1, 2, 3])
      await applyChange(api.fx.db, api.fx.acme.orgId, { kind: "relabel", pick: salt, salt });
    const controller = new AbortController();
    const pages: ChangesPage[] = [];
    const started = Date.now();
    for await (const page of client.follow({ after: from, limit: 1, wait: 20, signal: controller.signal })) {
      pages.push(page);
      if (!page.hasMore) controller.abort();
    }
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(pages.length).toBeGreaterThanOrEqual(3);
    expect(pages.every((p) => p.data.length === 1)).toBe(true);
    expect(pages.slice(0, -1).every((p) => p.hasMore)).toBe(true);
    const cursors = pages.map((p) => Number(p.cursor));
    expect(cursors).toEqual([...cursors].sort((a, b) => a - b));
  });

  it("ends a follow aborted while it waits on the server, without an error", async () => {
    const page = await client.changes({ after: "0", limit: 1 });
    const controller = new AbortController();
    const tail = await client.changes({ after: page.cursor, limit: 1000 });
    let last = tail;
    while (last.hasMore) last = await client.changes({ after: last.cursor, limit: 1000 });
    const started = Date.now();
    setTimeout(() => controller.abort(), 300);
    const got: ChangesPage[] = [];
    for await (const p of client.follow({ after: last.cursor, wait: 20, signal: controller.signal }))
      got.push(p);
    expect(got).toEqual([]);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("types a cursor past the retention: 410 PUBLIC_API_CURSOR_EXPIRED", async () => {
    await applyChange(api.fx.db, api.fx.acme.orgId, { kind: "relabel", pick: 5, salt: 2 });
    // Every event of the organization committed 40 days ago: the retention prunes them all.
    await api.fx.db.query(
      "update catalog_change_commits set at = now() - interval '40 days' where org_id = $1",
      [api.fx.acme.orgId],
    );
    expect(await pruneChanges(api.fx.db, api.fx.config.CHANGES_RETENTION_DAYS)).toBeGreaterThan(0);
    const expired = await client.changes({ after: "1" }).catch((e: unknown) => e);
    expect(expired).toBeInstanceOf(CatalogApiError);
    expect((expired as CatalogApiError).status).toBe(410);
    expect((expired as CatalogApiError).code).toBe("PUBLIC_API_CURSOR_EXPIRED");
  });
});
