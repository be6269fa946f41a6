// The change log (migration 0016), on PGlite and on the Postgres server, written with plain SQL as any application
// sharing the database would: which objects each kind of write notes (indirect ones included: a family's label
// moves its products), nothing for a write that changes nothing or is rolled back (a savepoint too), cursors
// contiguous per organization and in commit order (on the server, a transaction that commits later gets later cursors
// even when it wrote first), and the feed's reader serving each object as it is now (a delete when it is gone).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { migrate } from "@/db/migrate";
import { readChanges } from "@/lib/catalog/feed/changes";
import { catalogContext } from "@/lib/catalog/context";
import { MIRRORED } from "@/lib/catalog/resources/items";
import { openEmptyDatabase, type Driver } from "../support/databases";

const A = "org_cc_a";
const B = "org_cc_b";

// Two organizations with the same small catalog: two channels, two families, four attributes (one MEDIA), three
// categories, three products with values, three media (m1 linked to p1, m2 the MEDIA value of p2, m3 an orphan).
async function seed(db: Database): Promise<void> {
  for (const org of [A, B]) {
    await db.query("insert into organizations (id, slug, name) values ($1, $1, $1)", [org]);
    await db.exec(`
      insert into channels (id, org_id, code, label) values
        ('${org}_ch', '${org}', 'web', 'Web'), ('${org}_ch2', '${org}', 'print', 'Print');
      insert into families (id, org_id, slug, code, label) values
        ('${org}_f1', '${org}', 'f1', 'f1', 'F1'), ('${org}_f2', '${org}', 'f2', 'f2', 'F2');
      insert into attributes (id, org_id, slug, code, label, type, is_scopable) values
        ('${org}_name', '${org}', 'name', 'name', 'Nom', 'TEXT', true),
        ('${org}_color', '${org}', 'color', 'color', 'Couleur', 'SELECT', false),
        ('${org}_size', '${org}', 'size', 'size', 'Taille', 'TEXT', false),
        ('${org}_image', '${org}', 'image', 'image', 'Image', 'MEDIA', false);
      insert into attribute_options (org_id, attribute_id, code, label) values ('${org}', '${org}_color', 'red', 'Rouge');
      insert into family_attributes (org_id, family_id, attribute_id) values
        ('${org}', '${org}_f1', '${org}_name'), ('${org}', '${org}_f1', '${org}_color');
      insert into categories (id, org_id, slug, label, parent_id) values
        ('${org}_c1', '${org}', 'c1', 'C1', null), ('${org}_c2', '${org}', 'c2', 'C2', '${org}_c1'),
        ('${org}_c3', '${org}', 'c3', 'C3', null);
      insert into products (id, org_id, identifier, label, family_id, category_id) values
        ('${org}_p1', '${org}', 'SKU-1', 'P1', '${org}_f1', '${org}_c1'),
        ('${org}_p2', '${org}', 'SKU-2', 'P2', '${org}_f2', '${org}_c2'),
        ('${org}_p3', '${org}', 'SKU-3', 'P3', '${org}_f2', '${org}_c3');
      insert into media (id, org_id, slug, original_name, type, category, file_name, mime_type)
      select '${org}_m' || i, '${org}', 'm' || i, 'photo ' || i, 'IMAGE', 'Photos', 'm' || i || '.jpg', 'image/jpeg'
        from generate_series(1, 3) i;
      insert into product_values (org_id, product_id, attribute_id, attribute_scopable, channel_id, value) values
        ('${org}', '${org}_p1', '${org}_name', true, '${org}_ch', '"Nom web"'),
        ('${org}', '${org}_p1', '${org}_color', false, null, '"red"'),
        ('${org}', '${org}_p2', '${org}_image', false, null, '"${org}_m2"'),
        ('${org}', '${org}_p3', '${org}_size', false, null, '"XL"');
      insert into media_links (org_id, media_id, product_id) values ('${org}', '${org}_m1', '${org}_p1');
    `);
  }
}

