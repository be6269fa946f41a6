// Built for syncing (issue 15), on PGlite and on the Postgres server: the lists' ETag and 304, the page cache, and
// updatedSince. A tag changes with every change a list shows and with nothing else; a 304 is never given to a key
// that may not read the list; updatedSince is inclusive to the millisecond, in any time zone.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { createRuntime, setRuntime } from "@/lib/runtime";
import { RESOURCES, call, type ApiResponse } from "../support/api";
import { postProduct, setupWritePreview, type WriteFixture } from "../support/write-preview";

describe.each(["pglite", "pg"] as const)("conditional lists and updatedSince on %s", (driver) => {
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

  describe("updatedSince", () => {
    let id: string;
    const at = "2031-03-04T05:06:07.089Z"; // later than every seeded product
    beforeAll(async () => {
      const created = await postProduct(w.writer, w.body());
      id = created.body.id;
      await q("update products set updated_at = $2::timestamptz where id = $1", [id, at]);
    });
    const ids = async (query: string) =>
      (await get(`/public/v1/products?${query}`)).body.data.map((p: { id: string }) => p.id);

    it("includes the equal instant, excludes one millisecond later, in any time zone", async () => {
      expect(await ids(`updatedSince=${at}`)).toEqual([id]);
      expect(await ids("updatedSince=2031-03-04T05:06:07.090Z")).toEqual([]);
      expect(await ids(`updatedSince=${encodeURIComponent("2031-03-04T07:06:07.089+02:00")}`)).toEqual([id]);
      expect(await ids(`updatedSince=${encodeURIComponent("2031-03-03T23:36:07.089-05:30")}`)).toEqual([id]);
      expect(await ids(`updatedSince=${encodeURIComponent("2031-03-04T07:06:07.090+02:00")}`)).toEqual([]);
      expect(await ids("updatedSince=2031-03-04T05:06Z")).toEqual([id]);
    });

    it("combines with filters, sorts and search, and pages past the end with the true total", async () => {
      const [p] = (await q("select identifier, family_id from products where id = $1", [id])) as {
        identifier: string;
        family_id: string;
      }[];
      expect(
        await ids(`updatedSince=${at}&familyId=${p!.family_id}&sort=label.asc&q=${p!.identifier}`),
      ).toEqual([id]);
      const past = await get(`/public/v1/products?updatedSince=${at}&page=3&perPage=1`);
      expect(past.status).toBe(200);
      expect(past.body).toEqual({
        data: [],
        pagination: { page: 3, perPage: 1, total: 1, totalPages: 1, hasAny: true },
      });
      const recent = await get("/public/v1/products?updatedSince=2000-01-01T00:00:00Z&perPage=1");
      const all = await get("/public/v1/products?perPage=1");
      expect(recent.body.pagination.total).toBe(all.body.pagination.total);
    });

    it.each(RESOURCES)("%s takes it", async (r) => {
      const res = await get(`/public/v1/${r}?updatedSince=2000-01-01T00:00:00.000Z&perPage=1`);
      expect(res.status).toBe(200);
      const none = await get(`/public/v1/${r}?updatedSince=2099-01-01T00:00:00.000Z`);
      expect(none.body.pagination.total).toBe(0);
    });

    it.each([
      "2031-03-04",
      "2031-03-04T05:06:07",
      "2031-03-04T05:06:07.0891Z",
      "2031-02-30T00:00:00Z",
      "2031-03-04T24:00:00Z",
      "2031-03-04T05:06:07+2",
      "yesterday",
      "",
    ])("400 naming updatedSince for %j", async (v) => {
      const res = await get(`/public/v1/products?updatedSince=${encodeURIComponent(v)}`);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("PUBLIC_API_INVALID_QUERY");
      expect(res.body.message).toContain("« updatedSince »");
      expect(res.headers.get("etag")).toBeNull();
    });
  });

  // Issue 21, row 11: each list's tag follows the version of what that list shows (migration 0011), so a write
  // moves the tags of the lists that show it, and leaves the others' tags and page-cache entries in use.
  describe("a version per resource", () => {
    let lists: Record<string, string>;
    beforeAll(async () => {
      const org = w.f.acme.orgId;
      const { channel_id } = await w.one<{ channel_id: string }>(
        `select pv.channel_id from product_values pv join attributes a on a.id = pv.attribute_id
          where pv.org_id = $1 and a.code = 'name' and pv.channel_id is not null limit 1`,
        [org],
      );
      lists = {
        products: "/public/v1/products",
        "products of an empty filter": "/public/v1/products?familyId=fam_none",
        "products in a channel": `/public/v1/products?channelId=${channel_id}&perPage=100`,
        families: "/public/v1/families",
        attributes: "/public/v1/attributes",
        "attributes of a family": `/public/v1/attributes?familyId=${w.familyId}&perPage=100`,
        categories: "/public/v1/categories",
        media: "/public/v1/media",
        "orphan media": "/public/v1/media?orphansOnly=true&perPage=100",
      };
    });
    const PRODUCT_LISTS = ["products", "products of an empty filter", "products in a channel"];

    // Reads every list, makes the change, reads them again: the lists in `moved` answer a 200 with a new tag to
    // their old one; every other list answers 304 to its old tag and serves its page from the cache.
    async function expectMoves(change: () => Promise<unknown>, moved: string[]): Promise<void> {
      const before: Record<string, string> = {};
      for (const [name, path] of Object.entries(lists)) {
        const res = await get(path);
        expect(res.status, name).toBe(200);
        before[name] = tagOf(res);
      }
      await change();
      const seen: string[] = [];
      for (const [name, path] of Object.entries(lists)) {
        const res = await get(path, acme(), { "if-none-match": before[name]! });
        if (res.status === 200) {
          expect(tagOf(res), name).not.toBe(before[name]);
          seen.push(name);
        } else {
          expect(res.status, name).toBe(304);
          const again = await get(path);
          expect(tagOf(again), name).toBe(before[name]);
          expect(again.headers.get("server-timing"), name).toBe("page-cache;desc=hit");
        }
      }
      expect(seen.sort()).toEqual([...moved].sort());
    }

    const productSql = (identifier: string) =>
      q(
        `insert into products (id, org_id, identifier, label, family_id, category_id)
         values ($1, $2, $3, 'Produit SQL', $4, $5)`,
        [`prd_rv_${identifier}`, w.f.acme.orgId, identifier, w.familyId, w.categoryId],
      );

    it("a product created through the write preview moves the products' tags only", async () => {
      await expectMoves(async () => {
        expect((await postProduct(w.writer, w.body())).status).toBe(201);
      }, PRODUCT_LISTS);
    });

    it("a product inserted, updated and deleted with plain SQL moves the products' tags only", async () => {
      const sku = w.sku();
      await expectMoves(() => productSql(sku), PRODUCT_LISTS);
      await expectMoves(
        () =>
          q("update products set label = 'Renommé en SQL', updated_at = now() where identifier = $1", [sku]),
        PRODUCT_LISTS,
      );
      await expectMoves(() => q("delete from products where identifier = $1", [sku]), PRODUCT_LISTS);
    });

    it("a family's label moves the families' and the products' tags (product items show it)", async () => {
      await expectMoves(
        () =>
          q("update families set label = label || ' (bis)', updated_at = now() where id = $1", [w.familyId]),
        ["families", ...PRODUCT_LISTS],
      );
    });

    it("a family–attribute link moves the attributes' tags (the familyId filter)", async () => {
      await expectMoves(
        () =>
          q(
            `insert into family_attributes (org_id, family_id, attribute_id)
             select $1, $2, id from attributes where org_id = $1 and code = $3`,
            [w.f.acme.orgId, w.familyId, w.outsider],
          ),
        ["attributes", "attributes of a family"],
      );
    });

    it("a link to an orphan media moves the media's tags (orphansOnly)", async () => {
      const [m] = (await q(
        "select id from media where org_id = $1 and is_public and link_count = 0 order by id limit 1",
        [w.f.acme.orgId],
      )) as { id: string }[];
      const [p] = (await q("select id from products where org_id = $1 order by id limit 1", [
        w.f.acme.orgId,
      ])) as {
        id: string;
      }[];
      await expectMoves(
        () =>
          q("insert into media_links (org_id, media_id, product_id) values ($1, $2, $3)", [
            w.f.acme.orgId,
            m!.id,
            p!.id,
          ]),
        ["media", "orphan media"],
      );
    });

    it("a category's label moves the categories' and the products' tags; its move under another, categories' only", async () => {
      const [c] = (await q(
        `select c.id, (select o.id from categories o where o.org_id = c.org_id and o.id <> c.id
                         and o.parent_id is distinct from c.id order by o.id limit 1) as parent
           from categories c where c.org_id = $1 and c.id = $2`,
        [w.f.acme.orgId, w.categoryId],
      )) as { id: string; parent: string }[];
      await expectMoves(
        () => q("update categories set label = label || ' (bis)', updated_at = now() where id = $1", [c!.id]),
        ["categories", ...PRODUCT_LISTS],
      );
      await expectMoves(
        () => q("update categories set parent_id = $2, updated_at = now() where id = $1", [c!.id, c!.parent]),
        ["categories"],
      );
    });

    it("a product's name in a channel moves the products' tags only", async () => {
      await expectMoves(
        () =>
          q(
            `update product_values set value = to_jsonb('Nom modifié dans le canal'::text)
              where org_id = $1 and channel_id is not null
                and attribute_id = (select id from attributes where org_id = $1 and code = 'name')
                and product_id = (select product_id from product_values v where v.org_id = $1
                                    and v.channel_id is not null and v.attribute_id = product_values.attribute_id
                                  order by product_id limit 1)`,
            [w.f.acme.orgId],
          ),
        PRODUCT_LISTS,
      );
    });

    it("another organization's writes move none of this one's tags", async () => {
      const other = w.f.globex.orgId;
      await expectMoves(async () => {
        await q("update products set label = label || ' x', updated_at = now() where org_id = $1", [other]);
        await q("update families set label = label || ' x' where org_id = $1", [other]);
        await q("update categories set label = label || ' x' where org_id = $1", [other]);
        await q("update attributes set label = label || ' x' where org_id = $1", [other]);
        await q("update media set original_name = original_name || ' x' where org_id = $1", [other]);
        await q("delete from family_attributes where org_id = $1", [other]);
      }, []);
    });
  });

  // Issue 21, row 3: an instant outside the years 0001-9999 in UTC was a 500 on every list (Postgres refuses year 0
  // and year 10000); "yesterday" was refused with zod's English "Invalid input".
  describe("updatedSince within the years 0001 to 9999 in UTC", () => {
    const RANGE =
      "instant compris entre 0001-01-01T00:00:00Z et 9999-12-31T23:59:59.999Z en UTC attendu, en ISO 8601 avec fuseau horaire (ex. 2026-06-07T09:30:12.345Z)";
    const FORM = "date et heure ISO 8601 avec fuseau horaire attendue (ex. 2026-06-07T09:30:12.345Z)";
    const refused: [string, string][] = [
      ["0000-01-01T00:00:00Z", RANGE],
      ["0001-01-01T00:00:00+01:00", RANGE],
      ["0001-01-01T00:59:59.999+01:00", RANGE],
      ["9999-12-31T23:59:59.999-23:59", RANGE],
      ["9999-12-31T23:00:00-01:00", RANGE],
      ["yesterday", FORM],
      ["2031-02-30T00:00:00Z", FORM],
      ["", FORM],
    ];
    describe.each(RESOURCES)("/public/v1/%s", (r) => {
      it.each(refused)("400 in French for %j, naming the expected form", async (v, expected) => {
        const res = await get(`/public/v1/${r}?updatedSince=${encodeURIComponent(v)}`);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          statusCode: 400,
          error: "Bad Request",
          code: "PUBLIC_API_INVALID_QUERY",
          message: `Paramètre « updatedSince » invalide : ${expected} (reçu « ${v} »).`,
          requestId: expect.any(String),
        });
      });

      it("takes the first and the last instants of the range, in any time zone", async () => {
        const total = (await get(`/public/v1/${r}?perPage=1`)).body.pagination.total;
        for (const v of ["0001-01-01T00:00:00Z", "0001-01-01T00:00:00-01:00", "0001-01-01T01:00+01:00"]) {
          const res = await get(`/public/v1/${r}?perPage=1&updatedSince=${encodeURIComponent(v)}`);
          expect(res.status, v).toBe(200);
          expect(res.body.pagination.total, v).toBe(total);
        }
        for (const v of [
          "9999-12-31T23:59:59.999Z",
          "9999-12-31T23:59:59.999+23:59",
          "9999-12-31T22:59-01:00",
        ]) {
          const res = await get(`/public/v1/${r}?updatedSince=${encodeURIComponent(v)}`);
          expect(res.status, v).toBe(200);
          expect(res.body.pagination.total, v).toBe(0);
        }
      });
    });
  });

  it("an error answer carries no tag", async () => {
    const res = await get(`/public/v1/products?channelId=${randomUUID()}`);
    expect(res.status).toBe(400);
    expect(res.headers.get("etag")).toBeNull();
    expect(res.headers.get("cache-control")).toBe("private, no-store");
  });
});
