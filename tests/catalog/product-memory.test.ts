import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database, Queryable } from "@/db/client";
import { migrate } from "@/db/migrate";
import { catalogContext } from "@/lib/catalog/context";
import { RenderedList, jsonBytes } from "@/lib/catalog/list/rendered-list";
import { ProductMemory } from "@/lib/catalog/memory/product-memory";
import { listProducts, productsQuery, type ProductsQuery } from "@/lib/catalog/resources/products";
import { parseQuery } from "@/lib/public-api/params";
import { openEmptyDatabase, type Driver } from "../support/databases";

// The products in memory (lib/catalog/memory) hold every list's answer to the plain statements' answer: deep pages in
// every sort, totals of every filter (search, family, category, updatedSince, together), on both drivers, with
// writes of every kind between the reads (labels, instants, statuses, families, deletions, creations, a bulk update
// past the index's one-by-one bounds, families and categories relabelled) and writes that land just before or after
// the statements a page from memory reads with.

const ORG = "org_pm";
const OTHER = "org_pm_other";
const query = (search: string) => parseQuery(new URLSearchParams(search), productsQuery) as ProductsQuery;

// Labels in a channel: some products have one in chn_pm (some empty, one a number), fewer in chn_pm2, and some a
// value of no channel, which no channel's label shows.
async function seed(db: Database): Promise<void> {
  await db.exec(`
    insert into organizations (id, slug, name) values ('${ORG}', 'pm', 'PM'), ('${OTHER}', 'pm-other', 'Other');
    insert into channels (id, org_id, code, label) values
      ('chn_pm', '${ORG}', 'web', 'Web'), ('chn_pm2', '${ORG}', 'print', 'Print'), ('chn_o', '${OTHER}', 'web', 'Web');
    insert into attributes (id, org_id, slug, code, label, type, is_scopable) values
      ('att_name', '${ORG}', 'name', 'name', 'Nom', 'TEXT', true),
      ('att_name_o', '${OTHER}', 'name', 'name', 'Nom', 'TEXT', true);
    insert into families (id, org_id, slug, code, label) values
      ('fam_a', '${ORG}', 'a', 'a', 'A'), ('fam_b', '${ORG}', 'b', 'b', 'B'), ('fam_o', '${OTHER}', 'o', 'o', 'O');
    insert into categories (id, org_id, slug, label) values
      ('cat_a', '${ORG}', 'a', 'A'), ('cat_b', '${ORG}', 'b', 'B'), ('cat_o', '${OTHER}', 'o', 'O');
    insert into products (id, org_id, identifier, label, status, family_id, category_id, updated_at)
    select 'prd_' || lpad(i::text, 5, '0'), '${ORG}', 'PM-' || (i * 7919 % 3001),
           (array['Lampe', 'chaise', 'Étagère', 'table', 'Œuvre', 'banc', 'Ζώνη', '𝔘nicode'])[1 + i % 8] || ' ' || (i * 31 % 97),
           (array['draft', 'published', 'archived'])[1 + i % 3],
           case when i % 5 = 0 then 'fam_b' else 'fam_a' end,
           case when i % 3 = 0 then 'cat_b' else 'cat_a' end,
           timestamptz '2026-01-01T00:00:00Z' + ((i % 700) || ' minutes')::interval
      from generate_series(1, 2500) i;
    insert into products (id, org_id, identifier, label, family_id, category_id)
    select 'prd_o' || i, '${OTHER}', 'O-' || i, 'Lampe', 'fam_o', 'cat_o' from generate_series(1, 50) i;
    insert into product_values (org_id, product_id, attribute_id, attribute_scopable, channel_id, value)
    select '${ORG}', 'prd_' || lpad(i::text, 5, '0'), 'att_name', true, c.id,
           case when i = 9 then '42'::jsonb when i % 11 = 0 then '""'::jsonb
                else to_jsonb(c.code || ' ' || (i * 13 % 89) || ' Œ') end
      from generate_series(1, 2500) i
      join (values ('chn_pm', 'web', 3), ('chn_pm2', 'print', 7), (null, 'global', 5)) c(id, code, every)
        on i % c.every = 0;
    insert into product_values (org_id, product_id, attribute_id, attribute_scopable, channel_id, value)
    select '${OTHER}', 'prd_o' || i, 'att_name_o', true, 'chn_o', '"Autre"' from generate_series(1, 50) i;
  `);
}

