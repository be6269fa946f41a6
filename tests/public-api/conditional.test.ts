// Built for syncing (issue 15), on PGlite and on the Postgres server: the lists' ETag and 304, and the page cache. A
// tag is exact for its answer (issue 37): it changes with every change the answer shows, and a write that leaves the
// answer as it was leaves its tag valid, with the page cache on or off; a 304 is never given to a key that may not
// read the list. updatedSince: updated-since.test.ts; the versions per resource: resource-versions.test.ts; the same
// over HTTP for the five lists and the details: exact-etags.test.ts.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { createRuntime, setRuntime } from "@/lib/runtime";
import { RESOURCES, call, type ApiResponse } from "../support/api";
import { postProduct, setupWritePreview, type WriteFixture } from "../support/write-preview";
import { apiState } from "@/lib/public-api/state";

describe.each(["pglite", "pg"] as const)("conditional lists on %s", (driver) => {
  let w: WriteFixture;
  const acme = () => w.f.acme.full;
  const get = (path: string, key: string | null = acme(), headers: Record<string, string> = {}) =>
    call(path, { key, headers });
  const tagOf = (res: ApiResponse) => res.headers.get("etag")!;
  const q = (sql: string, params: unknown[] = []) => w.f.db.query(sql, params);

  // A change made, then the list's tag read again: it must differ from the one before.
  async function expectNewTag(path: string, change: () => Promise<unknown>): Promise<void> {
    const before = await get(path);
    expect(before.status).toBe(200);
    expect((await get(path, acme(), { "if-none-match": tagOf(before) })).status).toBe(304);
    await change();
    const after = await get(path, acme(), { "if-none-match": tagOf(before) });
    expect(after.status).toBe(200);
    expect(tagOf(after)).not.toBe(tagOf(before));
    expect(after.body).not.toEqual(before.body);
  }

  beforeAll(async () => {
    w = await setupWritePreview(driver);
  }, 120_000);
  afterAll(async () => {
    await w?.f.close();
  });

  it.each(RESOURCES)(
    "%s: a strong ETag, then 304 with the tag, the request id and the quota, no body",
    async (r) => {
      const first = await get(`/public/v1/${r}`);
      expect(first.status).toBe(200);
      const tag = tagOf(first);
      expect(tag).toMatch(/^"[\w-]{32}"$/);
      expect(first.headers.get("cache-control")).toBe("private, no-cache");
      expect(first.headers.get("vary")).toBe("Authorization");
      const res = await get(`/public/v1/${r}`, acme(), { "if-none-match": tag });
      expect(res.status).toBe(304);
      expect(res.body).toBeUndefined();
      expect(res.headers.get("etag")).toBe(tag);
      expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.headers.get("content-type")).toBeNull();
      expect(res.headers.get("cache-control")).toBe("private, no-cache");
      // It counted against the key's quota, like every authenticated request.
      const remaining = Number(first.headers.get("x-ratelimit-remaining"));
      expect(Number(res.headers.get("x-ratelimit-remaining"))).toBe(remaining - 1);
      expect(res.headers.get("ratelimit")).toMatch(/^"default";r=\d+;t=\d+$/);
    },
  );

  it("matches one of several tags, a weak form of the tag and *; not another tag", async () => {
    const tag = tagOf(await get("/public/v1/families"));
    for (const header of [`"nope", ${tag}`, `W/${tag}`, "*"])
      expect((await get("/public/v1/families", acme(), { "if-none-match": header })).status).toBe(304);
    expect((await get("/public/v1/families", acme(), { "if-none-match": '"nope"' })).status).toBe(200);
    const head = await call("/public/v1/families", {
      key: acme(),
      method: "HEAD",
      headers: { "if-none-match": tag },
    });
    expect(head.status).toBe(304);
  });

  it("one tag for one query however it is written; another for another query", async () => {
    const a = tagOf(await get("/public/v1/products?page=1"));
    expect(tagOf(await get("/public/v1/products?perPage=20&page=1"))).toBe(a);
    expect(tagOf(await get("/public/v1/products?sort=updatedAt.desc"))).toBe(a);
    expect(tagOf(await get("/public/v1/products?perPage=21"))).not.toBe(a);
    expect(tagOf(await get("/public/v1/families?page=1"))).not.toBe(a);
    const utc = tagOf(await get("/public/v1/products?updatedSince=2026-01-01T10:00:00.000Z"));
    expect(tagOf(await get("/public/v1/products?updatedSince=2026-01-01T12:00%2B02:00"))).toBe(utc);
  });

  it("never a 304 to a revoked key, a key without the scope or a key of another organization", async () => {
    const tag = tagOf(await get("/public/v1/products"));
    const h = { "if-none-match": tag };
    expect((await get("/public/v1/products", w.f.acme.revoked, h)).status).toBe(401);
    expect((await get("/public/v1/products", w.f.acme.without.products, h)).status).toBe(403);
    expect((await get("/public/v1/products", null, h)).status).toBe(401);
    const other = await get("/public/v1/products", w.f.globex.full, h);
    expect(other.status).toBe(200);
    expect(tagOf(other)).not.toBe(tag);
    expect(JSON.stringify(other.body)).not.toContain(w.f.acme.orgId);
  });

  it("a 304 reads only the catalog version: no page query, no count", async () => {
    const statements: string[] = [];
    const db = w.f.db;
    const counting: Database = {
      ...db,
      query: (sql, params) => {
        statements.push(sql);
        return db.query(sql, params);
      },
      // Under row security (DB_ROW_SECURITY=on) the request's statements go this way.
      withLocalSettings: (settings, opts) => {
        const scoped = db.withLocalSettings(settings, opts);
        return {
          query: (sql, params) => {
            statements.push(sql);
            return scoped.query(sql, params);
          },
        };
      },
    };
    const rt = createRuntime(w.f.config, counting);
    setRuntime(rt);
    try {
      const first = await get("/public/v1/products?q=chaise&perPage=7");
      statements.length = 0;
      const res = await get("/public/v1/products?q=chaise&perPage=7", acme(), {
        "if-none-match": tagOf(first),
      });
      expect(res.status).toBe(304);
      expect(statements).toHaveLength(1);
      expect(statements[0]).toMatch(/catalog_resource_versions/);
      // The same page without the tag: served whole from the page cache, for the same one statement.
      statements.length = 0;
      const again = await get("/public/v1/products?q=chaise&perPage=7");
      expect(again.body).toEqual(first.body);
      expect(again.headers.get("server-timing")).toBe("page-cache;desc=hit");
      expect(statements).toHaveLength(1);
    } finally {
      setRuntime(w.f.runtime);
      await rt.close();
    }
  });

  it("the page cache serves the same bytes until the organization's first change", async () => {
    const path = "/public/v1/attributes?perPage=5";
    const a = await call(path, { key: acme() });
    const b = await call(path, { key: acme() });
    expect(b.headers.get("server-timing")).toBe("page-cache;desc=hit");
    expect(b.body).toEqual(a.body);
    await q("update attributes set label = label || ' (modifié)', updated_at = now() where id = $1", [
      a.body.data[0].id,
    ]);
    const c = await call(path, { key: acme() });
    expect(c.headers.get("server-timing")).toBe("page-cache;desc=miss");
    expect(c.body.data[0].label).toMatch(/\(modifié\)$/);
  });

  it("a new tag after a product is created, updated and deleted", async () => {
    await expectNewTag("/public/v1/products?sort=updatedAt.desc", () => postProduct(w.writer, w.body()));
    const id = (await get("/public/v1/products?sort=identifier.asc&perPage=100")).body.data[0].id;
    await expectNewTag("/public/v1/products?sort=identifier.asc&perPage=100", () =>
      q("update products set label = 'Renommé', updated_at = now() where id = $1", [id]),
    );
    const created = await postProduct(w.writer, w.body());
    await expectNewTag("/public/v1/products?sort=updatedAt.desc", () =>
      q("delete from products where id = $1", [created.body.id]),
    );
  });

  it("a new tag after a family label shown in product items changes", async () => {
    const list = await get("/public/v1/products?perPage=1");
    const familyId = list.body.data[0].family.id;
    await expectNewTag("/public/v1/products?perPage=1", () =>
      q("update families set label = label || ' bis' where id = $1", [familyId]),
    );
  });

  it("a new tag after a product's name in a channel changes, read with channelId", async () => {
    const [row] = await q(
      `select pv.product_id, pv.channel_id from product_values pv join attributes a on a.id = pv.attribute_id
        where pv.org_id = $1 and a.code = 'name' and pv.channel_id is not null limit 1`,
      [w.f.acme.orgId],
    );
    const { product_id, channel_id } = row as { product_id: string; channel_id: string };
    const { identifier } = await w.one<{ identifier: string }>(
      "select identifier from products where id = $1",
      [product_id],
    );
    await expectNewTag(`/public/v1/products?channelId=${channel_id}&q=${identifier}`, () =>
      q(
        `update product_values set value = to_jsonb('Nom du canal modifié'::text)
          where product_id = $1 and channel_id = $2
            and attribute_id = (select id from attributes where org_id = $3 and code = 'name')`,
        [product_id, channel_id, w.f.acme.orgId],
      ),
    );
  });

  it("a new tag after a media link goes, for orphansOnly", async () => {
    const [link] = await q(
      `select l.media_id from media_links l join media m on m.id = l.media_id
        where l.org_id = $1 and m.is_public limit 1`,
      [w.f.acme.orgId],
    );
    await expectNewTag("/public/v1/media?orphansOnly=true&perPage=100", () =>
      q("delete from media_links where media_id = $1", [(link as { media_id: string }).media_id]),
    );
  });

  it("the same tag after a change of another organization", async () => {
    const before = await get("/public/v1/products");
    await q("update products set label = label || ' x', updated_at = now() where org_id = $1", [
      w.f.globex.orgId,
    ]);
    const after = await get("/public/v1/products", acme(), { "if-none-match": tagOf(before) });
    expect(after.status).toBe(304);
  });

  // Issue 37, row 2: the tag was the products' version, so a product created in family A gave `?familyId=B` a
  // new tag and a 200 of the same bytes.
  describe("a tag exact for its answer", () => {
    let path: string;
    beforeAll(async () => {
      const other = await w.one<{ id: string }>(
        "select id from families where org_id = $1 and id <> $2 order by code limit 1",
        [w.f.acme.orgId, w.familyId],
      );
      path = `/public/v1/products?familyId=${other.id}&perPage=5`;
    });

    // A product created in the fixture's family leaves the other family's page as it was: 304 to its tag; the
    // product then moved into that family changes the page: 200, a new tag, which a poll then revalidates.
    async function expectExact(): Promise<void> {
      const before = await get(path);
      expect(before.status).toBe(200);
      const created = await postProduct(w.writer, w.body());
      expect(created.status).toBe(201);
      const same = await get(path, acme(), { "if-none-match": tagOf(before) });
      expect(same.status).toBe(304);
      expect(tagOf(same)).toBe(tagOf(before));
      const again = await get(path);
      expect(again.body).toEqual(before.body);
      expect(tagOf(again)).toBe(tagOf(before));
      await q("update products set family_id = $2, updated_at = now() where id = $1", [
        created.body.id,
        pathFamily(),
      ]);
      const changed = await get(path, acme(), { "if-none-match": tagOf(before) });
      expect(changed.status).toBe(200);
      expect(tagOf(changed)).not.toBe(tagOf(before));
      expect(changed.body.pagination.total).toBe(before.body.pagination.total + 1);
      expect((await get(path, acme(), { "if-none-match": tagOf(changed) })).status).toBe(304);
    }
    const pathFamily = () => new URL(path, "http://x").searchParams.get("familyId")!;

    it("a write elsewhere in the resource leaves the tag valid; a write to the answer changes it", async () => {
      await expectExact();
    });

    it("the same with the page cache off (PAGE_CACHE_MAX_ENTRIES=0)", async () => {
      const rt = createRuntime({ ...w.f.config, PAGE_CACHE_MAX_ENTRIES: 0 }, w.f.db);
      setRuntime(rt);
      try {
        await expectExact();
        expect(rt.part(apiState).pages.stats()).toMatchObject({ hits: 0, entries: 0 });
      } finally {
        setRuntime(w.f.runtime);
        await rt.close();
      }
    });
  });

  it("an error answer carries no tag", async () => {
    const res = await get(`/public/v1/products?channelId=${randomUUID()}`);
    expect(res.status).toBe(400);
    expect(res.headers.get("etag")).toBeNull();
    expect(res.headers.get("cache-control")).toBe("private, no-store");
  });
});
