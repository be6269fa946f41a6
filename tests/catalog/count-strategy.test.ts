import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database, Queryable } from "@/db/client";
import { migrate } from "@/db/migrate";
import { listAttributes } from "@/lib/catalog/resources/attributes";
import { catalogContext, type CatalogContext } from "@/lib/catalog/context";
import { catalogVersions, countKey, exactTotalAt, type Counted } from "@/lib/catalog/list/count-cache";
import { CountPendingError } from "@/lib/catalog/catalog-errors";
import { listMedia } from "@/lib/catalog/resources/media";
import { listProducts } from "@/lib/catalog/resources/products";
import { productsQuery as productsQueryDef, type ProductsQuery } from "@/lib/catalog/resources/products";
import { parseQuery } from "@/lib/public-api/params";
import { openEmptyDatabase } from "../support/databases";

// The count strategy (cached exact totals under a per-organization catalog version) and the deferred-join page
// query, on the embedded database and on the Postgres server.

const ORG = "org_count";
const OTHER = "org_other";

// The catalog's caches of each database handle: a handle stands for one server instance (the runtime's caches).
const contexts = new WeakMap<object, CatalogContext>();
function ctxOf(db: Queryable): CatalogContext {
  let ctx = contexts.get(db);
  if (!ctx) contexts.set(db, (ctx = catalogContext(db)));
  return ctx;
}

function productsQuery(search: string): ProductsQuery {
  return parseQuery(new URLSearchParams(search), productsQueryDef) as ProductsQuery;
}

// Counts the statements that go through a real database handle (a spy, not a stand-in: every call reaches the database).
function spy(db: Database): Queryable & { counts: number; statements: number; statementsText: string[] } {
  const s = {
    counts: 0,
    statements: 0,
    statementsText: [] as string[],
    query: async <R>(text: string, params?: readonly unknown[]) => {
      s.statements++;
      s.statementsText.push(text);
      if (/count\(\*\)/.test(text)) s.counts++;
      return db.query<R>(text, params);
    },
  };
  return s;
}

async function seed(db: Database): Promise<void> {
  await db.exec(`
    insert into organizations (id, slug, name) values ('${ORG}', 'count', 'Count'), ('${OTHER}', 'other', 'Other');
    insert into channels (id, org_id, code, label) values ('chn_1', '${ORG}', 'web', 'Web');
    insert into families (id, org_id, slug, code, label) values
      ('fam_a', '${ORG}', 'a', 'a', 'Chaises'), ('fam_b', '${ORG}', 'b', 'b', 'Tables'),
      ('fam_o', '${OTHER}', 'o', 'o', 'Autre');
    insert into categories (id, org_id, slug, label) values
      ('cat_a', '${ORG}', 'a', 'Salon'), ('cat_b', '${ORG}', 'b', 'Cuisine'), ('cat_o', '${OTHER}', 'o', 'Autre');
    insert into attributes (id, org_id, slug, code, label, type) values
      ('att_1', '${ORG}', 'name', 'name', 'Nom', 'TEXT'), ('att_2', '${ORG}', 'price', 'price', 'Prix', 'PRICE');
    insert into media (id, org_id, slug, original_name, type, category, file_name, mime_type) values
      ('med_1', '${ORG}', 'm1', 'photo-1.jpg', 'IMAGE', 'Photos', 'p1.jpg', 'image/jpeg'),
      ('med_2', '${ORG}', 'm2', 'photo-2.jpg', 'IMAGE', 'Photos', 'p2.jpg', 'image/jpeg');
  `);
  // 250 products with spread timestamps and labels, some with equal timestamps (ties broken by id).
  await db.exec(`
    insert into products (id, org_id, identifier, label, status, family_id, category_id, updated_at)
    select 'prd_' || lpad(i::text, 5, '0'), '${ORG}', 'SKU-' || i,
           (array['Chaise crème', 'Table', 'Lampe', 'Étagère', ''])[1 + i % 5] || ' ' || (i % 17),
           (array['draft', 'published', 'archived'])[1 + i % 3],
           case when i % 2 = 0 then 'fam_a' else 'fam_b' end,
           case when i % 3 = 0 then 'cat_a' else 'cat_b' end,
           timestamptz '2026-01-01T00:00:00Z' + ((i / 3) || ' minutes')::interval
      from generate_series(1, 250) i;
    insert into products (id, org_id, identifier, label, family_id, category_id)
    select 'prd_o' || i, '${OTHER}', 'O-' || i, 'Chaise', 'fam_o', 'cat_o' from generate_series(1, 30) i;
  `);
}

