import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database, Queryable } from "@/db/client";
import { migrate } from "@/db/migrate";
import { catalogContext, type CatalogContext } from "@/lib/catalog/context";
import { countKey } from "@/lib/catalog/list/count-cache";
import { SEARCH_WALK_MAX_ROWS, searchWalks } from "@/lib/catalog/list/search-walk";
import { Where, addSearch, type Statement } from "@/lib/catalog/sql";
import { listProducts } from "@/lib/catalog/resources/products";
import { parseQuery } from "@/lib/public-api/params";
import { productsQuery as productsQueryDef, type ProductsQuery } from "@/lib/catalog/resources/products";
import { openEmptyDatabase } from "../support/databases";

// A search for a common word walks the sort index and tests each row (strpos) instead of asking the trigram
// index (LIKE): the two conditions must select the same rows for any text, and the choice (made from the
// remembered totals) must never change a response.

const ORG = "org_walk";
const OTHER = "org_walk_other";

const productsQuery = (search: string) =>
  parseQuery(new URLSearchParams(search), productsQueryDef) as ProductsQuery;

// Texts that a search may contain: accents, case, ligatures, LIKE's wildcards and escape, quotes, spaces.
const TRICKY = [
  "creme",
  "CRÈME",
  "brûlée",
  "50%",
  "%",
  "_",
  "a_b",
  "a%b",
  "\\",
  "c:\\temp",
  "oeuvre",
  "Œuvre",
  "strasse",
  "straße",
  "été",
  "ETE",
  "'",
  "l'été",
  " ",
  "e",
  "zzz-absent",
  "–",
];

async function seed(db: Database): Promise<void> {
  await db.exec(`
    insert into organizations (id, slug, name) values ('${ORG}', 'walk', 'Walk'), ('${OTHER}', 'walk-other', 'Other');
    insert into families (id, org_id, slug, code, label) values ('fam_w', '${ORG}', 'w', 'w', 'F'), ('fam_o', '${OTHER}', 'o', 'o', 'F');
    insert into categories (id, org_id, slug, label) values ('cat_w', '${ORG}', 'w', 'C'), ('cat_o', '${OTHER}', 'o', 'C');
  `);
  // 240 products: labels cycle through the tricky texts and a common word, timestamps and statuses spread.
  await db.exec(`
    insert into products (id, org_id, identifier, label, status, family_id, category_id, updated_at)
    select 'prd_' || lpad(i::text, 4, '0'), '${ORG}', 'W-' || i,
           (array['Crème brûlée 50% sucre', 'Lampe a_b', 'Chemin c:\\temp', 'Œuvre d''été', 'Straße – Nord',
                  'Table a%b', 'Chaise', 'Étagère L''ÉTÉ'])[1 + i % 8] || ' ' || (i % 13),
           (array['draft', 'published', 'archived'])[1 + i % 3], 'fam_w', 'cat_w',
           timestamptz '2026-01-01T00:00:00Z' + ((i / 2) || ' minutes')::interval
      from generate_series(1, 240) i;
    insert into products (id, org_id, identifier, label, family_id, category_id)
    select 'prd_o' || i, '${OTHER}', 'O-' || i, 'Crème Chaise Œuvre', 'fam_o', 'cat_o' from generate_series(1, 40) i;
  `);
}

const ids = async (db: Queryable, where: Where) =>
  (
    await db.query<{ id: string }>(`select p.id from products p where ${where} order by p.id`, where.params)
  ).map((r) => r.id);

