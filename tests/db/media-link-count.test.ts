// media.link_count (migration 0004) against the links it counts, on PGlite and on the Postgres server: every
// kind of change to media_links, the cascades that delete links, truncation, the migration's backfill,
// concurrent writers, and the orphan list that reads it.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { listMigrations, migrate } from "@/db/migrate";
import { listMedia } from "@/lib/catalog/resources/media";
import { mediaQuery, type MediaQuery } from "@/lib/catalog/resources/media";
import { catalogContext } from "@/lib/catalog/context";
import { parseQuery } from "@/lib/public-api/params";
import { openEmptyDatabase, type Driver } from "../support/databases";

const ORGS = ["org_lc_a", "org_lc_b"];
const MEDIA = 6; // per organization
const PRODUCTS = 4;

async function seed(db: Database): Promise<void> {
  for (const org of ORGS) {
    await db.query("insert into organizations (id, slug, name) values ($1, $1, $1)", [org]);
    await db.exec(`
      insert into families (id, org_id, slug, code, label) values ('${org}_f', '${org}', 'f', 'f', 'F');
      insert into categories (id, org_id, slug, label) values ('${org}_c', '${org}', 'c', 'C');
      insert into products (id, org_id, identifier, label, family_id, category_id)
      select '${org}_p' || i, '${org}', 'SKU-' || i, 'Produit ' || i, '${org}_f', '${org}_c'
        from generate_series(1, ${PRODUCTS}) i`);
    await db.query(
      `insert into media (id, org_id, slug, original_name, type, category, file_name, mime_type, is_public, updated_at)
       select $1 || '_m' || i, $1, 'm' || i, 'photo ' || i, 'IMAGE', 'Photos', 'm' || i || '.jpg', 'image/jpeg',
              i <> 2, timestamp '2026-01-01' + i * interval '1 hour'
         from generate_series(1, $2::int) i`,
      [org, MEDIA],
    );
  }
}

// Media whose link_count differs from the number of rows of media_links that point at it.
async function drift(db: Database): Promise<{ id: string; kept: number; actual: number }[]> {
  return db.query(
    `select m.id, m.link_count as kept,
            (select count(*)::int from media_links l where l.org_id = m.org_id and l.media_id = m.id) as actual
       from media m
      where m.link_count <> (select count(*) from media_links l where l.org_id = m.org_id and l.media_id = m.id)
      order by m.id`,
  );
}

const linkCounts = async (db: Database) =>
  Object.fromEntries(
    (await db.query<{ id: string; n: number }>("select id, link_count as n from media order by id")).map(
      (r) => [r.id, r.n],
    ),
  );

const orphansQuery = (search = "orphansOnly=true&perPage=100") =>
  parseQuery(new URLSearchParams(search), mediaQuery) as MediaQuery;

// One change to media_links (or to what its links cascade from), as a random test draws it.
type Op =
  | { kind: "link"; org: number; media: number[]; product: number }
  | { kind: "linkCategory"; org: number; media: number }
  | { kind: "unlinkMedia"; org: number; media: number }
  | { kind: "unlinkProduct"; org: number; product: number }
  | { kind: "move"; org: number; from: number; to: number }
  | { kind: "retarget"; org: number; media: number }
  | { kind: "deleteProduct"; org: number; product: number };

async function apply(db: Database, op: Op): Promise<void> {
  const org = ORGS[op.org]!;
  const m = (i: number) => `${org}_m${i}`;
  const p = (i: number) => `${org}_p${i}`;
  switch (op.kind) {
    case "link": // several links in one statement, the same media possibly more than once
      await db.query(
        `insert into media_links (org_id, media_id, product_id)
         select $1, x, $3 from unnest($2::text[]) x`,
        [org, op.media.map(m), p(op.product)],
      );
      return;
    case "linkCategory":
      await db.query("insert into media_links (org_id, media_id, category_id) values ($1, $2, $1 || '_c')", [
        org,
        m(op.media),
      ]);
      return;
    case "unlinkMedia":
      await db.query("delete from media_links where org_id = $1 and media_id = $2", [org, m(op.media)]);
      return;
    case "unlinkProduct":
      await db.query("delete from media_links where org_id = $1 and product_id = $2", [org, p(op.product)]);
      return;
    case "move": // every link of one media to another
      await db.query("update media_links set media_id = $3 where org_id = $1 and media_id = $2", [
        org,
        m(op.from),
        m(op.to),
      ]);
      return;
    case "retarget": // same media, another target: the count must not move
      await db.query(
        `update media_links set product_id = null, category_id = $1 || '_c'
          where org_id = $1 and media_id = $2 and product_id is not null`,
        [org, m(op.media)],
      );
      return;
    case "deleteProduct": // its links go by cascade; the product comes back for later operations
      await db.transaction(async (tx) => {
        await tx.query("delete from products where org_id = $1 and id = $2", [org, p(op.product)]);
        await tx.query(
          `insert into products (id, org_id, identifier, label, family_id, category_id)
           values ($2, $1, $2, 'Produit', $1 || '_f', $1 || '_c')`,
          [org, p(op.product)],
        );
      });
      return;
  }
}