async function addProduct(db: Database, id: string, family = "fam_a"): Promise<void> {
  await db.query(
    `insert into products (id, org_id, identifier, label, family_id, category_id) values ($1, $2, $1, 'Chaise ajoutée', $3, 'cat_a')`,
    [id, ORG, family],
  );
}

async function trueCount(db: Database, where = "true"): Promise<number> {
  const [r] = await db.query<{ n: number }>(
    `select count(*)::int as n from products p where p.org_id = $1 and ${where}`,
    [ORG],
  );
  return r!.n;
}

// The plain OFFSET page (the query shape before the deferred join), as the reference for every page.
async function plainOffsetIds(db: Database, search: string, org = ORG): Promise<string[]> {
  const q = productsQuery(search);
  const cols: Record<string, string> = {
    identifier: "p.identifier",
    label: "p.label_sort",
    status: "p.status",
    updatedAt: "p.updated_at",
  };
  const order = [...q.sort.map((k) => `${cols[k.field]} ${k.order}`), `p.id ${q.sort[0]!.order}`].join(", ");
  const conds = ["p.org_id = $1"];
  const params: unknown[] = [org];
  if (q.familyId) conds.push(`p.family_id = $${params.push(q.familyId)}`);
  if (q.categoryId) conds.push(`p.category_id = $${params.push(q.categoryId)}`);
  const rows = await db.query<{ id: string }>(
    `select p.id from products p
       join families f on f.org_id = p.org_id and f.id = p.family_id
       join categories c on c.org_id = p.org_id and c.id = p.category_id
      where ${conds.join(" and ")} order by ${order}
      limit $${params.length + 1} offset $${params.length + 2}`,
    [...params, q.perPage, (q.page - 1) * q.perPage],
  );
  return rows.map((r) => r.id);
}

