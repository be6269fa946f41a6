// The version reads' statements (lib/catalog/list/count-cache.ts), on PGlite and on the Postgres server: one read of
// several organizations (orgsVersions) gives each exactly what its own read (orgVersions) gives, at every step of
// writes to their catalogs and feeds, an organization without any change and one that does not exist included; and
// the shared reads (VersionReads) of many organizations at once agree with them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { migrate } from "@/db/migrate";
import { orgVersions, orgsVersions } from "@/lib/catalog/list/count-cache";
import { VersionReads } from "@/lib/catalog/list/version-reads";
import { openEmptyDatabase, type Driver } from "../support/databases";

const ORGS = ["org_vs_a", "org_vs_b", "org_vs_quiet"];
// Named in a read, never created.
const MISSING = "org_vs_missing";

// One write of the sequence, each changing a row (an update or a delete goes to the organization whose product the
// sequence has already made): the step's number makes each row its own.
const WRITES: ((db: Database, i: number) => Promise<unknown>)[] = [
  (db, i) =>
    db.query("insert into families (id, org_id, slug, code, label) values ($1, $2, $1, $1, 'Famille')", [
      `fam_vs_${i}`,
      ORGS[i % 2],
    ]),
  (db, i) =>
    db.query(
      `insert into products (id, org_id, identifier, label, family_id, category_id)
       values ($1, $2, $1, 'Produit', 'fam_' || $2, 'cat_' || $2)`,
      [`prd_vs_${i}`, ORGS[i % 2]],
    ),
  (db, i) =>
    db.query("update products set label = 'Renommé ' || $2 where org_id = $1", [ORGS[(i + 1) % 2], i]),
  (db, i) =>
    db.query("insert into categories (id, org_id, slug, label) values ($1, $2, $1, 'Catégorie')", [
      `cat_vs_${i}`,
      ORGS[(i + 1) % 2],
    ]),
  (db, i) =>
    db.query("delete from products where id = (select min(id) from products where org_id = $1)", [
      ORGS[(i + 1) % 2],
    ]),
];

describe.each(["pglite", "pg"] as const)("version statements on %s", (driver: Driver) => {
  let db: Database;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ db, close } = await openEmptyDatabase(driver, "version_statements"));
    await migrate(db);
    for (const org of ORGS)
      await db.query("insert into organizations (id, slug, name) values ($1, $1, $1)", [org]);
    // The quiet organization's catalog is never written; the others each have a family and a category for products.
    for (const org of ORGS.slice(0, 2)) {
      await db.query("insert into families (id, org_id, slug, code, label) values ($1, $2, 'f', 'f', 'F')", [
        `fam_${org}`,
        org,
      ]);
      await db.query("insert into categories (id, org_id, slug, label) values ($1, $2, 'c', 'C')", [
        `cat_${org}`,
        org,
      ]);
    }
  });
  afterAll(async () => {
    await close?.();
  });

  it("reads several organizations as each one's own read does, write after write", async () => {
    const named = [...ORGS, MISSING];
    const seen = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const together = await orgsVersions(db, named);
      expect([...together.keys()].toSorted()).toEqual(named.toSorted());
      for (const org of named) {
        const alone = await orgVersions(db, org);
        expect(together.get(org)).toEqual(alone);
      }
      seen.add(JSON.stringify([...together]));
      await WRITES[i % WRITES.length]!(db, i);
    }
    // The writes moved what was read: the quiet and the missing organizations stayed at nothing, the others moved.
    expect(await orgVersions(db, ORGS[2]!)).toEqual({ versions: {}, feedHead: "0" });
    expect(await orgVersions(db, MISSING)).toEqual({ versions: {}, feedHead: "0" });
    const a = await orgVersions(db, ORGS[0]!);
    expect(Object.keys(a.versions).toSorted()).toEqual(["categories", "families", "products"]);
    expect(Number(a.feedHead)).toBeGreaterThan(0);
    // Every write moved a version or a feed head: twenty steps, twenty states.
    expect(seen.size).toBe(20);
  });

  it("gives each of many concurrent requests of several organizations its organization's versions", async () => {
    const reads = new VersionReads();
    const asked = Array.from({ length: 30 }, (_, i) => ORGS[i % ORGS.length]!);
    const answers = await Promise.all(asked.map((org) => reads.read({ db }, org, ["products", "families"])));
    for (const [i, org] of asked.entries()) {
      const own = await orgVersions(db, org);
      expect(answers[i]).toEqual({
        version: `${own.versions.products ?? "0"}.${own.versions.families ?? "0"}`,
        feedHead: own.feedHead,
      });
    }
    expect(reads.size).toBe(0);
  });
});