// The writes between reads, in turn.
const WRITES = [
  `update products set label = label || ' x' where org_id = '${ORG}' and id in ('prd_00007', 'prd_01234')`,
  `update products set updated_at = now() where org_id = '${ORG}' and id = 'prd_00100'`,
  `update products set status = 'archived' where org_id = '${ORG}' and id in ('prd_00011', 'prd_00012')`,
  `update products set family_id = 'fam_b', category_id = 'cat_b' where org_id = '${ORG}' and id = 'prd_00013'`,
  `delete from products where org_id = '${ORG}' and id in ('prd_00014', 'prd_02000')`,
  `insert into products (id, org_id, identifier, label, family_id, category_id, updated_at)
     values ('prd_new1', '${ORG}', 'PM-NEW-1', 'Lampe neuve', 'fam_a', 'cat_b', '2026-01-01T03:00:00Z')`,
  // Past the one-by-one bounds of the index: moved by a merge, its kept totals counted anew.
  `update products set updated_at = updated_at + interval '1 second', label = 'Table ' || id where org_id = '${ORG}'`,
  `update products set identifier = identifier || '-b' where org_id = '${ORG}' and id like 'prd_001%'`,
  `insert into products (id, org_id, identifier, label, family_id, category_id)
     select 'prd_bulk' || i, '${ORG}', 'PM-BULK-' || i, 'Étagère bulk ' || i, 'fam_b', 'cat_a'
       from generate_series(1, 120) i`,
  `delete from products where org_id = '${ORG}' and id like 'prd_bulk1%'`,
  // What a product item shows besides its own columns: its family's and category's labels; an empty label (the
  // identifier shown).
  `update families set label = 'A renommée' where org_id = '${ORG}' and id = 'fam_a'`,
  `update categories set label = 'Catégorie – B' where org_id = '${ORG}' and id = 'cat_b'`,
  `update products set label = '' where org_id = '${ORG}' and id in ('prd_00021', 'prd_00022')`,
  // Labels in a channel: changed, emptied, removed, added; the `name` attribute's code moved away and back; a
  // channel deleted (its values with it).
  `update product_values set value = '"Renommé web"' where org_id = '${ORG}' and channel_id = 'chn_pm'
     and product_id in ('prd_00003', 'prd_00006')`,
  `update product_values set value = '""' where org_id = '${ORG}' and channel_id = 'chn_pm' and product_id = 'prd_00024'`,
  `delete from product_values where org_id = '${ORG}' and channel_id = 'chn_pm' and product_id = 'prd_00027'`,
  `insert into product_values (org_id, product_id, attribute_id, attribute_scopable, channel_id, value)
     values ('${ORG}', 'prd_00001', 'att_name', true, 'chn_pm', '"Nouveau web"')`,
  `update attributes set code = 'title' where org_id = '${ORG}' and id = 'att_name'`,
  `update attributes set code = 'name' where org_id = '${ORG}' and id = 'att_name'`,
  `delete from channels where org_id = '${ORG}' and id = 'chn_pm2'`,
];