function suite(name: string, open: () => Promise<{ db: Database; close: () => Promise<void> }>) {
  describe(name, () => {
    let db: Database;
    let close: () => Promise<void>;

    beforeAll(async () => {
      ({ db, close } = await open());
      await migrate(db);
      await seed(db);
    });
    afterAll(async () => {
      await close?.();
    });

    it("keeps total exact after products are added and removed, counting only when the catalog changed", async () => {
      const s = spy(db);
      const first = await listProducts(ctxOf(s), ORG, productsQuery(""));
      expect(first.pagination.total).toBe(250);
      expect(s.counts).toBe(1);

      // Unchanged catalog: the total comes from the cache, no count runs, and the page (which carries the
      // catalog version) is the only statement.
      const before = s.statements;
      const again = await listProducts(ctxOf(s), ORG, productsQuery("page=3"));
      expect(again.pagination.total).toBe(250);
      expect(s.counts).toBe(1);
      expect(s.statements - before).toBe(1);

      await addProduct(db, "prd_new1");
      await addProduct(db, "prd_new2");
      const added = await listProducts(ctxOf(s), ORG, productsQuery(""));
      expect(added.pagination.total).toBe(252);
      expect(added.pagination.totalPages).toBe(13);
      expect(added.data.map((p) => p.id)).toContain("prd_new1");
      expect(s.counts).toBe(2);

      await db.query(
        "delete from products where org_id = $1 and id in ('prd_new1', 'prd_00001', 'prd_00002')",
        [ORG],
      );
      const removed = await listProducts(ctxOf(s), ORG, productsQuery(""));
      expect(removed.pagination.total).toBe(249);
      expect(removed.pagination.total).toBe(await trueCount(db));
      expect(s.counts).toBe(3);
    });

    it("keeps filtered totals exact when a product moves between families, per filter", async () => {
      const famA = async () =>
        (await listProducts(ctxOf(db), ORG, productsQuery("familyId=fam_a"))).pagination.total;
      const famB = async () =>
        (await listProducts(ctxOf(db), ORG, productsQuery("familyId=fam_b"))).pagination.total;
      const a0 = await famA();
      const b0 = await famB();
      expect(a0).toBe(await trueCount(db, "p.family_id = 'fam_a'"));
      expect(a0 + b0).toBe(await trueCount(db));

      await db.query("update products set family_id = 'fam_b' where org_id = $1 and id = 'prd_00010'", [ORG]);
      expect(await famA()).toBe(a0 - 1);
      expect(await famB()).toBe(b0 + 1);

      const q = (await listProducts(ctxOf(db), ORG, productsQuery("q=creme"))).pagination.total;
      expect(q).toBe(await trueCount(db, "p.search like '%creme%'"));
      await db.query("update products set label = 'Crème brûlée' where org_id = $1 and id = 'prd_00011'", [
        ORG,
      ]);
      expect((await listProducts(ctxOf(db), ORG, productsQuery("q=creme"))).pagination.total).toBe(q + 1);
    });

    it("is not invalidated by another organization's changes, and never mixes organizations", async () => {
      const s = spy(db);
      const before = (await listProducts(ctxOf(s), ORG, productsQuery(""))).pagination.total;
      const countsBefore = s.counts;
      await db.query(
        `insert into products (id, org_id, identifier, label, family_id, category_id)
         values ('prd_o999', $1, 'O-999', 'Chaise', 'fam_o', 'cat_o')`,
        [OTHER],
      );
      expect((await listProducts(ctxOf(s), ORG, productsQuery(""))).pagination.total).toBe(before);
      expect(s.counts).toBe(countsBefore);
      expect((await listProducts(ctxOf(s), OTHER, productsQuery(""))).pagination.total).toBe(31);
    });

    it("keeps totals of other resources exact (attributes, orphan media) through inserts, links and deletes", async () => {
      const orphans = async () =>
        (
          await listMedia(
            ctxOf(db),
            { id: ORG, slug: "count" },
            { page: 1, perPage: 20, sort: [{ field: "updatedAt", order: "desc" }], orphansOnly: true },
            "http://x.test",
          )
        ).pagination.total;
      expect(await orphans()).toBe(2);
      await db.query(
        "insert into media_links (org_id, media_id, product_id) values ($1, 'med_1', 'prd_00003')",
        [ORG],
      );
      expect(await orphans()).toBe(1);
      await db.query("delete from media_links where org_id = $1", [ORG]);
      expect(await orphans()).toBe(2);

      const attrs = async () =>
        (
          await listAttributes(ctxOf(db), ORG, {
            page: 1,
            perPage: 20,
            sort: [{ field: "code", order: "asc" }],
            type: ["TEXT"],
          })
        ).pagination.total;
      expect(await attrs()).toBe(1);
      await db.query(
        "insert into attributes (id, org_id, slug, code, label, type) values ('att_3', $1, 'desc', 'desc', 'Description', 'TEXT')",
        [ORG],
      );
      expect(await attrs()).toBe(2);
      await db.query("delete from attributes where id = 'att_3'");
      expect(await attrs()).toBe(1);
    });

    it("serves deep pages with the deferred join exactly as the plain OFFSET query does", async () => {
      const cases = [
        "perPage=7&page=1",
        "perPage=7&page=20",
        "perPage=7&page=35",
        "perPage=7&page=36",
        "perPage=7&page=99",
        "perPage=10&page=13&sort=label.asc",
        "perPage=10&page=7&sort=label.desc,updatedAt.asc",
        "perPage=9&page=8&sort=status.asc,updatedAt.desc",
        "perPage=5&page=11&sort=identifier.desc&familyId=fam_b",
        "perPage=5&page=9&familyId=fam_a&categoryId=cat_b",
        "perPage=100&page=3&sort=updatedAt.asc",
      ];
      for (const c of cases) {
        const got = await listProducts(ctxOf(db), ORG, productsQuery(c));
        expect(
          got.data.map((p) => p.id),
          c,
        ).toEqual(await plainOffsetIds(db, c));
      }
      // Walking every page returns every product once, in order.
      const seen: string[] = [];
      for (let page = 1; ; page++) {
        const r = await listProducts(
          ctxOf(db),
          ORG,
          productsQuery(`perPage=40&page=${page}&channelId=chn_1`),
        );
        if (r.data.length === 0) break;
        seen.push(...r.data.map((p) => p.id));
      }
      expect(seen.length).toBe(await trueCount(db));
      expect(new Set(seen).size).toBe(seen.length);
    });

    it("seeks deep pages from remembered anchors with exactly the plain OFFSET result, and forgets them when the catalog changes", async () => {
      const DEEP = "org_deep";
      await db.exec(`
        insert into organizations (id, slug, name) values ('${DEEP}', 'deep', 'Deep');
        insert into families (id, org_id, slug, code, label) values ('fam_d1', '${DEEP}', 'd1', 'd1', 'Un'), ('fam_d2', '${DEEP}', 'd2', 'd2', 'Deux');
        insert into categories (id, org_id, slug, label) values ('cat_d', '${DEEP}', 'd', 'D');
        insert into products (id, org_id, identifier, label, status, family_id, category_id, updated_at)
        select 'prd_d' || lpad(i::text, 5, '0'), '${DEEP}', 'D-' || (i * 7919 % 2600),
               (array['Chaise', 'Table', 'Lampe', 'Étagère'])[1 + i % 4] || ' ' || (i % 13),
               (array['draft', 'published', 'archived'])[1 + i % 3],
               case when i % 3 = 0 then 'fam_d1' else 'fam_d2' end, 'cat_d',
               timestamptz '2026-02-01T00:00:00.123Z' + ((i / 2) || ' seconds')::interval
          from generate_series(1, 2600) i;
      `);
      const s = spy(db);
      const seeks = () => s.statementsText.filter((t) => /\) [<>]= \(\$\d+::/.test(t)).length;
      const check = async (c: string) => {
        const got = await listProducts(ctxOf(s), DEEP, productsQuery(c));
        expect(
          got.data.map((p) => p.id),
          c,
        ).toEqual(await plainOffsetIds(db, c, DEEP));
        return got;
      };
      const sorts = [
        "",
        "&sort=updatedAt.asc",
        "&sort=label.asc",
        "&sort=identifier.desc",
        "&sort=status.desc",
        "&familyId=fam_d2",
      ];
      for (const sort of sorts) {
        for (const page of [22, 22, 23, 15, 26, 11, 25]) await check(`perPage=50&page=${page}${sort}`);
      }
      expect(seeks()).toBeGreaterThan(20);
      const past = await check("perPage=100&page=27");
      expect(past.data).toEqual([]);
      expect(past.pagination.total).toBe(2600);

      // A new newest product shifts every page by one: the anchors of the old version must not be used.
      await db.query(
        `insert into products (id, org_id, identifier, label, family_id, category_id, updated_at)
         values ('prd_dnew', $1, 'D-NEW', 'Neuve', 'fam_d2', 'cat_d', '2027-01-01')`,
        [DEEP],
      );
      for (const sort of ["", "&familyId=fam_d2"]) {
        for (const page of [22, 23, 15]) await check(`perPage=50&page=${page}${sort}`);
      }
      await db.query("delete from products where org_id = $1 and id in ('prd_d00100', 'prd_dnew')", [DEEP]);
      for (const page of [22, 22, 11]) await check(`perPage=50&page=${page}`);
    });

    it("runs one count for concurrent requests on a list never counted", async () => {
      const s = spy(db);
      const pages = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          listProducts(ctxOf(s), ORG, productsQuery(`familyId=fam_a&page=${1 + (i % 3)}`)),
        ),
      );
      expect(s.counts).toBe(1);
      const exact = await trueCount(db, "p.family_id = 'fam_a'");
      for (const p of pages) expect(p.pagination.total).toBe(exact);
    });

    it("a request waits for a slow count at most its bound; the count goes on, is remembered, and serves the next", async () => {
      // Counts run on their own handle (the runtime's withStatementTimeout one); here the database, 300 ms slower.
      let counted = 0;
      const slow: Queryable = {
        query: async <R>(text: string, params?: readonly unknown[]) => {
          counted++;
          await new Promise((r) => setTimeout(r, 300));
          return db.query<R>(text, params);
        },
      };
      const ctx = catalogContext(db, { counting: slow, countWaitMs: 50 });
      const q = productsQuery("categoryId=cat_a&perPage=5");
      const started = Date.now();
      await expect(listProducts(ctx, ORG, q)).rejects.toBeInstanceOf(CountPendingError);
      expect(Date.now() - started).toBeLessThan(300);
      await new Promise((r) => setTimeout(r, 400));
      const page = await listProducts(ctx, ORG, q);
      expect(page.pagination.total).toBe(await trueCount(db, "p.category_id = 'cat_a'"));
      expect(counted).toBe(1);
    });

    it("does not reuse a shared count that saw another version of products than the caller's page", async () => {
      const s = spy(db);
      const sql = "select count(*)::int as total from products p where p.org_id = $1 and p.category_id = $2";
      const params = [ORG, "cat_a"];
      // A count begun before a change and still running: it will report an older version.
      let finish!: (c: Counted) => void;
      void ctxOf(s).counts.countOnce(
        countKey({ sql, params }),
        () => new Promise<Counted>((resolve) => (finish = resolve)),
      );
      const { version } = await catalogVersions(db, ORG, ["products"]);
      const pending = exactTotalAt(ctxOf(s), "products", { sql, params }, version);
      finish({ total: 99_999, version: "an older version" });
      const got = await pending;
      expect(got).toEqual({ total: await trueCount(db, "p.category_id = 'cat_a'"), version });
      // The caller's own count is the one remembered.
      expect(ctxOf(s).counts.get(countKey({ sql, params }), version)).toBe(got.total);
    });

    it("refuses an unknown channel whether its page has rows or not, and accepts a known one with no rows", async () => {
      await expect(listProducts(ctxOf(db), ORG, productsQuery("channelId=chn_nope"))).rejects.toMatchObject({
        name: "UnknownReferenceError",
        field: "channelId",
      });
      await expect(
        listProducts(ctxOf(db), ORG, productsQuery("channelId=chn_nope&familyId=fam_o")),
      ).rejects.toMatchObject({ name: "UnknownReferenceError", field: "channelId" });
      const empty = await listProducts(ctxOf(db), ORG, productsQuery("channelId=chn_1&familyId=fam_o"));
      expect(empty.pagination).toMatchObject({ total: 0, hasAny: false });
      expect(empty.data).toEqual([]);
    });

    it("keeps one cache per catalog context", async () => {
      expect(ctxOf(db).counts.size).toBeGreaterThan(0);
      expect(ctxOf({ query: db.query.bind(db) }).counts.size).toBe(0);
    });
  });
}

suite("count strategy on PGlite", () => openEmptyDatabase("pglite", "count"));
suite("count strategy on the Postgres server", () => openEmptyDatabase("pg", "count", 4));

describe("count strategy under concurrent transactions (Postgres server)", () => {
  let db: Database;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await openEmptyDatabase("pg", "count_tx", 4));
    await migrate(db);
    await seed(db);
  });
  afterAll(async () => {
    await close?.();
  });

  it("does not see uncommitted products, and counts them once committed; a rolled-back insert changes nothing", async () => {
    const total = async () => (await listProducts(ctxOf(db), ORG, productsQuery(""))).pagination.total;
    expect(await total()).toBe(250);
    await db.transaction(async (tx) => {
      await tx.query(
        `insert into products (id, org_id, identifier, label, family_id, category_id)
         values ('prd_tx1', $1, 'TX-1', 'Chaise', 'fam_a', 'cat_a')`,
        [ORG],
      );
      // Another connection reads meanwhile: the uncommitted row is not there, and that total must not stick.
      expect(await total()).toBe(250);
    });
    expect(await total()).toBe(251);
    await expect(
      db.transaction(async (tx) => {
        await tx.query("delete from products where org_id = $1", [ORG]);
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await total()).toBe(251);
  });
});
