// Every filter, sort and search of the five list endpoints, checked against the seeded demo catalog.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, setupApi, type ApiFixture } from "../support/api";

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const FIELDS = {
  products: ["category", "family", "id", "identifier", "label", "status", "updatedAt"],
  families: ["code", "id", "label", "slug", "updatedAt"],
  attributes: ["code", "id", "isScopable", "label", "slug", "type", "uniqueValue", "updatedAt"],
  categories: ["id", "isMaster", "label", "parentId", "slug", "updatedAt"],
  media: ["category", "id", "mediaUrl", "originalName", "slug", "thumbnailUrl", "type", "updatedAt"],
} as const;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Item = Record<string, any>;

describe.each(["pglite", "pg"] as const)("list endpoints on %s", (driver) => {
  let fx: ApiFixture;
  let key: string;
  let org: string;
  const get = (path: string) => call(path, { key });
  // Every item of a list, walking all pages.
  async function all(path: string, perPage = 100): Promise<{ items: Item[]; total: number }> {
    const items: Item[] = [];
    const sep = path.includes("?") ? "&" : "?";
    const first = await get(`${path}${sep}perPage=${perPage}&page=1`);
    expect(first.status).toBe(200);
    items.push(...first.body.data);
    for (let page = 2; page <= first.body.pagination.totalPages; page++) {
      const res = await get(`${path}${sep}perPage=${perPage}&page=${page}`);
      expect(res.status).toBe(200);
      expect(res.body.pagination.total).toBe(first.body.pagination.total);
      items.push(...res.body.data);
    }
    return { items, total: first.body.pagination.total };
  }
  const sql = async <T = Item>(text: string, params: unknown[] = []) => fx.db.query<T>(text, params);
  const ids = (items: Item[]) => items.map((i) => i.id as string).sort();

  beforeAll(async () => {
    fx = await setupApi(driver);
    key = fx.acme.full;
    org = fx.acme.orgId;
  });
  afterAll(async () => {
    await fx?.close();
  });

  it.each(Object.entries(FIELDS))("%s items have exactly the contract's fields", async (resource, fields) => {
    const res = await get(`/public/v1/${resource}?perPage=100`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.pagination).sort()).toEqual([
      "hasAny",
      "page",
      "perPage",
      "total",
      "totalPages",
    ]);
    for (const item of res.body.data) {
      expect(Object.keys(item).sort()).toEqual([...fields]);
      expect(item.updatedAt).toMatch(ISO_MS);
      expect(typeof item.id).toBe("string");
    }
  });

  it("defaults: page 1, perPage 20, sorted by updatedAt desc then id", async () => {
    const res = await get("/public/v1/products");
    expect(res.body.pagination.page).toBe(1);
    expect(res.body.pagination.perPage).toBe(20);
    expect(res.body.data).toHaveLength(20);
    const [{ total }] = (await sql<{ total: number }>(
      "select count(*)::int as total from products where org_id = $1",
      [org],
    )) as [{ total: number }];
    expect(res.body.pagination.total).toBe(total);
    expect(res.body.pagination.totalPages).toBe(Math.ceil(total / 20));
    const stamps = res.body.data.map((p: Item) => p.updatedAt);
    expect([...stamps].sort().reverse()).toEqual(stamps);
  });

  it.each(["updatedAt.desc", "label.asc", "identifier.desc", "status.asc,label.desc", "updatedAt.asc"])(
    "walking every page with sort=%s returns exactly total distinct products",
    async (sort) => {
      const { items, total } = await all(`/public/v1/products?sort=${sort}`);
      expect(items.length).toBe(total);
      expect(new Set(ids(items)).size).toBe(total);
    },
  );

  it("past the last page: empty data, true totals", async () => {
    const first = await get("/public/v1/families?perPage=7");
    const { total, totalPages } = first.body.pagination;
    const past = await get(`/public/v1/families?perPage=7&page=${totalPages + 1}`);
    expect(past.status).toBe(200);
    expect(past.body.data).toEqual([]);
    expect(past.body.pagination).toEqual({
      page: totalPages + 1,
      perPage: 7,
      total,
      totalPages,
      hasAny: true,
    });
    const far = await get("/public/v1/products?page=9999999");
    expect(far.body.data).toEqual([]);
    expect(far.body.pagination.hasAny).toBe(true);
  });

  it("a search that matches nothing: total 0, totalPages 0, hasAny false", async () => {
    const res = await get("/public/v1/products?q=zzqqxxnothing");
    expect(res.body).toEqual({
      data: [],
      pagination: { page: 1, perPage: 20, total: 0, totalPages: 0, hasAny: false },
    });
  });

  it("sort by label follows the accent- and case-folded label", async () => {
    const { items } = await all("/public/v1/products?sort=label.asc", 100);
    const folded = await sql<{ f: string }>(
      "select catalog_fold(l) as f from unnest($1::text[]) with ordinality as t(l, n) order by n",
      [items.map((p) => p.label)],
    );
    for (let i = 1; i < folded.length; i++) expect(folded[i - 1]!.f <= folded[i]!.f).toBe(true);
    const desc = await get("/public/v1/products?sort=label.desc&perPage=5");
    expect(desc.body.data.map((p: Item) => p.id)).toEqual(
      items
        .slice(-5)
        .reverse()
        .map((p) => p.id),
    );
  });

  it("q is a case- and accent-insensitive substring of identifier or label", async () => {
    const rows = await sql<{ label: string }>(
      "select label from products where org_id = $1 and label ~ '[éèêàçôûî]' order by id limit 1",
      [org],
    );
    expect(rows.length).toBe(1);
    const word = rows[0]!.label.split(/\s+/).find((w) => /[éèêàçôûî]/.test(w))!;
    const plain = word
      .normalize("NFD")
      .replace(/\p{Diacritic}/gu, "")
      .toUpperCase();
    const { items, total } = await all(`/public/v1/products?q=${encodeURIComponent(plain)}`);
    expect(total).toBeGreaterThan(0);
    const expected = await sql<{ id: string }>(
      "select id from products where org_id = $1 and (catalog_fold(label) like '%' || catalog_fold($2) || '%' or catalog_fold(identifier) like '%' || catalog_fold($2) || '%')",
      [org, plain],
    );
    expect(ids(items)).toEqual(expected.map((r) => r.id).sort());
    for (const p of items) {
      const hay = `${p.identifier} ${p.label}`
        .normalize("NFD")
        .replace(/\p{Diacritic}/gu, "")
        .toUpperCase();
      expect(hay).toContain(plain);
    }
    const [sku] = await sql<{ identifier: string }>(
      "select identifier from products where org_id = $1 order by id limit 1",
      [org],
    );
    const bySku = await get(`/public/v1/products?q=${encodeURIComponent(sku!.identifier.toLowerCase())}`);
    expect(bySku.body.data.map((p: Item) => p.identifier)).toContain(sku!.identifier);
  });

  it("q treats % and _ literally", async () => {
    const res = await get("/public/v1/products?q=%25");
    expect(res.status).toBe(200);
    expect(res.body.pagination.total).toBe(0);
  });

  it("familyId and categoryId filter products, alone and together", async () => {
    const [pair] = await sql<{ family_id: string; category_id: string }>(
      "select family_id, category_id from products where org_id = $1 group by 1, 2 order by count(*) desc limit 1",
      [org],
    );
    const byFamily = await all(`/public/v1/products?familyId=${pair!.family_id}`);
    const [fc] = await sql<{ n: number }>(
      "select count(*)::int as n from products where org_id = $1 and family_id = $2",
      [org, pair!.family_id],
    );
    expect(byFamily.total).toBe(fc!.n);
    for (const p of byFamily.items) expect(p.family.id).toBe(pair!.family_id);
    const both = await all(`/public/v1/products?familyId=${pair!.family_id}&categoryId=${pair!.category_id}`);
    expect(both.total).toBeGreaterThan(0);
    for (const p of both.items) {
      expect(p.family.id).toBe(pair!.family_id);
      expect(p.category.id).toBe(pair!.category_id);
    }
    const none = await get("/public/v1/products?familyId=fam_doesnotexist");
    expect(none.body.pagination.total).toBe(0);
  });

  it("channelId reads the channel's name, falling back to the unscoped label", async () => {
    const channels = await sql<{ id: string }>("select id from channels where org_id = $1 order by code", [
      org,
    ]);
    expect(channels.length).toBeGreaterThan(0);
    let seenScoped = false;
    for (const ch of channels) {
      const res = await get(`/public/v1/products?channelId=${ch.id}&perPage=100&sort=identifier.asc`);
      expect(res.status).toBe(200);
      const plain = await get(`/public/v1/products?perPage=100&sort=identifier.asc`);
      const scoped = await sql<{ product_id: string; name: string }>(
        `select pv.product_id, pv.value #>> '{}' as name from product_values pv
           join attributes a on a.id = pv.attribute_id and a.code = 'name'
          where pv.org_id = $1 and pv.channel_id = $2 and pv.product_id = any($3::text[])`,
        [org, ch.id, res.body.data.map((p: Item) => p.id)],
      );
      const byId = new Map(scoped.map((r) => [r.product_id, r.name]));
      res.body.data.forEach((p: Item, i: number) => {
        expect(p.id).toBe(plain.body.data[i].id);
        const expected = byId.get(p.id) || plain.body.data[i].label || p.identifier;
        expect(p.label).toBe(expected);
        if (byId.get(p.id) && byId.get(p.id) !== plain.body.data[i].label) seenScoped = true;
      });
    }
    expect(seenScoped).toBe(true);
    const globexChannel = (
      await fx.db.query<{ id: string }>("select id from channels where org_id = $1 limit 1", [
        fx.globex.orgId,
      ])
    )[0]!;
    const foreign = await get(`/public/v1/products?channelId=${globexChannel.id}`);
    expect(foreign.status).toBe(400);
    expect(foreign.body.message).toMatch(/« channelId »/);
  });

  it("families: q over code, slug and label; sort by code", async () => {
    const { items } = await all("/public/v1/families?sort=code.asc");
    const codes = items.map((f) => f.code);
    expect(codes).toEqual([...codes].sort());
    const target = items[Math.floor(items.length / 2)]!;
    const res = await get(`/public/v1/families?q=${encodeURIComponent(target.code)}`);
    expect(res.body.data.map((f: Item) => f.id)).toContain(target.id);
  });

  it("attributes: type list (comma and repeated), uniqueValue, isScopable, familyId", async () => {
    const text = await all("/public/v1/attributes?type=TEXT,NUMBER");
    expect(text.total).toBeGreaterThan(0);
    for (const a of text.items) expect(["TEXT", "NUMBER"]).toContain(a.type);
    const repeated = await all("/public/v1/attributes?type=TEXT&type=NUMBER");
    expect(ids(repeated.items)).toEqual(ids(text.items));
    const [{ n }] = (await sql<{ n: number }>(
      "select count(*)::int as n from attributes where org_id = $1 and type in ('TEXT', 'NUMBER')",
      [org],
    )) as [{ n: number }];
    expect(text.total).toBe(n);
    for (const flag of ["uniqueValue", "isScopable"]) {
      for (const v of [true, false]) {
        const res = await all(`/public/v1/attributes?${flag}=${v}`);
        expect(res.total).toBeGreaterThan(0);
        for (const a of res.items) expect(a[flag]).toBe(v);
      }
    }
    const [fam] = await sql<{ family_id: string }>(
      "select family_id from family_attributes where org_id = $1 limit 1",
      [org],
    );
    const byFamily = await all(`/public/v1/attributes?familyId=${fam!.family_id}`);
    const expected = await sql<{ attribute_id: string }>(
      "select attribute_id from family_attributes where org_id = $1 and family_id = $2",
      [org, fam!.family_id],
    );
    expect(ids(byFamily.items)).toEqual(expected.map((r) => r.attribute_id).sort());
  });

  it("categories: parentId (and null for roots), isMaster", async () => {
    const { items } = await all("/public/v1/categories");
    const parent = items.find((c) => items.some((x) => x.parentId === c.id))!;
    const children = await all(`/public/v1/categories?parentId=${parent.id}`);
    expect(ids(children.items)).toEqual(ids(items.filter((c) => c.parentId === parent.id)));
    const roots = await all("/public/v1/categories?parentId=null");
    expect(ids(roots.items)).toEqual(ids(items.filter((c) => c.parentId === null)));
    for (const v of [true, false]) {
      const res = await all(`/public/v1/categories?isMaster=${v}`);
      expect(res.total).toBeGreaterThan(0);
      expect(ids(res.items)).toEqual(ids(items.filter((c) => c.isMaster === v)));
    }
  });

  it("media: type list, orphansOnly, category, absolute URLs", async () => {
    const { items } = await all("/public/v1/media");
    expect(items.some((m) => m.type === "IMAGE")).toBe(true);
    expect(items.some((m) => m.type === "VIDEO")).toBe(true);
    const videos = await all("/public/v1/media?type=VIDEO");
    expect(ids(videos.items)).toEqual(ids(items.filter((m) => m.type === "VIDEO")));
    const orphans = await all("/public/v1/media?orphansOnly=true");
    const expected = await sql<{ id: string }>(
      "select id from media m where org_id = $1 and is_public and not exists (select 1 from media_links l where l.media_id = m.id)",
      [org],
    );
    expect(orphans.total).toBeGreaterThan(0);
    expect(ids(orphans.items)).toEqual(expected.map((r) => r.id).sort());
    expect((await all("/public/v1/media?orphansOnly=false")).total).toBe(items.length);
    const category = items[0]!.category as string;
    const byCat = await all(`/public/v1/media?category=${encodeURIComponent(category.toUpperCase())}`);
    expect(ids(byCat.items)).toEqual(ids(items.filter((m) => m.category === category)));
    for (const m of items) {
      expect(m.mediaUrl).toMatch(/^http:\/\/api\.test\/media\/acme\//);
      expect(m.thumbnailUrl).toMatch(/^http:\/\/api\.test\/media\/acme\/thumbs\//);
    }
  });
});
