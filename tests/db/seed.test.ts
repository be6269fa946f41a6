// The demo catalog generator on PGlite and on the Postgres server: shape, determinism, isolation, realism.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { migrate } from "@/db/migrate";
import {
  CATALOG_TABLES,
  DEMO_ORGS,
  SeedRefusedError,
  countCatalog,
  optionsOf,
  seedDemo,
  seedOrganization,
} from "@/db/seed";
import { FLAVOURS } from "@/db/seed/vocabulary";
import { listProducts } from "@/lib/catalog/resources/products";
import { catalogContext } from "@/lib/catalog/context";
import { parseQuery } from "@/lib/public-api/params";
import { productsQuery, type ProductsQuery } from "@/lib/catalog/resources/products";
import { openEmptyDatabase, type Driver } from "../support/databases";

// Opens a fresh, migrated database of the given kind.
async function freshDatabase(driver: Driver, label: string) {
  const handle = await openEmptyDatabase(driver, label);
  await migrate(handle.db);
  return handle;
}

// md5 of every row of every catalog table, in a byte order that does not depend on the collation or time zone.
async function digests(db: Database): Promise<Record<string, string>> {
  return db.transaction(async (tx) => {
    await tx.exec("set local timezone = 'UTC'");
    const out: Record<string, string> = {};
    for (const table of ["organizations", ...CATALOG_TABLES]) {
      const [row] = await tx.query<{ d: string; n: number }>(
        `select md5(coalesce(string_agg(j, E'\\n' order by convert_to(j, 'UTF8')), '')) as d, count(*)::int as n
           from (select row_to_json(t)::text as j from ${table} t) s`,
      );
      out[table] = `${row!.n}:${row!.d}`;
    }
    return out;
  });
}

const crossDriver: Partial<Record<Driver, Record<string, string>>> = {};

