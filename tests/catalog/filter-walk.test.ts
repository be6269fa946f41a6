import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database, Queryable } from "@/db/client";
import { migrate } from "@/db/migrate";
import { catalogContext } from "@/lib/catalog/context";
import {
  listProducts,
  productsQuery as productsQueryDef,
  type ProductsQuery,
} from "@/lib/catalog/resources/products";
import { parseQuery } from "@/lib/public-api/params";
import { openEmptyDatabase, type Driver } from "../support/databases";

// A filtered list (family, category, updatedSince) sorted by another column than updatedAt walks the sort's index
// only when its matches are common enough (filterWalks); a rare pair of family and category, or none (their
// products correlate), reads its matches first and sorts them (found by the bench's mix: a 1.2 s walk of a million
// rows for an empty pair). Either way the rows, their order and the total are the same as a plain sort's.

const ORG = "org_fw";
const OTHER = "org_fw_other";
const query = (search: string) => parseQuery(new URLSearchParams(search), productsQueryDef) as ProductsQuery;

// 3,000 products: family "big" holds almost all of them (categories "a" and "b"), family "rare" holds 3 (category
// "b") and no product is in family "rare" and category "a"; labels and statuses spread; another organization alike.
async function seed(db: Database): Promise<void> {
  await db.exec(`
    insert into organizations (id, slug, name) values ('${ORG}', 'fw', 'FW'), ('${OTHER}', 'fw-other', 'Other');
    insert into families (id, org_id, slug, code, label) values
      ('fam_big', '${ORG}', 'big', 'big', 'Big'), ('fam_rare', '${ORG}', 'rare', 'rare', 'Rare'),
      ('fam_o', '${OTHER}', 'o', 'o', 'O');
    insert into categories (id, org_id, slug, label) values
      ('cat_a', '${ORG}', 'a', 'A'), ('cat_b', '${ORG}', 'b', 'B'), ('cat_o', '${OTHER}', 'o', 'O');
    insert into products (id, org_id, identifier, label, status, family_id, category_id, updated_at)
    select 'prd_' || lpad(i::text, 5, '0'), '${ORG}', 'FW-' || (i * 7919 % 3001),
           (array['Lampe', 'chaise', 'Étagère', 'table', 'Œuvre', 'banc'])[1 + i % 6] || ' ' || (i * 31 % 97),
           (array['draft', 'published', 'archived'])[1 + i % 3],
           case when i % 1000 = 0 then 'fam_rare' else 'fam_big' end,
           case when i % 1000 = 0 or i % 2 = 0 then 'cat_b' else 'cat_a' end,
           timestamptz '2026-01-01T00:00:00Z' + (i || ' minutes')::interval
      from generate_series(1, 3000) i;
    insert into products (id, org_id, identifier, label, family_id, category_id)
    select 'prd_o' || i, '${OTHER}', 'O-' || i, 'Lampe', 'fam_o', 'cat_o' from generate_series(1, 50) i;
  `);
}

function recording(db: Database): { s: Queryable; statements: string[] } {
  const statements: string[] = [];
  return {
    statements,
    s: {
      query: <R>(text: string, params?: readonly unknown[]) => {
        statements.push(text);
        return db.query<R>(text, params);
      },
    },
  };
}

const SORTS = { label: "p.label_sort", identifier: "p.identifier", status: "p.status" } as const;

function suite(driver: Driver) {
  describe(driver, () => {
    let db: Database;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ db, close } = await openEmptyDatabase(driver, "filter_walk"));
      await migrate(db);
      await seed(db);
    });
    afterAll(() => close?.());

    // The expected page: the filter's rows in a plain SQL sort, and their count.
    async function expected(where: string, sort: keyof typeof SORTS, order: "asc" | "desc", page: number) {
      const rows = await db.query<{ id: string }>(
        `select p.id from products p where p.org_id = '${ORG}' and ${where} order by ${SORTS[sort]} ${order}, p.id ${order}`,
      );
      return { ids: rows.slice((page - 1) * 20, page * 20).map((r) => r.id), total: rows.length };
    }

    const cases = [
      {
        q: "familyId=fam_rare&categoryId=cat_a",
        where: "family_id = 'fam_rare' and category_id = 'cat_a'",
        first: true,
      },
      {
        q: "familyId=fam_rare&categoryId=cat_b",
        where: "family_id = 'fam_rare' and category_id = 'cat_b'",
        first: true,
      },
      { q: "familyId=fam_rare", where: "family_id = 'fam_rare'", first: true },
      { q: "familyId=fam_big", where: "family_id = 'fam_big'", first: false },
      { q: "categoryId=cat_a", where: "category_id = 'cat_a'", first: false },
      { q: "updatedSince=2026-01-03T01:57:00Z", where: "updated_at >= '2026-01-03T01:57:00Z'", first: true },
    ];

    for (const c of cases) {
      it(`${c.q}: ${c.first ? "reads its matches first" : "walks the sort's index"}, rows and total as a plain sort's`, async () => {
        for (const sort of Object.keys(SORTS) as (keyof typeof SORTS)[]) {
          for (const order of ["asc", "desc"] as const) {
            for (const page of [1, 2]) {
              const { s, statements } = recording(db);
              // A fresh context per request with the unfiltered total known (as a serving process has it).
              const ctx = catalogContext(s);
              await listProducts(ctx, ORG, query(""));
              statements.length = 0;
              const got = await listProducts(ctx, ORG, query(`${c.q}&sort=${sort}.${order}&page=${page}`));
              const want = await expected(c.where, sort, order, page);
              const label = `${c.q} sort=${sort}.${order} page=${page}`;
              expect(
                got.data.map((p) => p.id),
                label,
              ).toEqual(want.ids);
              expect(got.pagination.total, label).toBe(want.total);
              const pageSql = statements.find((t) => /order by/.test(t) && !/count\(/.test(t))!;
              expect(pageSql.includes(`${SORTS[sort]} || ''`), label).toBe(c.first);
            }
          }
        }
      });
    }

    it("sorted by updatedAt, a filter keeps its own index order (never read first)", async () => {
      const { s, statements } = recording(db);
      const got = await listProducts(
        catalogContext(s),
        ORG,
        query("familyId=fam_rare&categoryId=cat_a&sort=updatedAt.desc"),
      );
      expect(got.pagination.total).toBe(0);
      expect(statements.some((t) => t.includes("|| ''"))).toBe(false);
    });
  });
}

suite("pglite");
suite("pg");
