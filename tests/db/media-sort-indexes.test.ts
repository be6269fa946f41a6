// The public media's indexes in each documented order (migration 0029), on PGlite and on the Postgres server: a
// list page's ids, in every sort and both directions, come from an index-only scan of the index of that order, and
// the list in that order holds the public media only, as the plain sort of every public media gives them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { migrate } from "@/db/migrate";
import { catalogContext } from "@/lib/catalog/context";
import { MEDIA_SORTS, listMedia, mediaQuery, type MediaQuery } from "@/lib/catalog/resources/media";
import { parseQuery } from "@/lib/public-api/params";
import { openEmptyDatabase, type Driver } from "../support/databases";

const ORG = "org_ms_a";
const MEDIA = 240;

// Which index holds the public media in each order.
const INDEX_OF: Record<keyof typeof MEDIA_SORTS, string> = {
  originalName: "media_org_public_name",
  slug: "media_org_public_slug",
  type: "media_org_public_type",
  category: "media_org_public_category",
  updatedAt: "media_org_public_updated",
};

async function seed(db: Database): Promise<void> {
  await db.query("insert into organizations (id, slug, name) values ($1, $1, $1)", [ORG]);
  // Every fifth media is private; names, categories, types and instants repeat, so that the id breaks ties.
  await db.query(
    `insert into media (id, org_id, slug, original_name, type, category, file_name, mime_type, is_public, updated_at)
     select $1 || '_m' || lpad(i::text, 3, '0'), $1, 's' || (i * 37 % $2), 'Nom ' || (i % 17),
            (array['IMAGE', 'DOCUMENT', 'VIDEO'])[1 + i % 3], 'Cat ' || (i % 7), 'm' || i || '.jpg', 'image/jpeg',
            i % 5 <> 0, timestamp '2026-01-01' + (i % 11) * interval '1 hour'
       from generate_series(1, $2::int) i`,
    [ORG, MEDIA],
  );
  await db.exec("vacuum analyze media");
}

const query = (search: string) => parseQuery(new URLSearchParams(search), mediaQuery) as MediaQuery;

describe.each(["pglite", "pg"] as const)("public media sort indexes on %s", (driver: Driver) => {
  let db: Database;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ db, close } = await openEmptyDatabase(driver, "media_sorts"));
    await migrate(db);
    await seed(db);
  });
  afterAll(async () => {
    await close?.();
  });

  const cases = Object.keys(MEDIA_SORTS).flatMap((field) =>
    (["asc", "desc"] as const).map((order) => ({ field: field as keyof typeof MEDIA_SORTS, order })),
  );

  it.each(cases)("a page sorted by $field $order reads its order's index alone", async ({ field, order }) => {
    const column = MEDIA_SORTS[field].column;
    // The table is small enough to be read whole and sorted: with both off, the plan says which index serves.
    const plan = await db.transaction(async (tx) => {
      await tx.exec("set local enable_seqscan = off");
      await tx.exec("set local enable_sort = off");
      await tx.exec("set local enable_bitmapscan = off");
      return tx.query(
        `explain (format json) select m.id from media m where m.org_id = $1 and m.is_public
          order by ${column} ${order}, m.id ${order} limit 20 offset 40`,
        [ORG],
      );
    });
    const text = JSON.stringify(plan);
    expect(text).toContain('"Node Type":"Index Only Scan"');
    expect(text).toContain(`"Index Name":"${INDEX_OF[field]}"`);
  });

  it.each(cases)(
    "the list sorted by $field $order holds the public media in order",
    async ({ field, order }) => {
      const column = MEDIA_SORTS[field].column;
      const plain = await db.query<{ id: string }>(
        `select m.id from media m where m.org_id = $1 and m.is_public order by ${column} ${order}, m.id ${order}`,
        [ORG],
      );
      const ctx = catalogContext(db);
      const ids: string[] = [];
      for (let page = 1; page <= 2; page++) {
        const list = await listMedia(
          ctx,
          { id: ORG, slug: "a" },
          query(`sort=${field}.${order}&perPage=100&page=${page}`),
          "http://api.test",
        );
        expect(list.pagination.total).toBe((MEDIA * 4) / 5);
        ids.push(...list.data.map((m) => m.id));
      }
      expect(ids).toEqual(plain.map((r) => r.id));
      expect(ids.some((id) => Number(id.slice(-3)) % 5 === 0)).toBe(false);
    },
  );
});