describe.each(["pglite", "pg"] as const)("demo seed on %s", (driver) => {
  let a: Awaited<ReturnType<typeof freshDatabase>>;
  let b: Awaited<ReturnType<typeof freshDatabase>>;
  let db: Database;
  const org: Record<string, string> = {};
  const one = async <T>(sql: string, params: unknown[] = []) => (await db.query<T>(sql, params))[0]!;

  beforeAll(async () => {
    [a, b] = await Promise.all([freshDatabase(driver, "seed_a"), freshDatabase(driver, "seed_b")]);
    db = a.db;
    const [ra] = await Promise.all([seedDemo(a.db), seedDemo(b.db)]);
    for (const o of ra.orgs) org[o.slug] = o.orgId;
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it("seeds both demo organizations with counts in the expected ranges", async () => {
    expect(Object.keys(org).sort()).toEqual(["acme", "globex"]);
    for (const spec of DEMO_ORGS) {
      const c = await countCatalog(db, org[spec.slug]!);
      expect(c.products).toBe(spec.products);
      expect(c.channels).toBeGreaterThanOrEqual(2);
      expect(c.families).toBeGreaterThanOrEqual(10);
      expect(c.families).toBeLessThanOrEqual(25);
      expect(c.attributes).toBeGreaterThanOrEqual(20);
      expect(c.attributes).toBeLessThanOrEqual(30);
      expect(c.family_attributes).toBeGreaterThan(c.families! * 10);
      expect(c.categories).toBeGreaterThan(15);
      expect(c.product_values).toBeGreaterThan(spec.products * 7);
      expect(c.product_values).toBeLessThan(spec.products * 12);
      expect(c.media).toBeGreaterThan(spec.products * 0.5);
      expect(c.media).toBeLessThan(spec.products);
      expect(c.media_links).toBeGreaterThan(c.media! * 0.8);
      expect(c.media_links).toBeLessThan(c.media!);
    }
  });

  it("is deterministic: two fresh databases hold byte-identical catalogs", async () => {
    const [da, dbb] = await Promise.all([digests(a.db), digests(b.db)]);
    expect(da).toEqual(dbb);
    expect(Number(da.products!.split(":")[0])).toBe(3400);
    crossDriver[driver] = da;
  });

  it("timestamps are fixed, with milliseconds, and updated_at never precedes created_at", async () => {
    const r = await one<{ ms: number; bad: number; min: string; max: string }>(
      `select count(*) filter (where extract(milliseconds from updated_at)::int % 1000 <> 0)::int as ms,
              count(*) filter (where updated_at < created_at)::int as bad,
              to_char(min(created_at) at time zone 'UTC', 'YYYY-MM-DD') as min,
              to_char(max(updated_at) at time zone 'UTC', 'YYYY-MM-DD') as max
         from products`,
    );
    expect(r.ms).toBeGreaterThan(3000);
    expect(r.bad).toBe(0);
    expect(r.min).toBe("2025-03-03");
    expect(r.max < "2026-03-01").toBe(true);
  });

  it("the two organizations share no id in any table", async () => {
    for (const table of ["channels", "families", "attributes", "categories", "products", "media"]) {
      const r = await one<{ n: number }>(
        `select count(*)::int as n from (select id from ${table} where org_id = $1 intersect select id from ${table} where org_id = $2) x`,
        [org.acme, org.globex],
      );
      expect(r.n, table).toBe(0);
    }
    const r = await one<{ n: number }>(
      "select count(distinct org_id)::int as n from organizations o join products p on p.org_id = o.id",
    );
    expect(r.n).toBe(2);
  });

  it("every reference stays inside its organization (the bulk load skipped per-row checks)", async () => {
    const checks: Record<string, string> = {
      "product family": `select count(*) from products p where not exists (select 1 from families f where f.id = p.family_id and f.org_id = p.org_id)`,
      "product category": `select count(*) from products p where not exists (select 1 from categories c where c.id = p.category_id and c.org_id = p.org_id and c.is_master)`,
      "value product": `select count(*) from product_values v where not exists (select 1 from products p where p.id = v.product_id and p.org_id = v.org_id)`,
      "value attribute": `select count(*) from product_values v where not exists (select 1 from attributes a where a.id = v.attribute_id and a.org_id = v.org_id and a.is_scopable = v.attribute_scopable)`,
      "value channel": `select count(*) from product_values v where v.channel_id is not null and not exists (select 1 from channels c where c.id = v.channel_id and c.org_id = v.org_id)`,
      "link media": `select count(*) from media_links l where not exists (select 1 from media m where m.id = l.media_id and m.org_id = l.org_id)`,
      "link product": `select count(*) from media_links l where l.product_id is not null and not exists (select 1 from products p where p.id = l.product_id and p.org_id = l.org_id)`,
      "link category": `select count(*) from media_links l where l.category_id is not null and not exists (select 1 from categories c where c.id = l.category_id and c.org_id = l.org_id)`,
      "family attribute": `select count(*) from family_attributes fa where not exists (select 1 from families f join attributes a on a.org_id = f.org_id where f.id = fa.family_id and a.id = fa.attribute_id and f.org_id = fa.org_id)`,
      "category parent": `select count(*) from categories c where c.parent_id is not null and not exists (select 1 from categories p where p.id = c.parent_id and p.org_id = c.org_id)`,
    };
    for (const [name, sql] of Object.entries(checks)) {
      const r = await one<{ count: number | string }>(sql);
      expect(Number(r.count), name).toBe(0);
    }
  });

  it("files products under leaves of a three-level master tree; secondary trees are not master", async () => {
    for (const slug of ["acme", "globex"]) {
      const r = await one<{ roots: number; depth: number; non_leaf: number; secondary: number }>(
        `with recursive t as (
           select id, 1 as depth from categories where org_id = $1 and parent_id is null and is_master
           union all select c.id, t.depth + 1 from categories c join t on c.parent_id = t.id
         )
         select (select count(*)::int from categories where org_id = $1 and parent_id is null and is_master) as roots,
                (select max(depth) from t) as depth,
                (select count(*)::int from products p where p.org_id = $1
                   and exists (select 1 from categories c where c.parent_id = p.category_id)) as non_leaf,
                (select count(*)::int from categories where org_id = $1 and not is_master and parent_id is null) as secondary`,
        [org[slug]],
      );
      expect(r).toEqual({ roots: 1, depth: 3, non_leaf: 0, secondary: 3 });
    }
    const label = await one<{ n: number }>(
      "select count(*)::int as n from categories where label = 'Soldes d''hiver' and not is_master",
    );
    expect(label.n).toBe(2);
  });

  it("attributes mix uniqueValue and isScopable; families require some of them", async () => {
    const r = await one<{ uniq: number; scop: number; text: number; num: number; req: number; opt: number }>(
      `select (select count(*)::int from attributes where org_id = $1 and unique_value) as uniq,
              (select count(*)::int from attributes where org_id = $1 and is_scopable) as scop,
              (select count(*)::int from attributes where org_id = $1 and type = 'TEXT') as text,
              (select count(*)::int from attributes where org_id = $1 and type = 'NUMBER') as num,
              (select count(*)::int from family_attributes where org_id = $1 and is_required) as req,
              (select count(*)::int from family_attributes where org_id = $1 and not is_required) as opt`,
      [org.acme],
    );
    expect(r.uniq).toBeGreaterThanOrEqual(2);
    expect(r.scop).toBeGreaterThanOrEqual(3);
    expect(r.text).toBeGreaterThan(0);
    expect(r.num).toBeGreaterThan(0);
    expect(r.req).toBeGreaterThan(0);
    expect(r.opt).toBeGreaterThan(r.req);
  });

  it("products carry SKU, names per channel, description and a EUR price", async () => {
    const p = await one<{
      identifier: string;
      label: string;
      status: string;
      sku: string;
      price: { EUR: number };
    }>(
      `select p.identifier, p.label, p.status, v.value #>> '{}' as sku, pr.value as price
         from products p
         join product_values v on v.product_id = p.id and v.attribute_id = (select id from attributes where org_id = p.org_id and code = 'sku')
         join product_values pr on pr.product_id = p.id and pr.attribute_id = (select id from attributes where org_id = p.org_id and code = 'price')
        where p.org_id = $1 order by p.identifier limit 1`,
      [org.acme],
    );
    expect(p.identifier).toMatch(/^ACM-[A-Z]{3}-\d{6}$/);
    expect(p.sku).toBe(p.identifier);
    expect(p.status).toBe("draft");
    expect(Object.keys(p.price)).toEqual(["EUR"]);
    expect(p.price.EUR).toBeGreaterThan(0);
    expect(Math.round(p.price.EUR * 100)).toBeCloseTo(p.price.EUR * 100, 6);
    const statuses = await db.query<{ status: string }>("select distinct status from products");
    expect(statuses).toEqual([{ status: "draft" }]);
    const names = await db.query<{ channel: string; differ: number; same: number }>(
      `select c.code as channel,
              count(*) filter (where v.value #>> '{}' <> p.label)::int as differ,
              count(*) filter (where v.value #>> '{}' = p.label)::int as same
         from product_values v
         join channels c on c.id = v.channel_id
         join products p on p.id = v.product_id
        where v.org_id = $1 and v.attribute_id = (select id from attributes where org_id = $1 and code = 'name')
        group by c.code order by c.code`,
      [org.acme],
    );
    expect(names.map((n) => n.channel)).toEqual(["ecommerce", "marketplace", "print"]);
    for (const n of names) expect(n.differ).toBeGreaterThan(300);
    const unscoped = await one<{ n: number }>(
      `select count(*)::int as n from product_values v join products p on p.id = v.product_id
        where v.org_id = $1 and v.channel_id is null and v.value #>> '{}' = p.label`,
      [org.acme],
    );
    expect(unscoped.n).toBe(3000);
    const noScoped = await one<{ n: number }>(
      `select count(*)::int as n from products p where p.org_id = $1 and not exists (
         select 1 from product_values v where v.product_id = p.id and v.channel_id is not null)`,
      [org.acme],
    );
    expect(noScoped.n).toBeGreaterThan(0);
  });

  it("labels carry accents that accent-insensitive search finds (creme finds Crème)", async () => {
    const r = await one<{ accented: number; creme: number; found: number }>(
      `select count(*) filter (where label ~ '[éèêàçôûî]')::int as accented,
              count(*) filter (where label like '%Crème%')::int as creme,
              count(*) filter (where search like '%creme%')::int as found
         from products where org_id = $1`,
      [org.acme],
    );
    expect(r.accented).toBeGreaterThan(1000);
    expect(r.creme).toBeGreaterThan(0);
    expect(r.found).toBeGreaterThanOrEqual(r.creme);
    const fr = await one<{ n: number }>(
      "select count(*)::int as n from categories where org_id = $1 and label ~ '[éèêàç]'",
      [org.acme],
    );
    expect(fr.n).toBeGreaterThan(0);
  });

  it("media: images, videos and documents, mostly linked, some orphans, some private", async () => {
    const rows = await db.query<{ type: string; n: number; orphans: number; private: number; names: number }>(
      `select m.type, count(*)::int as n,
              count(*) filter (where not exists (select 1 from media_links l where l.media_id = m.id))::int as orphans,
              count(*) filter (where not m.is_public)::int as private,
              count(*) filter (where m.original_name ~ '[éèêàçôûî]')::int as names
         from media m where m.org_id = $1 group by m.type order by m.type`,
      [org.acme],
    );
    expect(rows.map((r) => r.type)).toEqual(["DOCUMENT", "IMAGE", "VIDEO"]);
    const byType = Object.fromEntries(rows.map((r) => [r.type, r]));
    expect(byType.IMAGE!.n).toBeGreaterThan(1000);
    expect(byType.VIDEO!.n).toBeGreaterThan(50);
    const total = rows.reduce((s, r) => s + r.n, 0);
    const orphans = rows.reduce((s, r) => s + r.orphans, 0);
    expect(orphans).toBeGreaterThan(0);
    expect(orphans).toBeLessThan(total * 0.2);
    expect(rows.reduce((s, r) => s + r.private, 0)).toBeGreaterThan(0);
    expect(byType.IMAGE!.names).toBeGreaterThan(100);
    const cats = await db.query<{ category: string }>(
      "select distinct category from media where org_id = $1 order by 1",
      [org.acme],
    );
    expect(cats.map((c) => c.category)).toEqual(["Ambiance", "Fiche technique", "Packshot", "Vidéo produit"]);
    const files = await one<{ bad: number; linked_categories: number }>(
      `select count(*) filter (where file_name <> slug || '.' || case type when 'IMAGE' then 'png' when 'VIDEO' then 'mp4' else 'pdf' end)::int as bad,
              (select count(*)::int from media_links where org_id = $1 and category_id is not null) as linked_categories
         from media where org_id = $1`,
      [org.acme],
    );
    expect(files.bad).toBe(0);
    expect(files.linked_categories).toBeGreaterThan(0);
    // The bulk load writes link_count itself (media_links' triggers are off): it must equal the links.
    const drift = await one<{ n: number }>(
      `select count(*)::int as n from media m where m.link_count <>
         (select count(*) from media_links l where l.org_id = m.org_id and l.media_id = m.id)`,
    );
    expect(drift.n).toBe(0);
  });

  it("gives every SELECT and MULTI_SELECT attribute its options, and every code a product uses is one", async () => {
    // Over the whole demo: attributes without an option, option codes used by a value that are not options of its
    // attribute, positions other than 0..n-1, options of another organization's attribute.
    const r = await one<{ bare: number; unknown: number; gaps: number; foreign: number }>(
      `select
         (select count(*)::int from attributes a
           where a.type in ('SELECT', 'MULTI_SELECT')
             and not exists (select 1 from attribute_options o where o.org_id = a.org_id and o.attribute_id = a.id))
           as bare,
         (select count(*)::int from (
            select distinct pv.org_id, pv.attribute_id, c.code
              from product_values pv
              join attributes a on a.org_id = pv.org_id and a.id = pv.attribute_id
             cross join lateral (
               select pv.value #>> '{}' as code where jsonb_typeof(pv.value) = 'string'
               union all
               select e from jsonb_array_elements_text(
                 case when jsonb_typeof(pv.value) = 'array' then pv.value else '[]'::jsonb end) e) c
             where a.type in ('SELECT', 'MULTI_SELECT')
               and not exists (select 1 from attribute_options o
                                where o.org_id = pv.org_id and o.attribute_id = pv.attribute_id and o.code = c.code)
          ) u) as unknown,
         (select count(*)::int from (
            select attribute_id from attribute_options group by attribute_id
            having min(position) <> 0 or max(position) <> count(*) - 1 or count(distinct position) <> count(*)
          ) g) as gaps,
         (select count(*)::int from attribute_options o
           where not exists (select 1 from attributes a where a.id = o.attribute_id and a.org_id = o.org_id))
           as foreign`,
    );
    expect(r).toEqual({ bare: 0, unknown: 0, gaps: 0, foreign: 0 });
    // The colors and materials products are given are used (the check above is not vacuous).
    const used = await one<{ n: number }>(
      `select count(distinct pv.value)::int as n from product_values pv join attributes a on a.id = pv.attribute_id
        where a.org_id = $1 and a.code in ('color', 'material')`,
      [org.acme],
    );
    expect(used.n).toBe(40);
    // Each demo organization: the options of its SELECT and MULTI_SELECT attributes only, with the vocabulary's
    // codes, French labels and order.
    for (const spec of DEMO_ORGS) {
      const rows = await db.query<{ attribute: string; code: string; label: string }>(
        `select a.code as attribute, o.code, o.label from attribute_options o
           join attributes a on a.org_id = o.org_id and a.id = o.attribute_id
          where o.org_id = $1 order by a.code, o.position`,
        [org[spec.slug]],
      );
      const byAttribute: Record<string, { code: string; label: string }[]> = {};
      for (const { attribute, ...o } of rows) (byAttribute[attribute] ??= []).push(o);
      const expected = optionsOf(FLAVOURS[spec.flavour]);
      expect(byAttribute).toEqual(expected);
      expect(Object.keys(byAttribute).sort()).toEqual(
        spec.slug === "acme"
          ? ["bed_size", "bulb", "color", "fragrance", "material", "style"]
          : ["color", "fit", "gender", "material", "season", "shoe_size", "size", "sport"],
      );
    }
    const colors = await db.query<{ code: string; label: string }>(
      `select o.code, o.label from attribute_options o join attributes a on a.id = o.attribute_id
        where a.org_id = $1 and a.code = 'color' order by o.position limit 3`,
      [org.acme],
    );
    expect(colors).toEqual([
      { code: "blanc_casse", label: "Blanc cassé" },
      { code: "creme", label: "Crème" },
      { code: "ecru", label: "Écru" },
    ]);
  });

  it("refuses to seed an organization that already has products, changing nothing", async () => {
    const before = await countCatalog(db, org.globex!);
    await expect(seedOrganization(db, { slug: "globex", name: "x", products: 5 })).rejects.toBeInstanceOf(
      SeedRefusedError,
    );
    await expect(seedDemo(db)).rejects.toThrow(/already has products/);
    expect(await countCatalog(db, org.globex!)).toEqual(before);
  });

  it("the catalog does not depend on the batch size nor on the bulk load; the seed changes it, the slug changes the ids", async () => {
    const small = await seedOrganization(db, {
      slug: "batch-a",
      name: "A",
      products: 130,
      seed: "s",
      flavour: "fashion",
      batchSize: 40,
      fastLoad: false, // foreign-key checks and triggers on: media_links' triggers count the links
    });
    const large = await seedOrganization(db, {
      slug: "batch-b",
      name: "B",
      products: 130,
      seed: "s",
      flavour: "fashion",
    });
    const other = await seedOrganization(db, {
      slug: "batch-c",
      name: "C",
      products: 130,
      seed: "t",
      flavour: "fashion",
    });
    expect(small.counts).toEqual(large.counts);
    const list = (orgId: string) =>
      db.query<{ id: string; identifier: string; label: string; u: string }>(
        "select id, identifier, label, to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS') as u from products where org_id = $1 order by identifier",
        [orgId],
      );
    const [pa, pb, pc] = await Promise.all([list(small.orgId), list(large.orgId), list(other.orgId)]);
    const strip = (rows: typeof pa) => rows.map(({ identifier, label, u }) => ({ identifier, label, u }));
    expect(strip(pa)).toEqual(strip(pb));
    const numbers = (rows: typeof pa) => rows.map((p) => p.identifier.slice(-6)).sort();
    expect(numbers(pa)).toEqual(numbers(pc));
    expect(pa.map((p) => p.label)).not.toEqual(pc.map((p) => p.label));
    expect(pa.filter((p, i) => p.id === pb[i]!.id)).toEqual([]);
    expect(new Set(pa.map((p) => p.identifier)).size).toBe(130);
    const linkCounts = (orgId: string) =>
      db.query<{ slug: string; n: number }>(
        "select slug, link_count as n from media where org_id = $1 order by slug",
        [orgId],
      );
    const [la, lb] = await Promise.all([linkCounts(small.orgId), linkCounts(large.orgId)]);
    expect(la).toEqual(lb);
    expect(new Set(la.map((m) => m.n))).toEqual(new Set([0, 1]));
  });
});

describe("seeding on the Postgres server while the organization is read", () => {
  it("a total counted before the batches committed does not outlive the seed", async () => {
    const { db, close } = await freshDatabase("pg", "seed_live");
    try {
      const firstPage = parseQuery(new URLSearchParams(""), productsQuery) as ProductsQuery;
      let read: Promise<number> | undefined;
      const { orgId } = await seedOrganization(db, {
        slug: "live",
        name: "Live",
        products: 400,
        batchSize: 200,
        onProgress: (p) => {
          // The structure is committed and the batches are about to start (each in its own transaction): an API
          // request now counts the organization's products and caches the total under the current version.
          if (p.step === "products" && p.done === 0 && !read) {
            read = db
              .query<{ id: string }>("select id from organizations where slug = 'live'")
              .then(([o]) => listProducts(catalogContext(db), o!.id, firstPage))
              .then((r) => r.pagination.total);
          }
        },
      });
      expect(await read).toBe(0);
      expect((await listProducts(catalogContext(db), orgId, firstPage)).pagination.total).toBe(400);
    } finally {
      await close();
    }
  });
});

describe("across drivers", () => {
  it("PGlite and the Postgres server produce the same catalog", () => {
    expect(crossDriver.pglite, "the PGlite suite ran").toBeDefined();
    expect(crossDriver.pg, "the Postgres suite ran").toBeDefined();
    expect(crossDriver.pglite).toEqual(crossDriver.pg);
  });
});