// The lists compared after each write.
const QUERIES = [
  ...["updatedAt", "label", "identifier", "status"].flatMap((f) =>
    ["asc", "desc"].flatMap((o) =>
      [1, 2, 13, 25, 26, 40].map((page) => `sort=${f}.${o}&perPage=100&page=${page}`),
    ),
  ),
  "",
  "page=7",
  "channelId=chn_pm&sort=label.asc&page=3",
  "channelId=chn_pm&sort=identifier.desc&perPage=100&page=7",
  "channelId=chn_pm2&sort=updatedAt.asc&perPage=100&page=2",
  "channelId=chn_pm&q=lampe&sort=status.asc",
  "channelId=chn_pm&familyId=fam_b&page=2",
  "channelId=chn_pm&page=999",
  "channelId=chn_o",
  "channelId=chn_unknown&page=2",
  "channelId=chn_unknown&page=999",
  "updatedSince=2026-01-01T05:00:00Z&sort=updatedAt.asc&page=2",
  "updatedSince=2026-01-01T05:00:00.001Z",
  "updatedSince=2026-01-01T05:00:00Z&sort=label.asc",
  "q=lampe",
  "q=etagere&page=2",
  "q=pm-1",
  "q=ζώνη",
  "q=100%25",
  "q=nothing-here",
  "familyId=fam_b",
  "categoryId=cat_b&sort=identifier.desc",
  "familyId=fam_b&categoryId=cat_b&page=2",
  "familyId=fam_b&q=table&updatedSince=2026-01-01T02:00:00Z",
  "familyId=fam_none",
  "sort=status.asc,label.desc&page=3",
];

async function answer(ctx: ReturnType<typeof catalogContext>, q: string) {
  try {
    return await listProducts(ctx, ORG, query(q));
  } catch (err) {
    return { error: (err as Error).name };
  }
}

