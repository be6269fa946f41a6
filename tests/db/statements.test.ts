import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPg, type Database } from "@/db/client";
import { StatementNames } from "@/db/drivers/statements";
import { migrate } from "@/db/migrate";
import { listProducts } from "@/lib/catalog/resources/products";
import { catalogContext, type CatalogContext } from "@/lib/catalog/context";
import { parseQuery } from "@/lib/public-api/params";
import { productsQuery, type ProductsQuery } from "@/lib/catalog/resources/products";
import { createTestDatabase } from "../support/servers";

// Named (prepared) statements on the Postgres server driver: one name per statement text, and a statement is
// parsed once per connection, then only bound and executed.

describe("StatementNames", () => {
  it("gives one stable name per text, distinct names to distinct texts, and none past its bound", () => {
    const names = new StatementNames(2);
    const a = names.nameOf("select 1");
    expect(a).toBeDefined();
    expect(names.nameOf("select 1")).toBe(a);
    const b = names.nameOf("select 2");
    expect(b).toBeDefined();
    expect(b).not.toBe(a);
    expect(names.nameOf("select 3")).toBeUndefined();
    expect(names.nameOf("select 1")).toBe(a);
  });
});

describe("prepared statements on the Postgres server", () => {
  let db: Database;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const t = await createTestDatabase("prepared");
    drop = t.drop;
    db = await openPg(t.url, 1);
  });
  afterAll(async () => {
    await db?.close();
    await drop?.();
  });

  it("prepares a parameterised statement once on a connection and reuses it with other values", async () => {
    const text = "select $1::int + 1 as n";
    for (const v of [1, 2, 3]) expect(await db.query<{ n: number }>(text, [v])).toEqual([{ n: v + 1 }]);
    const prepared = await db.query<{ statement: string }>(
      "select statement from pg_prepared_statements where statement = $1",
      [text],
    );
    expect(prepared).toHaveLength(1);
  });

  it("runs statements without parameters, scripts of several included, unprepared", async () => {
    await db.exec("create table t (n int); insert into t values (1), (2);");
    await db.query("insert into t values (3); insert into t values (4)");
    expect(await db.query("select count(*)::int as c from t")).toEqual([{ c: 4 }]);
    const prepared = await db.query<{ n: number }>(
      "select count(*)::int as n from pg_prepared_statements where statement like $1",
      ["%from t%"],
    );
    expect(prepared).toEqual([{ n: 0 }]);
  });
});

describe("plans kept by the list statements on the Postgres server", () => {
  let db: Database;
  let ctx: CatalogContext;
  let drop: () => Promise<void>;
  const ORG = "org_plans";

  beforeAll(async () => {
    const t = await createTestDatabase("plans");
    drop = t.drop;
    db = await openPg(t.url, 1); // one connection: its prepared statements are the ones we read
    ctx = catalogContext(db);
    await migrate(db);
    await db.exec(`
      insert into organizations (id, slug, name) values ('${ORG}', 'plans', 'Plans');
      insert into families (id, org_id, slug, code, label) values ('fam_p', '${ORG}', 'p', 'p', 'Chaises');
      insert into categories (id, org_id, slug, label) values ('cat_p', '${ORG}', 'p', 'Salon');
      insert into products (id, org_id, identifier, label, family_id, category_id)
      select 'prd_' || i, '${ORG}', 'SKU-' || i, 'Chaise ' || i, 'fam_p', 'cat_p' from generate_series(1, 50) i;
    `);
  });
  afterAll(async () => {
    await db?.close();
    await drop?.();
  });

  const plans = async (like: string) =>
    db.query<{ generic_plans: number; custom_plans: number }>(
      "select generic_plans::int, custom_plans::int from pg_prepared_statements where statement like $1",
      [like],
    );
  const list = (search: string) =>
    listProducts(ctx, ORG, parseQuery(new URLSearchParams(search), productsQuery) as ProductsQuery);

  it("keeps a generic plan for a first page filtered by the organization alone", async () => {
    for (let i = 0; i < 8; i++) expect((await list("")).data).toHaveLength(20);
    const [p] = await plans("select p.id%from products p where p.org_id = $1  order by%limit 20 offset 0");
    expect(p!.generic_plans).toBeGreaterThan(0);
  });

  it("keeps one generic plan for a common word's page, which walks the sort index", async () => {
    // The first requests count (the search, then the unfiltered list in the background) through the index.
    for (let i = 0; i < 12; i++) expect((await list("q=chaise")).pagination.total).toBe(50);
    const [walk] = await plans(
      "select p.id%from products p where p.org_id = (select $1::text) and strpos(p.search,%limit 20 offset 0",
    );
    expect(walk).toBeDefined();
    expect(walk!.generic_plans).toBeGreaterThan(0);
  });
});