// A handle that records the statements it passes to the database.
function recording(db: Database): { s: Queryable; statements: string[] } {
  const statements: string[] = [];
  const s: Queryable = {
    query: <R>(text: string, params?: readonly unknown[]) => {
      statements.push(text);
      return db.query<R>(text, params);
    },
  };
  return { s, statements };
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

    it("selects the same rows walking (strpos) as through the index (LIKE), for every kind of text", async () => {
      let matched = 0;
      for (const q of TRICKY) {
        const index = new Where("p.org_id", ORG);
        addSearch(index, "p.search", q, "index");
        const walk = new Where("p.org_id", ORG, true);
        addSearch(walk, "p.search", q, "walk");
        const expected = await ids(db, index);
        expect(await ids(db, walk), `q=${JSON.stringify(q)}`).toEqual(expected);
        expect(
          expected.every((id) => id.startsWith("prd_0")),
          `q=${JSON.stringify(q)}: other organization`,
        ).toBe(true);
        if (expected.length > 0 && expected.length < 240) matched++;
      }
      // Not a vacuous comparison: most texts select some rows and not all.
      expect(matched).toBeGreaterThanOrEqual(15);
    });

    it("answers a common word's pages walking, with the same rows and totals as through the index", async () => {
      const { s, statements } = recording(db);
      const ctx = catalogContext(s);
      for (const search of [
        "q=chaise",
        "q=CRÈME&sort=updatedAt.desc",
        "q=oeuvre&sort=status.desc&page=2&perPage=7",
        "q=%25&sort=updatedAt.asc",
      ]) {
        statements.length = 0;
        const first = await listProducts(ctx, ORG, productsQuery(search));
        expect(
          statements.some((t) => t.includes("strpos")),
          search,
        ).toBe(false);
        expect(first.pagination.total, search).toBeGreaterThan(0);
        // The totals are remembered now (the unfiltered list's is counted in the background once): the next
        // requests walk.
        let walked: typeof first | undefined;
        for (let i = 0; i < 500 && !walked; i++) {
          statements.length = 0;
          const again = await listProducts(ctx, ORG, productsQuery(search));
          if (statements.some((t) => t.includes("strpos"))) walked = again;
          else await new Promise((r) => setTimeout(r, 10));
        }
        expect(walked, `${search}: never walked`).toBeDefined();
        expect(walked).toEqual(first);
        expect(walked!.data.length).toBeGreaterThan(0);
      }
    });

    it("keeps the index for a search with a family, in an order that no index serves, or by label (its words gather there)", async () => {
      const { s, statements } = recording(db);
      const ctx = catalogContext(s);
      for (const search of [
        "q=chaise&familyId=fam_w",
        "q=chaise&sort=identifier.asc",
        "q=chaise&sort=label.asc",
        "q=chaise&sort=status.asc,label.asc",
      ]) {
        for (let i = 0; i < 3; i++) await listProducts(ctx, ORG, productsQuery(search));
        expect(
          statements.some((t) => t.includes("strpos")),
          search,
        ).toBe(false);
      }
    });
  });
}

suite("search walk on PGlite", () => openEmptyDatabase("pglite", "walk"));
suite("search walk on the Postgres server", () => openEmptyDatabase("pg", "walk", 4));

// The choice alone, from totals put in the count cache of a recording handle (no database: one function isolated).
describe("searchWalks", () => {
  const search = {
    sql: "select count(*)::int as total from t where org = $1 and s like $2",
    params: ["o", "%w%"],
  };
  const all = { sql: "select count(*)::int as total from t where org = $1", params: ["o"] };
  const handle = () => {
    const calls: string[] = [];
    const db: Queryable = {
      query: async <R>(text: string) => {
        calls.push(text);
        return [{ total: 1_000_000, version: "1" }] as R[];
      },
    };
    return { db: catalogContext(db), calls };
  };
  const remember = (ctx: CatalogContext, what: Statement, total: number) =>
    ctx.counts.set(countKey(what), "1", total);

  it("walks when the page's rows are found within the bound, assuming matches spread evenly", () => {
    const { db } = handle();
    remember(db, all, 1_000_000);
    remember(db, search, 55_000);
    expect(searchWalks(db, "products", search, all, 20)).toBe(true); // ~364 rows
    expect(searchWalks(db, "products", search, all, 500)).toBe(true); // ~9,091 rows
    expect(searchWalks(db, "products", search, all, 600)).toBe(false); // ~10,909 rows
    remember(db, search, 1_000);
    expect(searchWalks(db, "products", search, all, 20)).toBe(false); // 20,000 rows
    remember(db, search, (20 * 1_000_000) / SEARCH_WALK_MAX_ROWS);
    expect(searchWalks(db, "products", search, all, 20)).toBe(true); // exactly the bound
  });

  it("does not walk for a word that nothing holds or whose total is not known yet", () => {
    const { db, calls } = handle();
    remember(db, all, 1_000);
    expect(searchWalks(db, "products", search, all, 20)).toBe(false);
    remember(db, search, 0);
    expect(searchWalks(db, "products", search, all, 20)).toBe(false);
    expect(calls).toEqual([]);
  });

  it("counts the unfiltered list in the background when its total is not known, then uses it", async () => {
    const { db, calls } = handle();
    remember(db, search, 900_000);
    expect(searchWalks(db, "products", search, all, 20)).toBe(false);
    await new Promise((r) => setTimeout(r, 0));
    expect(calls).toHaveLength(1);
    expect(calls[0]).toContain(all.sql);
    expect(searchWalks(db, "products", search, all, 20)).toBe(true);
  });
});
