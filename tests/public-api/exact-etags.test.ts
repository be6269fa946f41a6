// Tags exact for their answers, checked from outside as a client sees them: HTTP to npm start's API host
// (lib/server/api-host.ts) on a real port, in front of the router, on PGlite and on the Postgres server, with the
// page cache on and off. For each of the five lists (filtered) and each detail (preview `details`): a write that
// moves the version of the resource but leaves that answer as it was keeps the answer's tag valid (304, the answer
// built again to know it); a write that changes the answer gives a 200 with a new tag, which the next poll
// revalidates. Writes are made with plain SQL, as the product-information application makes them (triggers move the
// versions), and for products through the write preview too (POST /public/v1/products over the same HTTP).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { publicApi } from "@/lib/public-api/router";
import { createRuntime, setRuntime, type Runtime } from "@/lib/runtime";
import { createApiHost } from "@/lib/server/api-host";
import { setupWritePreview, type WriteFixture } from "../support/write-preview";
import { apiState } from "@/lib/public-api/state";

describe.each([
  ["pglite", "on"],
  ["pg", "on"],
  ["pg", "off"],
] as const)("exact ETags over HTTP on %s, page cache %s", (driver, cache) => {
  let w: WriteFixture;
  let rt: Runtime;
  let server: http.Server;
  let base = "";
  const org = () => w.f.acme.orgId;
  const q = (sql: string, params: unknown[] = []) => w.f.db.query(sql, params);
  const id = async (sql: string, params: unknown[] = []) => (await w.one<{ id: string }>(sql, params)).id;

  beforeAll(async () => {
    w = await setupWritePreview(driver, { PUBLIC_API_PREVIEW: "details" });
    rt = createRuntime(
      { ...w.f.config, PAGE_CACHE_MAX_ENTRIES: cache === "on" ? w.f.config.PAGE_CACHE_MAX_ENTRIES : 0 },
      w.f.db,
    );
    setRuntime(rt);
    const host = createApiHost((request) => publicApi.answer(request), { compress: false });
    server = http.createServer((req, res) => host(req, res, req.url!));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 120_000);
  afterAll(async () => {
    if (server) await new Promise<void>((r) => server.close(() => r()));
    setRuntime(w?.f.runtime);
    await rt?.close();
    await w?.f.close();
  });

  // A request as a client sends it: acme's key, and the tag it holds if any.
  const get = (path: string, tag?: string, method = "GET") =>
    fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${w.f.acme.full}`, ...(tag ? { "if-none-match": tag } : {}) },
    });

  // The answer's tag and body; `unchanged` leaves the answer as it was (304 to its tag, the answer built again:
  // its resource's version moved), `changes` changes it (200, a new tag and body, then 304 to that tag).
  async function expectExact(
    path: string,
    unchanged: () => Promise<unknown>,
    changes: () => Promise<unknown>,
  ): Promise<void> {
    const first = await get(path);
    expect(first.status, path).toBe(200);
    const tag = first.headers.get("etag")!;
    const body = await first.text();
    await unchanged();
    const misses = rt.part(apiState).pages.stats().misses;
    const same = await get(path, tag);
    expect(same.status, path).toBe(304);
    expect(same.headers.get("etag"), path).toBe(tag);
    expect(await same.text(), path).toBe("");
    expect(rt.part(apiState).pages.stats().misses, `${path} was built again`).toBe(misses + 1);
    const head = await get(path, tag, "HEAD");
    expect(head.status, path).toBe(304);
    await changes();
    const changed = await get(path, tag);
    expect(changed.status, path).toBe(200);
    const newTag = changed.headers.get("etag")!;
    expect(newTag, path).toMatch(/^"[\w-]{32}"$/);
    expect(newTag, path).not.toBe(tag);
    expect(await changed.text(), path).not.toBe(body);
    expect((await get(path, newTag)).status, path).toBe(304);
  }

  const insertProduct = (familyId: string, categoryId: string) =>
    q(
      `insert into products (id, org_id, identifier, label, family_id, category_id)
       values ($1, $2, $3, 'Produit SQL', $4, $5)`,
      [`prd_x_${w.sku()}`, org(), w.sku(), familyId, categoryId],
    );
  const otherFamily = () =>
    id("select id from families where org_id = $1 and id <> $2 order by code limit 1", [org(), w.familyId]);

  it("products, written with SQL: a product of another family leaves ?familyId= as it was", async () => {
    const family = await otherFamily();
    await expectExact(
      `/public/v1/products?familyId=${family}&perPage=5`,
      () => insertProduct(w.familyId, w.categoryId),
      () => insertProduct(family, w.categoryId),
    );
  });

  it("products, written through the write preview: a product of another category leaves ?categoryId=", async () => {
    const category = await id(
      "select id from categories where org_id = $1 and id <> $2 order by slug limit 1",
      [org(), w.categoryId],
    );
    const post = async (categoryId: string) => {
      const res = await fetch(`${base}/public/v1/products`, {
        method: "POST",
        headers: { authorization: `Bearer ${w.writer}`, "content-type": "application/json" },
        body: JSON.stringify(w.body({}, { categoryId })),
      });
      expect(res.status, await res.text()).toBe(201);
    };
    await expectExact(
      `/public/v1/products?familyId=${w.familyId}&categoryId=${category}&perPage=5`,
      () => post(w.categoryId),
      () => post(category),
    );
  });

  it("families: another family's label leaves ?q= of one family as it was", async () => {
    const family = await w.one<{ id: string; code: string }>(
      "select id, code from families where org_id = $1 order by code desc limit 1",
      [org()],
    );
    const path = `/public/v1/families?q=${encodeURIComponent(family.code)}`;
    const found = (await (await get(path)).json()) as { data: { id: string }[] };
    expect(found.data.map((f) => f.id)).toEqual([family.id]);
    await expectExact(
      path,
      () =>
        q("update families set label = label || ' (bis)', updated_at = now() where id = $1", [w.familyId]),
      () => q("update families set label = label || ' (bis)', updated_at = now() where id = $1", [family.id]),
    );
  });

  it("attributes: an attribute attached to another family leaves ?familyId= as it was", async () => {
    const family = await otherFamily();
    const outsider = await id(
      `select id from attributes a where org_id = $1 and not exists (select 1 from family_attributes fa
         where fa.attribute_id = a.id and fa.family_id in ($2, $3)) order by code limit 1`,
      [org(), w.familyId, family],
    );
    const attach = (familyId: string) =>
      q("insert into family_attributes (org_id, family_id, attribute_id) values ($1, $2, $3)", [
        org(),
        familyId,
        outsider,
      ]);
    await expectExact(
      `/public/v1/attributes?familyId=${family}&perPage=100`,
      () => attach(w.familyId),
      () => attach(family),
    );
  });

  it("categories: a category elsewhere in the tree leaves ?parentId= as it was", async () => {
    const parent = await id(
      `select parent_id as id from categories where org_id = $1 and parent_id is not null
        group by parent_id order by parent_id limit 1`,
      [org()],
    );
    const child = await id("select id from categories where parent_id = $1 order by slug limit 1", [parent]);
    const elsewhere = await id(
      "select id from categories where org_id = $1 and parent_id is distinct from $2 order by slug limit 1",
      [org(), parent],
    );
    const relabel = (categoryId: string) =>
      q("update categories set label = label || ' (bis)', updated_at = now() where id = $1", [categoryId]);
    await expectExact(
      `/public/v1/categories?parentId=${parent}`,
      () => relabel(elsewhere),
      () => relabel(child),
    );
  });

  it("media: a linked media renamed leaves ?orphansOnly=true as it was; an orphan linked changes it", async () => {
    const linked = await id(
      "select id from media where org_id = $1 and is_public and link_count > 0 order by id limit 1",
      [org()],
    );
    const orphan = await id(
      "select id from media where org_id = $1 and is_public and link_count = 0 order by id limit 1",
      [org()],
    );
    const product = await id("select id from products where org_id = $1 order by id limit 1", [org()]);
    await expectExact(
      "/public/v1/media?orphansOnly=true&perPage=100",
      () =>
        q("update media set original_name = 'renommé-' || original_name, updated_at = now() where id = $1", [
          linked,
        ]),
      () =>
        q("insert into media_links (org_id, media_id, product_id) values ($1, $2, $3)", [
          org(),
          orphan,
          product,
        ]),
    );
  });

  it("details: another item's change leaves a product, a family and an attribute read whole as they were", async () => {
    const [product, other] = (await q("select id from products where org_id = $1 order by id limit 2", [
      org(),
    ])) as { id: string }[];
    const relabel = (table: string, rowId: string) =>
      q(`update ${table} set label = label || ' (bis)', updated_at = now() where id = $1`, [rowId]);
    await expectExact(
      `/public/v1/products/${product!.id}`,
      () => relabel("products", other!.id),
      () => relabel("products", product!.id),
    );
    const [attribute, another] = (await q(
      `select a.id from attributes a where org_id = $1 and not exists
         (select 1 from family_attributes fa where fa.attribute_id = a.id and fa.family_id = $2)
       order by code limit 2`,
      [org(), w.familyId],
    )) as { id: string }[];
    await expectExact(
      `/public/v1/families/${w.familyId}`,
      () => relabel("attributes", attribute!.id),
      () => relabel("families", w.familyId),
    );
    await expectExact(
      `/public/v1/attributes/${attribute!.id}`,
      () => relabel("attributes", another!.id),
      () => relabel("attributes", attribute!.id),
    );
  });
});