const media = fc.integer({ min: 1, max: MEDIA });
const product = fc.integer({ min: 1, max: PRODUCTS });
const org = fc.integer({ min: 0, max: ORGS.length - 1 });
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant("link" as const),
    org,
    media: fc.array(media, { minLength: 1, maxLength: 4 }),
    product,
  }),
  fc.record({ kind: fc.constant("linkCategory" as const), org, media }),
  fc.record({ kind: fc.constant("unlinkMedia" as const), org, media }),
  fc.record({ kind: fc.constant("unlinkProduct" as const), org, product }),
  fc.record({ kind: fc.constant("move" as const), org, from: media, to: media }),
  fc.record({ kind: fc.constant("retarget" as const), org, media }),
  fc.record({ kind: fc.constant("deleteProduct" as const), org, product }),
);

describe.each(["pglite", "pg"] as const)("media link_count on %s", (driver: Driver) => {
  let db: Database;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ db, close } = await openEmptyDatabase(driver, "link_count", 4));
    await migrate(db);
    await seed(db);
  });
  afterAll(async () => {
    await close?.();
  });

  it("follows inserts, deletes, moves and cascades, statement by statement", async () => {
    await apply(db, { kind: "link", org: 0, media: [1, 1, 3], product: 1 });
    await apply(db, { kind: "linkCategory", org: 0, media: 3 });
    await apply(db, { kind: "link", org: 1, media: [1], product: 2 });
    let counts = await linkCounts(db);
    expect([counts.org_lc_a_m1, counts.org_lc_a_m3, counts.org_lc_a_m4, counts.org_lc_b_m1]).toEqual([
      2, 2, 0, 1,
    ]);

    await apply(db, { kind: "move", org: 0, from: 1, to: 4 });
    await apply(db, { kind: "retarget", org: 0, media: 3 });
    counts = await linkCounts(db);
    expect([counts.org_lc_a_m1, counts.org_lc_a_m3, counts.org_lc_a_m4, counts.org_lc_b_m1]).toEqual([
      0, 2, 2, 1,
    ]);

    // A swap in one statement: m3 (two category links) and m4 (two product links) keep their counts.
    await db.query(
      `update media_links set media_id = case media_id when 'org_lc_a_m3' then 'org_lc_a_m4' else 'org_lc_a_m3' end
        where org_id = 'org_lc_a' and media_id in ('org_lc_a_m3', 'org_lc_a_m4')`,
    );
    expect((await linkCounts(db)).org_lc_a_m4).toBe(2);

    await apply(db, { kind: "deleteProduct", org: 0, product: 1 });
    counts = await linkCounts(db);
    // The swap gave m3 the two links to p1 and m4 the two to the category: p1's deletion empties m3 only.
    expect([counts.org_lc_a_m3, counts.org_lc_a_m4]).toEqual([0, 2]);
    expect(await drift(db)).toEqual([]);

    // Deleting a linked media takes its links with it, without touching the others.
    await db.query("delete from media where id = 'org_lc_a_m4'");
    expect(await drift(db)).toEqual([]);
    await db.query(
      "insert into media (id, org_id, slug, original_name, type, category, file_name, mime_type, updated_at) values ('org_lc_a_m4', 'org_lc_a', 'm4', 'photo 4', 'IMAGE', 'Photos', 'm4.jpg', 'image/jpeg', '2026-01-01T04:00:00Z')",
    );

    await db.exec("truncate media_links");
    expect(Object.values(await linkCounts(db)).every((n) => n === 0)).toBe(true);
  });

  it("equals the number of links after any sequence of changes; the orphan list agrees with the links", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops) => {
        await db.exec("truncate media_links");
        for (const o of ops) await apply(db, o);
        expect(await drift(db)).toEqual([]);
        for (const org of ORGS) {
          const page = await listMedia(
            catalogContext(db),
            { id: org, slug: org },
            orphansQuery(),
            "http://api.test",
          );
          const expected = await db.query<{ id: string }>(
            `select id from media m where org_id = $1 and is_public
                and not exists (select 1 from media_links l where l.org_id = m.org_id and l.media_id = m.id)
              order by updated_at desc, id desc`,
            [org],
          );
          expect(page.data.map((i) => i.id)).toEqual(expected.map((r) => r.id));
          expect(page.pagination.total).toBe(expected.length);
        }
      }),
      { numRuns: driver === "pg" ? 40 : 60 },
    );
  });

  it("the migration counts the links that were there before it", async () => {
    const { db: old, close: closeOld } = await openEmptyDatabase(driver, "link_count_backfill");
    try {
      const all = listMigrations();
      await migrate(
        old,
        all.filter((m) => m.version < "0004"),
      );
      await seed(old);
      await old.exec(`
        insert into media_links (org_id, media_id, product_id) values
          ('org_lc_a', 'org_lc_a_m1', 'org_lc_a_p1'), ('org_lc_a', 'org_lc_a_m1', 'org_lc_a_p2'),
          ('org_lc_b', 'org_lc_b_m5', 'org_lc_b_p1')`);
      expect(await migrate(old, all)).toContain("0004");
      const counts = await linkCounts(old);
      expect([counts.org_lc_a_m1, counts.org_lc_a_m2, counts.org_lc_b_m5]).toEqual([2, 0, 1]);
      expect(await drift(old)).toEqual([]);
    } finally {
      await closeOld();
    }
  });

  // On the server the transactions contend for the media's row; PGlite runs them one after the other.
  it("stays exact under concurrent writers on the same media", async () => {
    await db.exec("truncate media_links");
    const writers = Array.from({ length: 8 }, (_, w) =>
      db.transaction(async (tx) => {
        for (let i = 0; i < 5; i++) {
          await tx.query(
            "insert into media_links (org_id, media_id, product_id) values ('org_lc_a', 'org_lc_a_m6', $1)",
            [`org_lc_a_p${1 + ((w + i) % PRODUCTS)}`],
          );
        }
        if (w % 2 === 0) {
          await tx.query(
            "delete from media_links where ctid in (select ctid from media_links where media_id = 'org_lc_a_m6' and product_id = $1 limit 1)",
            [`org_lc_a_p${1 + (w % PRODUCTS)}`],
          );
        }
      }),
    );
    await Promise.all(writers);
    expect((await linkCounts(db)).org_lc_a_m6).toBe(8 * 5 - 4);
    expect(await drift(db)).toEqual([]);
  });

  it("the orphan page reads the partial index, newest first", async () => {
    await db.exec("truncate media_links");
    await apply(db, { kind: "link", org: 0, media: [5], product: 2 });
    // The tiny table could be read whole, or through another orphans' index and sorted (each order has its own):
    // with sequential scans and sorts off, the date order's index is used if its predicate matches.
    const plan = await db.transaction(async (tx) => {
      await tx.exec("set local enable_seqscan = off");
      await tx.exec("set local enable_sort = off");
      return tx.query(
        `explain (format json) select id from media m
          where m.org_id = 'org_lc_a' and m.is_public and m.link_count = 0
          order by m.updated_at desc, m.id desc limit 20`,
      );
    });
    expect(JSON.stringify(plan)).toContain('"Index Name":"media_org_orphans"');
    const page = await listMedia(
      catalogContext(db),
      { id: ORGS[0]!, slug: "a" },
      orphansQuery(),
      "http://api.test",
    );
    // m2 is private and m5 is linked: the other four, newest first.
    expect(page.data.map((i) => i.id)).toEqual(["org_lc_a_m6", "org_lc_a_m4", "org_lc_a_m3", "org_lc_a_m1"]);
  });
});
