// Versions per organization and resource (migrations 0011, 0012, 0015), on PGlite and on the Postgres server, written
// with plain SQL as any application sharing the database would: exactly which of an organization's versions (the six
// lists', and the details') each kind of write moves (the others stay), nothing of another organization, nothing for a write rolled back (a savepoint too),
// one bump per statement whatever its size, and, on the server, a role without rights on the version tables writes,
// and two transactions writing two resources in opposite orders both commit (versions are bumped at commit, in one
// order: no deadlock).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { migrate } from "@/db/migrate";
import { CATALOG_RESOURCES } from "@/lib/catalog/list/count-cache";
import { openEmptyDatabase, type Driver } from "../support/databases";

const A = "org_rv_a";
const B = "org_rv_b";

// Two organizations with the same small catalog: a channel with name values, one without, two families (the first
// with the name attribute), three categories, three products, three media (one linked once, one twice, one orphan).
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
        ('${org}_color', '${org}', 'color', 'color', 'Couleur', 'TEXT', true),
        ('${org}_size', '${org}', 'size', 'size', 'Taille', 'TEXT', false);
      insert into family_attributes (org_id, family_id, attribute_id) values ('${org}', '${org}_f1', '${org}_name');
      insert into categories (id, org_id, slug, label, parent_id) values
        ('${org}_c1', '${org}', 'c1', 'C1', null), ('${org}_c2', '${org}', 'c2', 'C2', '${org}_c1'),
        ('${org}_c3', '${org}', 'c3', 'C3', null);
      insert into products (id, org_id, identifier, label, family_id, category_id)
      select '${org}_p' || i, '${org}', 'SKU-' || i, 'Produit ' || i, '${org}_f1', '${org}_c1'
        from generate_series(1, 3) i;
      insert into product_values (org_id, product_id, attribute_id, attribute_scopable, channel_id, value) values
        ('${org}', '${org}_p1', '${org}_name', true, '${org}_ch', '"Nom web"'),
        ('${org}', '${org}_p1', '${org}_name', true, null, '"Nom"'),
        ('${org}', '${org}_p1', '${org}_color', true, '${org}_ch', '"Rouge"');
      insert into media (id, org_id, slug, original_name, type, category, file_name, mime_type)
      select '${org}_m' || i, '${org}', 'm' || i, 'photo ' || i, 'IMAGE', 'Photos', 'm' || i || '.jpg', 'image/jpeg'
        from generate_series(1, 3) i;
      insert into media_links (org_id, media_id, product_id) values
        ('${org}', '${org}_m1', '${org}_p1'), ('${org}', '${org}_m2', '${org}_p2'), ('${org}', '${org}_m2', '${org}_p3');
    `);
  }
}

type Versions = Record<string, string>;

describe.each(["pglite", "pg"] as const)("versions per resource on %s", (driver: Driver) => {
  let db: Database;
  let close: () => Promise<void>;

  const versions = async (org: string): Promise<Versions> =>
    Object.fromEntries(
      (
        await db.query<{ resource: string; version: string }>(
          "select resource, version::text as version from catalog_resource_versions where org_id = $1",
          [org],
        )
      ).map((r) => [r.resource, r.version]),
    );
  const movedBetween = (before: Versions, after: Versions) =>
    CATALOG_RESOURCES.filter((r) => before[r] !== after[r]);

  // The resources of A whose version a change moved; B's must all stay.
  async function moved(change: () => Promise<unknown>): Promise<string[]> {
    const [a, b] = [await versions(A), await versions(B)];
    await change();
    expect(movedBetween(b, await versions(B)), "the other organization").toEqual([]);
    return movedBetween(a, await versions(A));
  }
  const sql = (text: string) => () => db.exec(text.replaceAll("$org", A));

  beforeAll(async () => {
    ({ db, close } = await openEmptyDatabase(driver, "resource_versions", 4));
    await migrate(db);
    await seed(db);
  }, 120_000);
  afterAll(async () => {
    await close?.();
  });

  it("starts every resource of an organization that was written", async () => {
    expect(Object.keys(await versions(A)).sort()).toEqual([...CATALOG_RESOURCES].sort());
  });

  // Each write, with plain SQL, and exactly the resources of A whose version it moves.
  it.each<[string, string, string[]]>([
    [
      "a product inserted",
      "insert into products (id, org_id, identifier, label, family_id, category_id) values ('$org_p9', '$org', 'SKU-9', 'P9', '$org_f1', '$org_c1')",
      ["products"],
    ],
    ["a product's label", "update products set label = 'Autre' where id = '$org_p3'", ["products"]],
    [
      "a product moved to another category",
      "update products set category_id = '$org_c3' where id = '$org_p3'",
      ["products"],
    ],
    ["a product without media deleted", "delete from products where id = '$org_p9'", ["products"]],
    [
      "500 products in one statement",
      "insert into products (id, org_id, identifier, label, family_id, category_id) select '$org_bulk' || i, '$org', 'BULK-' || i, 'B', '$org_f2', '$org_c3' from generate_series(1, 500) i",
      ["products"],
    ],
    [
      "a family's label",
      "update families set label = 'F1 bis' where id = '$org_f1'",
      ["families", "products"],
    ],
    ["a family's code", "update families set code = 'f1b' where id = '$org_f1'", ["families"]],
    [
      "a family created",
      "insert into families (id, org_id, slug, code, label) values ('$org_f3', '$org', 'f3', 'f3', 'F3')",
      ["families"],
    ],
    ["a family deleted", "delete from families where id = '$org_f3'", ["families"]],
    [
      "a category's label",
      "update categories set label = 'C1 bis' where id = '$org_c1'",
      ["categories", "products"],
    ],
    [
      "a category moved under another",
      "update categories set parent_id = '$org_c3' where id = '$org_c2'",
      ["categories"],
    ],
    [
      "an attribute's label",
      "update attributes set label = 'Coloris' where id = '$org_color'",
      ["attributes"],
    ],
    [
      "an attribute linked to a family",
      "insert into family_attributes (org_id, family_id, attribute_id) values ('$org', '$org_f1', '$org_color')",
      ["attributes"],
    ],
    [
      "a family–attribute link removed",
      "delete from family_attributes where attribute_id = '$org_color'",
      ["attributes"],
    ],
    [
      "the name attribute's code changed",
      "update attributes set code = 'nom' where id = '$org_name'",
      ["attributes", "products"],
    ],
    [
      "the name attribute's code back",
      "update attributes set code = 'name' where id = '$org_name'",
      ["attributes", "products"],
    ],
    [
      "a product's name in a channel",
      `update product_values set value = '"Nom web 2"' where product_id = '$org_p1' and channel_id = '$org_ch' and attribute_id = '$org_name'`,
      ["products", "details"],
    ],
    [
      "a product's name in a channel added",
      `insert into product_values (org_id, product_id, attribute_id, attribute_scopable, channel_id, value) values ('$org', '$org_p2', '$org_name', true, '$org_ch', '"Nom web"')`,
      ["products", "details"],
    ],
    [
      "a product's unscoped name value (the list reads products.label)",
      `update product_values set value = '"Nom 2"' where product_id = '$org_p1' and channel_id is null`,
      ["details"],
    ],
    [
      "another attribute's value in a channel",
      `update product_values set value = '"Bleu"' where attribute_id = '$org_color'`,
      ["details"],
    ],
    ["a media's title", "update media set original_name = 'photo' where id = '$org_m3'", ["media"]],
    [
      "a media's link count from 2 to 3",
      "insert into media_links (org_id, media_id, product_id) values ('$org', '$org_m2', '$org_p1')",
      ["details"],
    ],
    [
      "a link to an orphan media",
      "insert into media_links (org_id, media_id, category_id) values ('$org', '$org_m3', '$org_c3')",
      ["media", "details"],
    ],
    [
      "the last link of a media removed",
      "delete from media_links where media_id = '$org_m3'",
      ["media", "details"],
    ],
    [
      "a product with the only link of a media deleted",
      "delete from products where id = '$org_p1'",
      ["media", "products", "details"],
    ],
    [
      "an option of an attribute added",
      "insert into attribute_options (org_id, attribute_id, code, label) values ('$org', '$org_color', 'red', 'Rouge')",
      ["details"],
    ],
    [
      "an option's label",
      "update attribute_options set label = 'Rouge vif' where attribute_id = '$org_color'",
      ["details"],
    ],
    [
      "a channel created",
      "insert into channels (id, org_id, code, label) values ('$org_ch3', '$org', 'app', 'App')",
      ["channels"],
    ],
    ["a channel's label", "update channels set label = 'Application' where id = '$org_ch3'", ["channels"]],
    [
      "a channel deleted (its channelId becomes a 400)",
      "delete from channels where id = '$org_ch3'",
      ["products", "channels"],
    ],
    [
      "an API key created",
      "insert into api_keys (id, org_id, name, prefix, key_hash, scopes) values ('key_rv', '$org', 'k', 'p', 'h_rv', '{products:read}')",
      [],
    ],
  ])("%s", async (_name, text, expected) => {
    expect(await moved(sql(text))).toEqual(CATALOG_RESOURCES.filter((r) => expected.includes(r)));
  });

  it("the seed's bump (after loading without triggers) moves all seven", async () => {
    const before = await versions(A);
    await db.query("select catalog_bump_versions(array[$1]::text[])", [A]);
    const after = await versions(A);
    expect(movedBetween(before, after)).toEqual([...CATALOG_RESOURCES]);
  });

  it("moves nothing for a rolled-back transaction, nor for a savepoint rolled back", async () => {
    expect(
      await moved(() =>
        db
          .transaction(async (tx) => {
            await tx.query("update families set label = 'perdu' where id = $1", [`${A}_f1`]);
            throw new Error("rollback");
          })
          .catch(() => undefined),
      ),
    ).toEqual([]);
    expect(
      await moved(() =>
        db.transaction(async (tx) => {
          await tx.query("update media set original_name = 'gardé' where id = $1", [`${A}_m2`]);
          await tx.query("savepoint s");
          await tx.query("update families set label = 'perdu' where id = $1", [`${A}_f1`]);
          await tx.query("rollback to savepoint s");
        }),
      ),
    ).toEqual(["media"]);
  });

  it("bumps at commit: the writing transaction still reads the old version, and leaves no note behind", async () => {
    const before = await versions(A);
    await db.transaction(async (tx) => {
      await tx.query("update products set label = 'en cours' where id = $1", [`${A}_p2`]);
      const [row] = await tx.query<{ v: string }>(
        "select version::text as v from catalog_resource_versions where org_id = $1 and resource = 'products'",
        [A],
      );
      expect(row!.v).toBe(before.products);
    });
    expect((await versions(A)).products).not.toBe(before.products);
    expect(await db.query("select * from catalog_version_commits")).toEqual([]);
  });

  it("with SET CONSTRAINTS ALL IMMEDIATE, bumps at each statement", async () => {
    const before = await versions(A);
    await db.transaction(async (tx) => {
      await tx.query("set constraints all immediate");
      await tx.query("update products set label = 'tout de suite' where id = $1", [`${A}_p2`]);
      const [row] = await tx.query<{ v: string }>(
        "select version::text as v from catalog_resource_versions where org_id = $1 and resource = 'products'",
        [A],
      );
      expect(row!.v).not.toBe(before.products);
      await tx.query("update families set label = 'F1 ter' where id = $1", [`${A}_f1`]);
    });
    expect(movedBetween(before, await versions(A))).toEqual(["products", "families"]);
    expect(await db.query("select * from catalog_version_commits")).toEqual([]);
  });

  // The server only: PGlite has a single connection (no two transactions at once) and one role. Declared for the
  // server alone rather than skipped on PGlite, so that a run reports no skipped test.
  if (driver === "pg") {
    it("a role with rights on the catalog tables only (not on the versions') writes, and moves the versions", async () => {
      const role = `rv_writer_${Math.random().toString(36).slice(2, 10)}`;
      await db.exec(`create role ${role};
          grant select, insert, update, delete on organizations, products, product_values, attributes to ${role}`);
      try {
        const before = await versions(A);
        await db.transaction(async (tx) => {
          await tx.query(`set local role ${role}`);
          await tx.query("update products set label = 'par un rôle' where id = $1", [`${A}_p2`]);
        });
        expect(movedBetween(before, await versions(A))).toEqual(["products"]);
      } finally {
        await db.exec(`drop owned by ${role}; drop role ${role}`);
      }
    });

    it("two transactions writing two resources in opposite orders both commit (no deadlock on the versions)", async () => {
      const before = await versions(A);
      const gate = () => {
        let open!: () => void;
        const opened = new Promise<void>((r) => (open = r));
        return { opened, open };
      };
      const first = gate();
      const second = gate();
      const one = db.transaction(async (tx) => {
        await tx.query("update products set label = 'un' where id = $1", [`${A}_p2`]);
        first.open();
        await second.opened;
        await tx.query("update attributes set label = 'un' where id = $1", [`${A}_color`]);
      });
      const two = db.transaction(async (tx) => {
        await tx.query("update attributes set label = 'deux' where id = $1", [`${A}_size`]);
        second.open();
        await first.opened;
        await tx.query("update products set label = 'deux' where id = $1", [`${A}_p3`]);
      });
      await Promise.all([one, two]);
      const after = await versions(A);
      expect(movedBetween(before, after)).toEqual(["products", "attributes"]);
    }, 20_000);
  }
});
