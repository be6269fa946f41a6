// The channels list (preview feature `details`, issue 23) at the catalog level, on the embedded database and on the
// Postgres server: paging, search, sorts, updatedSince, one organization's channels only, and its total kept exact
// by the channels' version (moved by every channel inserted, updated or deleted, and by nothing of another
// organization).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { migrate } from "@/db/migrate";
import { channelsQuery, listChannels } from "@/lib/catalog/resources/channels";
import { catalogContext, type CatalogContext } from "@/lib/catalog/context";
import { channelSchema, paginationSchema } from "@/lib/catalog/resources/schemas";
import { parseQuery } from "@/lib/public-api/params";
import { openEmptyDatabase, type Driver } from "../support/databases";

const A = "org_ch_a";
const B = "org_ch_b";

async function seed(db: Database): Promise<void> {
  await db.exec(`
    insert into organizations (id, slug, name) values ('${A}', 'ch-a', 'A'), ('${B}', 'ch-b', 'B');
    insert into channels (id, org_id, code, label, locale, updated_at) values
      ('chn_1', '${A}', 'web', 'E-commerce', 'fr_FR', '2026-01-01T00:00:00Z'),
      ('chn_2', '${A}', 'print', 'Catalogue papier', 'fr_FR', '2026-01-02T00:00:00Z'),
      ('chn_3', '${A}', 'mobile', 'Application mobile', 'en_GB', '2026-01-03T00:00:00Z'),
      ('chn_4', '${A}', 'ecole', 'École', 'fr_FR', '2026-01-04T00:00:00Z'),
      ('chn_5', '${A}', 'b2b', 'Revendeurs 100%', 'de_DE', '2026-01-05T00:00:00Z'),
      ('chn_b1', '${B}', 'web', 'Web B', 'fr_FR', '2026-01-06T00:00:00Z'),
      ('chn_b2', '${B}', 'ecole', 'Ecole B', 'fr_FR', '2026-01-07T00:00:00Z');
  `);
}