describe.each(["pglite", "pg"] as const)("the change log on %s", (driver: Driver) => {
  let db: Database;
  let close: () => Promise<void>;

  const head = async (org: string) =>
    (
      await db.query<{ head: string }>(
        "select coalesce((select head from catalog_change_heads where org_id = $1), 0)::text as head",
        [org],
      )
    )[0]!.head;
  // The events of an organization after a cursor, as [cursor, type, id], in cursor order (the reader's statement).
  const eventsAfter = async (org: string, after: string) =>
    (
      await db.query<{ cursor: string; type: string; id: string }>(
        `select (cm.first_cursor + (ch.ordinal - cm.ord_from))::text as cursor, ch.type, ch.id
           from catalog_change_commits cm
           join catalog_changes ch on ch.org_id = cm.org_id and ch.txid = cm.txid
            and ch.ordinal between cm.ord_from and cm.ord_to
          where cm.org_id = $1 and cm.last_cursor > $2::bigint
          order by 1::bigint`,
        [org, after],
      )
    ).map((r) => [r.cursor, r.type, r.id.replace(`${org}_`, "")] as const);

  // The objects of A a change noted (type/id, in order, each once), checking that B's log did not move and that A's
  // cursors follow its head without a gap.
  async function noted(change: () => Promise<unknown>): Promise<string[]> {
    const [a, b] = [await head(A), await head(B)];
    await change();
    expect(await head(B), "the other organization").toBe(b);
    const events = await eventsAfter(A, a);
    expect(events.map((e) => e[0])).toEqual(events.map((_e, i) => String(BigInt(a) + BigInt(i + 1))));
    expect(await head(A)).toBe(events.length ? events[events.length - 1]![0] : a);
    return [...new Set(events.map((e) => `${e[1]}/${e[2]}`))];
  }
  const sql = (text: string) => () => db.exec(text.replaceAll("$org", A));

  beforeAll(async () => {
    ({ db, close } = await openEmptyDatabase(driver, "change_capture", 4));
    await migrate(db);
    await seed(db);
  }, 120_000);
  afterAll(async () => {
    await close?.();
  });

  it.each<[string, string, string[]]>([
    ["a product's label", "update products set label = 'Autre' where id = '$org_p3'", ["products/p3"]],
    ["an update that changes nothing", "update products set label = label where id = '$org_p3'", []],
    [
      "a value of a product",
      `update product_values set value = '"XXL"' where product_id = '$org_p3'`,
      ["products/p3"],
    ],
    [
      "a name in a channel",
      `insert into product_values (org_id, product_id, attribute_id, attribute_scopable, channel_id, value) values ('$org', '$org_p2', '$org_name', true, '$org_ch2', '"Nom print"')`,
      ["products/p2"],
    ],
    [
      "a family renamed: the family and its products",
      "update families set label = 'F2 bis' where id = '$org_f2'",
      ["families/f2", "products/p2", "products/p3"],
    ],
    [
      "a family's code: the family alone",
      "update families set code = 'f2b' where id = '$org_f2'",
      ["families/f2"],
    ],
    [
      "a category renamed: the category and its products",
      "update categories set label = 'C1 bis' where id = '$org_c1'",
      ["categories/c1", "products/p1"],
    ],
    [
      "an attribute made required in a family",
      "update family_attributes set is_required = true where attribute_id = '$org_color'",
      ["families/f1"],
    ],
    [
      "an attribute relabelled: it and the families that show it",
      "update attributes set label = 'Coloris' where id = '$org_color'",
      ["attributes/color", "families/f1"],
    ],
    [
      "an attribute's code: it, its families and the products with a value of it",
      "update attributes set code = 'colour' where id = '$org_color'",
      ["attributes/color", "families/f1", "products/p1"],
    ],
    [
      "an option added",
      "insert into attribute_options (org_id, attribute_id, code, label) values ('$org', '$org_color', 'blue', 'Bleu')",
      ["attributes/color"],
    ],
    [
      "a media linked to a product (its link count moves: the media's shape does not)",
      "insert into media_links (org_id, media_id, product_id) values ('$org', '$org_m3', '$org_p3')",
      ["products/p3"],
    ],
    [
      "a media's title: it and the products it is linked to",
      "update media set original_name = 'titre' where id = '$org_m1'",
      ["media/m1", "products/p1"],
    ],
    [
      "a media's file: it, and the products that show it by a link or a MEDIA value",
      "update media set file_name = 'm2b.jpg' where id = '$org_m2'",
      ["media/m2", "products/p2"],
    ],
    [
      "a media made private",
      "update media set is_public = false where id = '$org_m3'",
      ["media/m3", "products/p3"],
    ],
    [
      "a channel relabelled",
      "update channels set label = 'Impression' where id = '$org_ch2'",
      ["channels/ch2"],
    ],
    [
      "a channel deleted: it, and the products whose values in it went",
      "delete from channels where id = '$org_ch2'",
      ["products/p2", "channels/ch2"],
    ],
    [
      "a product created with a value",
      `insert into products (id, org_id, identifier, label, family_id, category_id) values ('$org_p4', '$org', 'SKU-4', 'P4', '$org_f1', '$org_c1');
       insert into product_values (org_id, product_id, attribute_id, value) values ('$org', '$org_p4', '$org_size', '"S"')`,
      ["products/p4"],
    ],
    [
      "a product deleted with its values and links",
      "delete from products where id = '$org_p3'",
      ["products/p3"],
    ],
    [
      "an API key created",
      "insert into api_keys (id, org_id, name, prefix, key_hash, scopes) values ('key_cc', '$org', 'k', 'p', 'h_cc', '{products:read}')",
      [],
    ],
  ])("%s", async (_name, text, expected) => {
    expect((await noted(sql(text))).sort()).toEqual([...expected].sort());
  });

  it("notes nothing for a rolled-back transaction, nor for a savepoint rolled back", async () => {
    expect(
      await noted(() =>
        db
          .transaction(async (tx) => {
            await tx.query("update families set label = 'perdu' where id = $1", [`${A}_f1`]);
            throw new Error("rollback");
          })
          .catch(() => undefined),
      ),
    ).toEqual([]);
    expect(
      await noted(() =>
        db.transaction(async (tx) => {
          await tx.exec("savepoint s");
          await tx.query("update products set label = 'perdu' where id = $1", [`${A}_p1`]);
          await tx.exec("rollback to savepoint s");
          await tx.query("update products set label = 'gardé' where id = $1", [`${A}_p2`]);
        }),
      ),
    ).toEqual(["products/p2"]);
  });

  it("one event for an object its transaction notes again at once (a product, then its values, then its media link); again after a savepoint rolled back", async () => {
    const events = async (change: () => Promise<unknown>) => {
      const before = await head(A);
      await change();
      return (await eventsAfter(A, before)).map((e) => `${e[1]}/${e[2]}`);
    };
    expect(
      await events(() =>
        db.transaction(async (tx) => {
          await tx.query("update products set label = 'une' where id = $1", [`${A}_p1`]);
          await tx.query(`update product_values set value = '"S"' where product_id = $1`, [`${A}_p1`]);
          await tx.query("update products set status = 'archived' where id = $1", [`${A}_p1`]);
        }),
      ),
    ).toEqual(["products/p1"]);
    // Another object between two notes of one: each note its event.
    expect(
      await events(() =>
        db.transaction(async (tx) => {
          await tx.query("update products set label = 'deux' where id = $1", [`${A}_p1`]);
          await tx.query("update products set label = 'deux' where id = $1", [`${A}_p2`]);
          await tx.query("update products set status = 'draft' where id = $1", [`${A}_p1`]);
        }),
      ),
    ).toEqual(["products/p1", "products/p2", "products/p1"]);
    // A savepoint rolled back takes its note back, and what it had passed over is noted.
    expect(
      await events(() =>
        db.transaction(async (tx) => {
          await tx.exec("savepoint s");
          await tx.query("update products set label = 'trois' where id = $1", [`${A}_p1`]);
          await tx.exec("rollback to savepoint s");
          await tx.query("update products set label = 'trois' where id = $1", [`${A}_p1`]);
        }),
      ),
    ).toEqual(["products/p1"]);
  });

  it("one transaction over two organizations: each gets its own contiguous cursors", async () => {
    const [a, b] = [await head(A), await head(B)];
    await db.transaction(async (tx) => {
      await tx.query("update products set status = 'published' where id = any($1)", [[`${A}_p1`, `${B}_p1`]]);
      await tx.query("update products set status = 'published' where id = $1", [`${A}_p2`]);
    });
    expect(await eventsAfter(A, a)).toEqual([
      [String(BigInt(a) + 1n), "products", "p1"],
      [String(BigInt(a) + 2n), "products", "p2"],
    ]);
    expect(await eventsAfter(B, b)).toEqual([[String(BigInt(b) + 1n), "products", "p1"]]);
  });

  if (driver === "pg")
    it("gives cursors in commit order: a transaction that wrote first but commits last gets the later cursors", async () => {
      const a = await head(A);
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let wrote!: () => void;
      const written = new Promise<void>((r) => (wrote = r));
      const first = db.transaction(async (tx) => {
        await tx.query("update products set label = 'écrit en premier' where id = $1", [`${A}_p1`]);
        wrote();
        await gate;
      });
      await written;
      await db.query("update products set label = 'validé en premier' where id = $1", [`${A}_p2`]);
      // The first transaction is still open: the feed holds the second one's event only.
      expect(await eventsAfter(A, a)).toEqual([[String(BigInt(a) + 1n), "products", "p2"]]);
      release();
      await first;
      expect(await eventsAfter(A, a)).toEqual([
        [String(BigInt(a) + 1n), "products", "p2"],
        [String(BigInt(a) + 2n), "products", "p1"],
      ]);
    });

  it("reads any page: from any cursor, inside a commit or across commits, exactly the events after it", async () => {
    const C = "org_cc_c";
    await db.query("insert into organizations (id, slug, name) values ($1, $1, $1)", [C]);
    const channels = (from: number, to: number) =>
      db.query(
        `insert into channels (id, org_id, code, label)
         select $1 || '_ch' || i, $1, 'ch' || i, 'Ch ' || i from generate_series($2::int, $3::int) i`,
        [C, from, to],
      );
    // Cursors 1-7 in one commit, 8 in the next, 9-11 in a third: eleven channels, one event each.
    await channels(1, 7);
    await channels(8, 8);
    await channels(9, 11);
    const ctx = catalogContext(db);
    const org = { id: C, slug: C };
    for (let after = 0; after <= 11; after++) {
      for (const limit of [1, 2, 3, 5, 100]) {
        const page = await readChanges(
          ctx,
          org,
          { after: String(after), types: MIRRORED, limit },
          "http://x",
        );
        const expected = Array.from({ length: Math.min(limit, 11 - after) }, (_, i) => after + i + 1);
        expect(
          page.data.map((e) => [e.cursor, e.id]),
          `after ${after}, limit ${limit}`,
        ).toEqual(expected.map((n) => [String(n), `${C}_ch${n}`]));
        expect(page.cursor).toBe(String(expected[expected.length - 1] ?? after));
        expect(page.hasMore).toBe(after + limit < 11);
      }
    }
  });

  it("serves each object as it is now: an upsert with its shape, a delete once it is gone", async () => {
    const ctx = catalogContext(db);
    const org = { id: A, slug: A };
    const from = await head(A);
    await db.exec(`
      update products set label = 'Vu' where id = '${A}_p1';
      insert into products (id, org_id, identifier, label, family_id, category_id)
        values ('${A}_p9', '${A}', 'SKU-9', 'P9', '${A}_f1', '${A}_c1');
      delete from products where id = '${A}_p9';
      update media set is_public = false where id = '${A}_m1';
    `);
    const page = await readChanges(ctx, org, { after: from, types: MIRRORED, limit: 100 }, "http://api.test");
    const byObject = Object.fromEntries(page.data.map((e) => [`${e.type}/${e.id.replace(`${A}_`, "")}`, e]));
    expect(byObject["products/p1"]).toMatchObject({ op: "upsert", item: { id: `${A}_p1`, label: "Vu" } });
    expect(byObject["products/p9"]).toMatchObject({ op: "delete", item: null });
    expect(byObject["media/m1"]).toMatchObject({ op: "delete", item: null });
    expect(page.cursor).toBe(await head(A));
    expect(page.hasMore).toBe(false);
    // Pages of one event each, then the types asked only.
    const one = await readChanges(ctx, org, { after: from, types: MIRRORED, limit: 1 }, "http://api.test");
    expect(one.data).toHaveLength(1);
    expect(one.hasMore).toBe(true);
    const media = await readChanges(
      ctx,
      org,
      { after: from, types: ["media"], limit: 100 },
      "http://api.test",
    );
    expect(media.data.map((e) => e.type)).toEqual(["media"]);
    expect(media.cursor).toBe(await head(A));
  });
});