function suite(driver: Driver) {
  describe(driver, () => {
    let db: Database;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ db, close } = await openEmptyDatabase(driver, "product_memory"));
      await migrate(db);
      await seed(db);
    });
    afterAll(() => close?.());

    // Two indexes: one as configured, one with walkChecks 0 (a search's matches always found first by the joined
    // texts, then sorted or marked, never tested along the order).
    it("answers every list as the plain statements do, writes interleaved", async () => {
      const memories = [undefined, 0].map(
        (walkChecks) =>
          new ProductMemory(async () => db, { maxProducts: 1_000_000, minProducts: 0, walkChecks }),
      );
      const statements: string[] = [];
      const recorded: Queryable = {
        query: (text, params) => {
          statements.push(text);
          return db.query(text, params);
        },
      };
      const contexts = memories.map((memory) => catalogContext(recorded, { memory }));
      for (const [i, memory] of memories.entries()) {
        await listProducts(contexts[i]!, ORG, query(""));
        await memory.settled();
        expect(memory.index(ORG)?.size).toBe(2500);
        expect(memory.index(OTHER)).toBeUndefined();
      }
      for (const write of ["select 1", ...WRITES]) {
        await db.query(write);
        for (const q of QUERIES) {
          const plain = await answer(catalogContext(db), q);
          for (const [i, fast] of contexts.entries()) {
            // walkChecks changes filtered pages only.
            if (i > 0 && /^(sort=[a-zA-Z]+\.(asc|desc)&perPage=100&page=\d+)?$/.test(q)) continue;
            statements.length = 0;
            const got = await answer(fast, q);
            expect(got, `${q} after ${write.slice(0, 60)} (index ${i})`).toEqual(plain);
            // And its bytes: a page the index holds is its items' JSON as kept since each product last changed.
            expect(jsonBytes(got).toString(), q).toBe(JSON.stringify(plain));
            // A page in one sort, filtered or not, however deep, is read after the index's catch-up with no count and
            // no offset. Not a search whose fold holds a LIKE wildcard.
            if (!/,|%25/.test(q)) {
              expect(
                statements.filter((s) => /count\(|offset/.test(s)),
                q,
              ).toEqual([]);
              // Not even the rows: the index holds them, rendered (with a channel, one statement of its labels).
              expect(
                statements.filter((s) => /p\.id = any/.test(s)),
                q,
              ).toEqual([]);
              if (!("error" in got)) expect(got, q).toBeInstanceOf(RenderedList);
              if (q.includes("channelId")) {
                expect(statements.filter((s) => /pv\.product_id = any/.test(s)).length, q).toBeGreaterThan(0);
              }
            }
          }
        }
        const [{ head }] = (await db.query<{ head: string }>(
          `select head::text from catalog_change_heads where org_id = '${ORG}'`,
        )) as [{ head: string }];
        for (const memory of memories) expect(memory.index(ORG)?.cursor).toBe(head);
      }
      // Searches and filters were counted from memory: no count of products ran after the first write's reads.
      statements.length = 0;
      await db.query(WRITES[1]!);
      for (const q of ["q=lampe", "familyId=fam_b&categoryId=cat_b", "updatedSince=2026-01-01T05:00:00Z"]) {
        await answer(contexts[0]!, q);
      }
      expect(statements.filter((s) => /count\(\*\)/.test(s))).toEqual([]);
    });

    // A page without a channel is read from the index once it is caught up to the feed's head, read first; with a
    // channel, its labels are read by id in a statement that reads the head too. A write that commits just before
    // either statement is in the answer; one that commits just after the head read is not (nor half of it).
    it("holds when a write lands before or after the head's read, or before the rows' statement", async () => {
      const memory = new ProductMemory(async () => db, { maxProducts: 1_000_000, minProducts: 0 });
      let writeBefore: { on: RegExp; sql: string } | undefined;
      let writeAfter: string | undefined;
      const interleaving: Queryable = {
        query: async <R>(text: string, params?: readonly unknown[]) => {
          if (writeBefore && writeBefore.on.test(text)) {
            const w = writeBefore.sql;
            writeBefore = undefined;
            await db.query(w);
          }
          const rows = await db.query<R>(text, params);
          if (writeAfter && /catalog_change_heads/.test(text)) {
            const w = writeAfter;
            writeAfter = undefined;
            await db.query(w);
          }
          return rows;
        },
      };
      const fast = catalogContext(interleaving, { memory });
      await listProducts(fast, ORG, query(""));
      await memory.settled();
      expect(memory.index(ORG)).toBeDefined();
      const write = (i: number) =>
        `update products set label = 'Aaa ${i}', updated_at = now() where org_id = '${ORG}' and id = 'prd_0020${i}'`;
      const before = [
        ["sort=label.asc&page=1", /catalog_change_heads/],
        ["sort=updatedAt.desc&page=3", /catalog_change_heads/],
        ["channelId=chn_pm&sort=identifier.asc", /pv\.product_id = any/],
        ["channelId=chn_pm&sort=label.asc", /pv\.product_id = any/],
      ] as const;
      for (const [i, [q, on]] of before.entries()) {
        writeBefore = { on, sql: write(i) };
        const got = await answer(fast, q);
        expect(writeBefore).toBeUndefined();
        expect(got, q).toEqual(await answer(catalogContext(db), q));
      }
      for (const [i, q] of ["sort=label.asc&page=1", "sort=updatedAt.desc"].entries()) {
        const expected = await answer(catalogContext(db), q);
        writeAfter = write(5 + i);
        const got = await answer(fast, q);
        expect(writeAfter).toBeUndefined();
        expect(got, q).toEqual(expected);
        expect(await answer(fast, q), q).toEqual(await answer(catalogContext(db), q));
      }
    });

    it("keeps no organization past its bound, and none below its minimum", async () => {
      const small = new ProductMemory(async () => db, { maxProducts: 100, minProducts: 0 });
      await listProducts(catalogContext(db, { memory: small }), ORG, query(""));
      await small.settled();
      expect(small.index(ORG)).toBeUndefined();
      const picky = new ProductMemory(async () => db, { maxProducts: 1_000_000, minProducts: 100 });
      const ctx = catalogContext(db, { memory: picky });
      await listProducts(ctx, OTHER, query(""));
      await listProducts(ctx, ORG, query(""));
      await picky.settled();
      expect(picky.index(OTHER)).toBeUndefined();
      expect(picky.index(ORG)).toBeDefined();
      expect(picky.stats().products).toBe(picky.index(ORG)!.size);
    });
  });
}

suite("pglite");
suite("pg");
