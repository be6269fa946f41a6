import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database, Queryable } from "@/db/client";
import { migrate } from "@/db/migrate";
import { catalogContext, type CatalogContext } from "@/lib/catalog/context";
import { MATCHES_FIRST_MIN } from "@/lib/catalog/list/engine";
import { listMedia, mediaQuery, type MediaQuery } from "@/lib/catalog/resources/media";
import { listProducts, productsQuery, type ProductsQuery } from "@/lib/catalog/resources/products";
import { parseQuery } from "@/lib/public-api/params";
import { openEmptyDatabase } from "../support/databases";

// A filtered page whose filter's total is known to be small, or not much more than the page needs, reads its matches
// first and then sorts them (lib/catalog/list/engine.ts, matchesFirst): the same rows as the plain statement, through
// writes, on both drivers.

const ORG = "org_first";
const OTHER = "org_first_other";
const MEDIA = 3_000;

// Every statement reaches the database; the texts are kept to see which form a page took.
function spy(db: Database): Queryable & { texts: string[] } {
  const s = {
    texts: [] as string[],
    query: async <R>(text: string, params?: readonly unknown[]) => {
      s.texts.push(text);
      return db.query<R>(text, params);
    },
  };
  return s;
}
const FENCE = /offset 0\) [a-z]+ order by/;

async function seed(db: Database): Promise<void> {
  await db.exec(`
    insert into organizations (id, slug, name) values ('${ORG}', 'first', 'First'), ('${OTHER}', 'other', 'Other');
    insert into families (id, org_id, slug, code, label) values ('fam_a', '${ORG}', 'a', 'a', 'A'), ('fam_b', '${ORG}', 'b', 'b', 'B');
    insert into categories (id, org_id, slug, label) values ('cat_a', '${ORG}', 'a', 'Salon'), ('cat_b', '${ORG}', 'b', 'Cuisine');
    insert into media (id, org_id, slug, original_name, type, category, file_name, mime_type, updated_at)
    select 'med_' || lpad(i::text, 4, '0'), '${ORG}', 's' || lpad((i * 7 % ${MEDIA})::text, 4, '0'),
           'fichier-' || (i % 37) || '.bin',
           case when i % 13 = 0 then 'VIDEO' when i % 5 = 0 then 'DOCUMENT' else 'IMAGE' end,
           -- Documents gather in the last categories (the spread a walk is not planned for).
           case when i % 5 = 0 and i % 13 <> 0 then 'Zz fiches ' || (i % 3) else 'Photos ' || (i % 9) end,
           'f' || i || '.bin', 'application/octet-stream',
           timestamptz '2026-01-01T00:00:00Z' + ((i / 2) || ' minutes')::interval
      from generate_series(1, ${MEDIA}) i;
    insert into media (id, org_id, slug, original_name, type, category, file_name, mime_type)
    select 'med_o' || i, '${OTHER}', 'o' || i, 'autre.bin', 'VIDEO', 'Photos 1', 'o.bin', 'video/mp4'
      from generate_series(1, 40) i;
    insert into products (id, org_id, identifier, label, status, family_id, category_id, updated_at)
    select 'prd_' || lpad(i::text, 4, '0'), '${ORG}', 'SKU-' || i, 'Produit ' || (i % 11),
           (array['draft', 'published', 'archived'])[1 + i % 3],
           case when i % 9 = 0 then 'fam_a' else 'fam_b' end, case when i % 2 = 0 then 'cat_a' else 'cat_b' end,
           timestamptz '2026-01-01T00:00:00Z' + ((i / 2) || ' minutes')::interval
      from generate_series(1, 300) i;
  `);
  // Some media linked to a product (not orphans).
  await db.exec(`
    insert into media_links (org_id, media_id, product_id)
    select '${ORG}', 'med_' || lpad(i::text, 4, '0'), 'prd_0001' from generate_series(1, ${MEDIA}, 4) i;
  `);
}

const MEDIA_COLUMNS: Record<string, string> = {
  originalName: "m.original_name_sort",
  slug: "m.slug",
  type: "m.type",
  category: "m.category_sort",
  updatedAt: "m.updated_at",
};

// The plain statement of a media page: the filters, the sort and OFFSET, nothing else.
async function plainMedia(db: Database, q: MediaQuery): Promise<string[]> {
  const conds = ["m.org_id = $1", "m.is_public"];
  const params: unknown[] = [ORG];
  if (q.type?.length) conds.push(`m.type = any($${params.push(q.type)}::text[])`);
  if (q.orphansOnly) conds.push("m.link_count = 0");
  const order = [...q.sort.map((k) => `${MEDIA_COLUMNS[k.field]} ${k.order}`), `m.id ${q.sort[0]!.order}`];
  const rows = await db.query<{ id: string }>(
    `select m.id from media m where ${conds.join(" and ")} order by ${order.join(", ")}
      limit $${params.length + 1} offset $${params.length + 2}`,
    [...params, q.perPage, (q.page - 1) * q.perPage],
  );
  return rows.map((r) => r.id);
}

