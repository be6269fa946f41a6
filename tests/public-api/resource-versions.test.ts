// Each list's page-cache entries follow the organization's version of what that list shows (migration 0011), and
// its tag the bytes of its answer, on PGlite and on the Postgres server. A write then changes the tags of the
// answers that show it, and only those; the lists of its resource whose answers it leaves as they were are built
// again and keep their tags (a 304); every other list keeps its tag and its cache entry, not built again.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, type ApiResponse } from "../support/api";
import { postProduct, setupWritePreview, type WriteFixture } from "../support/write-preview";
import { apiState } from "@/lib/public-api/state";

describe.each(["pglite", "pg"] as const)("a version per resource on %s", (driver) => {
  let w: WriteFixture;
  const acme = () => w.f.acme.full;
  const get = (path: string, key: string | null = acme(), headers: Record<string, string> = {}) =>
    call(path, { key, headers });
  const tagOf = (res: ApiResponse) => res.headers.get("etag")!;
  const q = (sql: string, params: unknown[] = []) => w.f.db.query(sql, params);
  let lists: Record<string, string>;
  let channel: string;

  beforeAll(async () => {
    w = await setupWritePreview(driver);
    const org = w.f.acme.orgId;
    ({ channel_id: channel } = await w.one<{ channel_id: string }>(
      `select pv.channel_id from product_values pv join attributes a on a.id = pv.attribute_id
        where pv.org_id = $1 and a.code = 'name' and pv.channel_id is not null limit 1`,
      [org],
    ));
    lists = {
      products: "/public/v1/products",
      "products of an empty filter": "/public/v1/products?familyId=fam_none",
      "products in a channel": `/public/v1/products?channelId=${channel}&perPage=100`,
      families: "/public/v1/families",
      attributes: "/public/v1/attributes",
      "attributes of a family": `/public/v1/attributes?familyId=${w.familyId}&perPage=100`,
      categories: "/public/v1/categories",
      media: "/public/v1/media",
      "orphan media": "/public/v1/media?orphansOnly=true&perPage=100",
    };
  }, 120_000);
  afterAll(async () => {
    await w?.f.close();
  });
  // A product created, changed or deleted: the lists of products it is in change; the empty one is built again.
  const PRODUCT_CHANGE = {
    changed: ["products", "products in a channel"],
    rebuilt: ["products of an empty filter"],
  };

  // Reads every list, makes the change, reads each again with its old tag. The lists in `changed` answer a 200 with
  // a new tag and another body, which a poll then revalidates; every other list answers 304 to its old tag: those in
  // `rebuilt` (the version of their resource moved) were built again and found unchanged, the others were answered
  // from their page-cache entry without being built.
  async function expectMoves(
    change: () => Promise<unknown>,
    expected: { changed: string[]; rebuilt?: string[] },
  ): Promise<void> {
    const before: Record<string, ApiResponse> = {};
    for (const [name, path] of Object.entries(lists)) {
      const res = await get(path);
      expect(res.status, name).toBe(200);
      before[name] = res;
    }
    await change();
    const seen = { changed: [] as string[], rebuilt: [] as string[] };
    for (const [name, path] of Object.entries(lists)) {
      const misses = w.f.runtime.part(apiState).pages.stats().misses;
      const res = await get(path, acme(), { "if-none-match": tagOf(before[name]!) });
      const built = w.f.runtime.part(apiState).pages.stats().misses > misses;
      if (res.status === 200) {
        expect(tagOf(res), name).not.toBe(tagOf(before[name]!));
        expect(res.body, name).not.toEqual(before[name]!.body);
        expect((await get(path, acme(), { "if-none-match": tagOf(res) })).status, name).toBe(304);
        seen.changed.push(name);
      } else {
        expect(res.status, name).toBe(304);
        expect(tagOf(res), name).toBe(tagOf(before[name]!));
        const again = await get(path);
        expect(again.body, name).toEqual(before[name]!.body);
        expect(again.headers.get("server-timing"), name).toBe("page-cache;desc=hit");
        if (built) seen.rebuilt.push(name);
      }
    }
    expect(seen.changed.sort()).toEqual([...expected.changed].sort());
    expect(seen.rebuilt.sort()).toEqual([...(expected.rebuilt ?? [])].sort());
  }

  const productSql = (identifier: string) =>
    q(
      `insert into products (id, org_id, identifier, label, family_id, category_id)
       values ($1, $2, $3, 'Produit SQL', $4, $5)`,
      [`prd_rv_${identifier}`, w.f.acme.orgId, identifier, w.familyId, w.categoryId],
    );

  it("a product created through the write preview changes the product lists it is in, and only those", async () => {
    await expectMoves(async () => {
      expect((await postProduct(w.writer, w.body())).status).toBe(201);
    }, PRODUCT_CHANGE);
  });

  it("a product inserted, updated and deleted with plain SQL changes the product lists it is in, and only those", async () => {
    const sku = w.sku();
    await expectMoves(() => productSql(sku), PRODUCT_CHANGE);
    await expectMoves(
      () =>
        q("update products set label = 'Renommé en SQL', updated_at = now() where identifier = $1", [sku]),
      PRODUCT_CHANGE,
    );
    await expectMoves(() => q("delete from products where identifier = $1", [sku]), PRODUCT_CHANGE);
  });

  it("a family's label changes the families and the products of that family (product items show it)", async () => {
    await expectMoves(
      () =>
        q("update families set label = label || ' (bis)', updated_at = now() where id = $1", [w.familyId]),
      { changed: ["families", ...PRODUCT_CHANGE.changed], rebuilt: PRODUCT_CHANGE.rebuilt },
    );
  });

  it("a family–attribute link changes that family's attributes (the familyId filter), not the whole list", async () => {
    await expectMoves(
      () =>
        q(
          `insert into family_attributes (org_id, family_id, attribute_id)
           select $1, $2, id from attributes where org_id = $1 and code = $3`,
          [w.f.acme.orgId, w.familyId, w.outsider],
        ),
      { changed: ["attributes of a family"], rebuilt: ["attributes"] },
    );
  });

  it("a link to an orphan media changes the orphans (orphansOnly), not the whole list", async () => {
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
      { changed: ["orphan media"], rebuilt: ["media"] },
    );
  });

  it("a category's label changes the categories and the products in it; its move under another, categories only", async () => {
    const [c] = (await q(
      `select c.id, (select o.id from categories o where o.org_id = c.org_id and o.id <> c.id
                       and o.parent_id is distinct from c.id order by o.id limit 1) as parent
         from categories c where c.org_id = $1 and c.id = $2`,
      [w.f.acme.orgId, w.categoryId],
    )) as { id: string; parent: string }[];
    await expectMoves(
      () => q("update categories set label = label || ' (bis)', updated_at = now() where id = $1", [c!.id]),
      { changed: ["categories", ...PRODUCT_CHANGE.changed], rebuilt: PRODUCT_CHANGE.rebuilt },
    );
    await expectMoves(
      () => q("update categories set parent_id = $2, updated_at = now() where id = $1", [c!.id, c!.parent]),
      { changed: ["categories"] },
    );
  });

  it("a product's name in a channel changes the channel's list only; the others are built again", async () => {
    const shown = (await get(lists["products in a channel"]!)).body.data.map((p: { id: string }) => p.id);
    const { product_id } = await w.one<{ product_id: string }>(
      `select pv.product_id from product_values pv join attributes a on a.id = pv.attribute_id
        where pv.org_id = $1 and pv.channel_id = $2 and a.code = 'name' and pv.product_id = any($3)
        order by pv.product_id limit 1`,
      [w.f.acme.orgId, channel, shown],
    );
    await expectMoves(
      () =>
        q(
          `update product_values set value = to_jsonb('Nom modifié dans le canal'::text)
            where org_id = $1 and channel_id = $2 and product_id = $3
              and attribute_id = (select id from attributes where org_id = $1 and code = 'name')`,
          [w.f.acme.orgId, channel, product_id],
        ),
      { changed: ["products in a channel"], rebuilt: ["products", "products of an empty filter"] },
    );
  });

  it("another organization's writes change none of this one's tags, and build none of its pages again", async () => {
    const other = w.f.globex.orgId;
    await expectMoves(
      async () => {
        await q("update products set label = label || ' x', updated_at = now() where org_id = $1", [other]);
        await q("update families set label = label || ' x' where org_id = $1", [other]);
        await q("update categories set label = label || ' x' where org_id = $1", [other]);
        await q("update attributes set label = label || ' x' where org_id = $1", [other]);
        await q("update media set original_name = original_name || ' x' where org_id = $1", [other]);
        await q("delete from family_attributes where org_id = $1", [other]);
      },
      { changed: [] },
    );
  });
});