describe.each(["pglite", "pg"] as const)("channels list on %s", (driver: Driver) => {
  let db: Database;
  let close: () => Promise<void>;
  let ctx: CatalogContext;

  const list = async (search = "", org = A) => {
    const r = await listChannels(ctx, org, parseQuery(new URLSearchParams(search), channelsQuery));
    for (const c of r.data) channelSchema.parse(c);
    paginationSchema.parse(r.pagination);
    return r;
  };
  const ids = async (search = "", org = A) => (await list(search, org)).data.map((c) => c.id);
  const version = async (org: string) =>
    (
      await db.query<{ version: string }>(
        "select version::text as version from catalog_resource_versions where org_id = $1 and resource = 'channels'",
        [org],
      )
    )[0]?.version;

  beforeAll(async () => {
    ({ db, close } = await openEmptyDatabase(driver, "channels"));
    await migrate(db);
    await seed(db);
    ctx = catalogContext(db);
  });
  afterAll(async () => {
    await close?.();
  });

  it("lists the organization's channels, newest first by default", async () => {
    const r = await list();
    expect(r.data[0]).toEqual({
      id: "chn_5",
      code: "b2b",
      label: "Revendeurs 100%",
      locale: "de_DE",
      updatedAt: "2026-01-05T00:00:00.000Z",
    });
    expect(r.data.map((c) => c.id)).toEqual(["chn_5", "chn_4", "chn_3", "chn_2", "chn_1"]);
    expect(r.pagination).toEqual({ page: 1, perPage: 20, total: 5, totalPages: 1, hasAny: true });
    expect(await ids("", B)).toEqual(["chn_b2", "chn_b1"]);
    expect(await ids("", "org_none")).toEqual([]);
  });

  it("pages", async () => {
    const pages = await Promise.all([1, 2, 3, 4].map((page) => list(`perPage=2&page=${page}`)));
    expect(pages.map((p) => p.data.map((c) => c.id))).toEqual([
      ["chn_5", "chn_4"],
      ["chn_3", "chn_2"],
      ["chn_1"],
      [],
    ]);
    for (const p of pages)
      expect(p.pagination).toMatchObject({ perPage: 2, total: 5, totalPages: 3, hasAny: true });
  });

  it("sorts by code, label (folded) and updatedAt, either way", async () => {
    expect(await ids("sort=code.asc")).toEqual(["chn_5", "chn_4", "chn_3", "chn_2", "chn_1"]);
    expect(await ids("sort=code.desc")).toEqual(["chn_1", "chn_2", "chn_3", "chn_4", "chn_5"]);
    // application mobile, catalogue papier, e-commerce, ecole, revendeurs 100%
    expect(await ids("sort=label.asc")).toEqual(["chn_3", "chn_2", "chn_1", "chn_4", "chn_5"]);
    expect(await ids("sort=label.desc")).toEqual(["chn_5", "chn_4", "chn_1", "chn_2", "chn_3"]);
    expect(await ids("sort=updatedAt.asc")).toEqual(["chn_1", "chn_2", "chn_3", "chn_4", "chn_5"]);
  });

  it("searches code and label, case- and accent-insensitively, in the organization only", async () => {
    const found = async (q: string) => ids(`q=${encodeURIComponent(q)}&sort=code.asc`);
    expect(await found("ÉCOLE")).toEqual(["chn_4"]);
    expect(await found("mob")).toEqual(["chn_3"]);
    expect(await found("B2")).toEqual(["chn_5"]);
    expect(await found("papier")).toEqual(["chn_2"]);
    expect(await found("e")).toEqual(["chn_5", "chn_4", "chn_3", "chn_2", "chn_1"]);
    expect(await found("100%")).toEqual(["chn_5"]);
    expect(await found("%")).toEqual(["chn_5"]);
    expect(await found("_")).toEqual([]);
    expect(await found("web b")).toEqual([]);
    expect((await list("q=e")).pagination.total).toBe(5);
    expect(await ids("q=ecole", B)).toEqual(["chn_b2"]);
  });

  it("filters by updatedSince, inclusive", async () => {
    expect(await ids("updatedSince=2026-01-03T00:00:00Z")).toEqual(["chn_5", "chn_4", "chn_3"]);
    expect(await ids("updatedSince=2026-01-03T01:00:00%2B01:00&sort=code.asc")).toEqual([
      "chn_5",
      "chn_4",
      "chn_3",
    ]);
    expect((await list("updatedSince=2026-01-06T00:00:00Z")).pagination).toMatchObject({
      total: 0,
      hasAny: false,
    });
  });

  it("keeps its total exact: the version moves with every channel inserted, updated or deleted", async () => {
    expect((await list()).pagination.total).toBe(5);
    const other = await version(B);

    let before = await version(A);
    await db.query(
      "insert into channels (id, org_id, code, label, updated_at) values ('chn_6', $1, 'retail', 'Magasins', '2026-01-08T00:00:00Z')",
      [A],
    );
    expect(await version(A)).not.toBe(before);
    let r = await list();
    expect(r.pagination.total).toBe(6);
    expect(r.data[0]).toMatchObject({ id: "chn_6", locale: "fr_FR" });

    before = await version(A);
    await db.query("update channels set label = 'Boutiques' where id = 'chn_6'");
    expect(await version(A)).not.toBe(before);
    expect(await ids("q=boutiques")).toEqual(["chn_6"]);

    before = await version(A);
    await db.query("delete from channels where id = 'chn_6'");
    expect(await version(A)).not.toBe(before);
    r = await list();
    expect(r.pagination.total).toBe(5);
    expect(r.data.map((c) => c.id)).not.toContain("chn_6");

    // Another organization's version stayed; a change of its channels leaves A's.
    expect(await version(B)).toBe(other);
    before = await version(A);
    await db.query("update channels set label = 'Web de B' where id = 'chn_b1'");
    expect(await version(A)).toBe(before);
    expect(await version(B)).not.toBe(other);
  });
});