function suite(name: string, open: () => Promise<{ db: Database; close: () => Promise<void> }>) {
  describe(name, () => {
    let db: Database;
    let close: () => Promise<void>;
    let ctx: CatalogContext;
    let seen: ReturnType<typeof spy>;

    beforeAll(async () => {
      ({ db, close } = await open());
      await migrate(db);
      await seed(db);
      seen = spy(db);
      ctx = catalogContext(seen);
    });
    afterAll(async () => {
      await close?.();
    });

    // Reads a media page twice (the first counts its filter), checks both against the plain statement, and says
    // whether the second read its matches first.
    async function mediaPage(search: string): Promise<boolean> {
      const q = parseQuery(new URLSearchParams(search), mediaQuery) as MediaQuery;
      const want = await plainMedia(db, q);
      const first = await listMedia(ctx, { id: ORG, slug: "first" }, q, "http://x.test");
      expect(
        first.data.map((m) => m.id),
        search,
      ).toEqual(want);
      seen.texts.length = 0;
      const again = await listMedia(ctx, { id: ORG, slug: "first" }, q, "http://x.test");
      expect(
        again.data.map((m) => m.id),
        search,
      ).toEqual(want);
      expect(again.pagination.total, search).toBe(first.pagination.total);
      return seen.texts.some((t) => FENCE.test(t));
    }

    const CASES = [
      "type=DOCUMENT,VIDEO&orphansOnly=true&sort=originalName.asc&perPage=5&page=4",
      "type=IMAGE&sort=category.asc,slug.desc&page=80&perPage=3",
      "orphansOnly=true&type=VIDEO&sort=slug.asc&page=3&perPage=10",
      "type=VIDEO,DOCUMENT&sort=updatedAt.desc&page=2&perPage=5",
    ];
    // One type in one sort: an index holds the page's order, so the page walks it however few the matches.
    const IN_ORDER = [
      "type=VIDEO&sort=slug.desc&page=2&perPage=7",
      "type=DOCUMENT&sort=category.desc&page=3&perPage=10",
      "orphansOnly=true&type=IMAGE&sort=updatedAt.asc&page=10&perPage=25",
      "type=VIDEO&sort=updatedAt.desc&page=40&perPage=10",
      "type=DOCUMENT&sort=originalName.asc&page=30&perPage=20",
    ];

    it("reads a filtered page's matches first once its total is known, with the plain statement's rows", async () => {
      for (const c of CASES) expect(await mediaPage(c), c).toBe(true);
    });

    it("walks the index of one media type in one sort, with the plain statement's rows", async () => {
      for (const c of IN_ORDER) expect(await mediaPage(c), c).toBe(false);
    });

    it("keeps walking the sort's order when the matches are many more than the page needs", async () => {
      // 2,216 images: over MATCHES_FIRST_MIN, and over ten times the 20 rows of page 2.
      const images = parseQuery(new URLSearchParams("type=IMAGE"), mediaQuery) as MediaQuery;
      const total = (await listMedia(ctx, { id: ORG, slug: "first" }, images, "http://x.test")).pagination
        .total;
      expect(total).toBeGreaterThan(MATCHES_FIRST_MIN);
      expect(await mediaPage("type=IMAGE&sort=slug.asc&page=2&perPage=10")).toBe(false);
      // Without a filter, one plan serves every page: never read first.
      expect(await mediaPage("sort=slug.asc&page=200&perPage=10")).toBe(false);
    });

    it("answers as the plain statement after inserts, changes of type, links and deletes", async () => {
      await db.exec(`
        insert into media (id, org_id, slug, original_name, type, category, file_name, mime_type)
        values ('med_new1', '${ORG}', 'a-new', 'nouveau.mp4', 'VIDEO', 'Zz fiches 9', 'n.mp4', 'video/mp4');
        update media set type = 'VIDEO' where org_id = '${ORG}' and id in ('med_0005', 'med_0010');
        delete from media_links where org_id = '${ORG}' and media_id = 'med_0001';
        delete from media where org_id = '${ORG}' and id = 'med_0026';
      `);
      for (const c of CASES) expect(await mediaPage(c), c).toBe(true);
      for (const c of IN_ORDER) expect(await mediaPage(c), c).toBe(false);
    });

    it("reads products in several sorts the same way, with the plain statement's rows", async () => {
      const search = "familyId=fam_a&sort=status.asc,label.desc&perPage=4&page=3";
      const q = parseQuery(new URLSearchParams(search), productsQuery) as ProductsQuery;
      const plain = async () =>
        (
          await db.query<{ id: string }>(
            `select p.id from products p where p.org_id = $1 and p.family_id = 'fam_a'
              order by p.status asc, p.label_sort desc, p.id asc limit 4 offset 8`,
            [ORG],
          )
        ).map((r) => r.id);
      expect((await listProducts(ctx, ORG, q)).data.map((p) => p.id)).toEqual(await plain());
      seen.texts.length = 0;
      expect((await listProducts(ctx, ORG, q)).data.map((p) => p.id)).toEqual(await plain());
      expect(seen.texts.some((t) => FENCE.test(t))).toBe(true);
      await db.exec(
        `update products set family_id = 'fam_a', status = 'draft' where org_id = '${ORG}' and id = 'prd_0100'`,
      );
      expect((await listProducts(ctx, ORG, q)).data.map((p) => p.id)).toEqual(await plain());
    });
  });
}

suite("matches first on PGlite", () => openEmptyDatabase("pglite", "first"));
suite("matches first on the Postgres server", () => openEmptyDatabase("pg", "first", 4));
