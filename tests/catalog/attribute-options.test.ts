// Options are data (issue 23, preview feature `details`): migration 0012's backfill of attribute_options from the
// codes products use, and an attribute's detail (getAttributeDetail) with its options, on PGlite and on the Postgres
// server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database, Queryable } from "@/db/client";
import { listMigrations, migrate } from "@/db/migrate";
import { optionsOf, seedOrganization } from "@/db/seed";
import { FASHION, HOME } from "@/db/seed/vocabulary";
import {
  attributeDetailQuery,
  attributesQuery,
  getAttributeDetail,
  listAttributes,
  type AttributesQuery,
} from "@/lib/catalog/resources/attributes";
import { catalogContext } from "@/lib/catalog/context";
import { attributeDetailSchema } from "@/lib/catalog/resources/schemas";
import { PublicApiError } from "@/lib/public-api/api-errors";
import { parseQuery } from "@/lib/public-api/params";
import { openEmptyDatabase } from "../support/databases";

const DETAILS = "0012";

describe.each(["pglite", "pg"] as const)("migration 0012's backfill of attribute_options on %s", (driver) => {
  let handle: Awaited<ReturnType<typeof openEmptyDatabase>>;
  let db: Database;

  beforeAll(async () => {
    handle = await openEmptyDatabase(driver, "opt_backfill");
    db = handle.db;
  });
  afterAll(async () => {
    await handle?.close();
  });

  it("labels every code products give a SELECT or MULTI_SELECT attribute with itself, ordered by code", async () => {
    // A database as it was before 0012, holding products with option values.
    const before = listMigrations().filter((m) => m.version < DETAILS);
    expect(await migrate(db, before)).toEqual(before.map((m) => m.version));
    await db.exec(`
      insert into organizations (id, slug, name) values ('org_1', 'one', 'One'), ('org_2', 'two', 'Two');
      insert into channels (id, org_id, code, label) values ('chn_1', 'org_1', 'web', 'Web');
      insert into families (id, org_id, slug, code, label) values
        ('fam_1', 'org_1', 'f', 'f', 'F'), ('fam_2', 'org_2', 'f', 'f', 'F');
      insert into categories (id, org_id, slug, label) values
        ('cat_1', 'org_1', 'c', 'C'), ('cat_2', 'org_2', 'c', 'C');
      insert into attributes (id, org_id, slug, code, label, type, is_scopable) values
        ('att_color', 'org_1', 'color', 'color', 'Couleur', 'SELECT', false),
        ('att_tags', 'org_1', 'tags', 'tags', 'Tags', 'MULTI_SELECT', true),
        ('att_note', 'org_1', 'note', 'note', 'Note', 'TEXT', false),
        ('att_unused', 'org_1', 'unused', 'unused', 'Sans valeur', 'SELECT', false),
        ('att_color2', 'org_2', 'color', 'color', 'Couleur', 'SELECT', false);
      insert into products (id, org_id, identifier, label, family_id, category_id) values
        ('prd_1', 'org_1', 'P1', 'P1', 'fam_1', 'cat_1'), ('prd_2', 'org_1', 'P2', 'P2', 'fam_1', 'cat_1'),
        ('prd_3', 'org_1', 'P3', 'P3', 'fam_1', 'cat_1'), ('prd_4', 'org_2', 'Q1', 'Q1', 'fam_2', 'cat_2');
      insert into product_values (org_id, product_id, attribute_id, attribute_scopable, channel_id, value) values
        ('org_1', 'prd_1', 'att_color', false, null, '"rouge"'),
        ('org_1', 'prd_2', 'att_color', false, null, '"bleu"'),
        ('org_1', 'prd_3', 'att_color', false, null, '"rouge"'),
        ('org_1', 'prd_1', 'att_tags', true, null, '["b", "a"]'),
        ('org_1', 'prd_2', 'att_tags', true, 'chn_1', '["c", "a"]'),
        ('org_1', 'prd_3', 'att_tags', true, null, '[]'),
        ('org_1', 'prd_1', 'att_note', false, null, '"pas une option"'),
        ('org_2', 'prd_4', 'att_color2', false, null, '"vert"');
    `);
    // 0012 and every migration after it.
    expect(await migrate(db)).toEqual(
      listMigrations()
        .filter((m) => m.version >= DETAILS)
        .map((m) => m.version),
    );
    const options = () =>
      db.query<{ org_id: string; attribute_id: string; code: string; label: string; position: number }>(
        "select org_id, attribute_id, code, label, position from attribute_options order by attribute_id, position",
      );
    const backfilled = await options();
    expect(backfilled).toEqual([
      { org_id: "org_1", attribute_id: "att_color", code: "bleu", label: "bleu", position: 0 },
      { org_id: "org_1", attribute_id: "att_color", code: "rouge", label: "rouge", position: 1 },
      { org_id: "org_2", attribute_id: "att_color2", code: "vert", label: "vert", position: 0 },
      { org_id: "org_1", attribute_id: "att_tags", code: "a", label: "a", position: 0 },
      { org_id: "org_1", attribute_id: "att_tags", code: "b", label: "b", position: 1 },
      { org_id: "org_1", attribute_id: "att_tags", code: "c", label: "c", position: 2 },
    ]);
    // Recorded: a second run applies nothing and changes nothing.
    expect(await migrate(db)).toEqual([]);
    expect(await options()).toEqual(backfilled);
  });
});

// Counts the statements run through a handle.
function counting(db: Queryable): { db: Queryable; statements: string[] } {
  const statements: string[] = [];
  return {
    statements,
    db: {
      query: (text, params) => {
        statements.push(text);
        return db.query(text, params);
      },
    },
  };
}

describe.each(["pglite", "pg"] as const)("getAttributeDetail on %s", (driver) => {
  let handle: Awaited<ReturnType<typeof openEmptyDatabase>>;
  let db: Database;
  let home: string;
  let fashion: string;
  const ids: Record<string, string> = {};
  const ctx = () => catalogContext(db);
  const idOf = async (orgId: string, code: string) =>
    (
      await db.query<{ id: string }>("select id from attributes where org_id = $1 and code = $2", [
        orgId,
        code,
      ])
    )[0]!.id;
  // The attribute as the list shows it.
  const listed = async (orgId: string, id: string) =>
    (
      await listAttributes(
        ctx(),
        orgId,
        parseQuery(new URLSearchParams("perPage=100"), attributesQuery) as AttributesQuery,
      )
    ).data.find((a) => a.id === id);

  beforeAll(async () => {
    handle = await openEmptyDatabase(driver, "opt_detail");
    db = handle.db;
    await migrate(db);
    home = (await seedOrganization(db, { slug: "opt-home", name: "Maison", products: 40, flavour: "home" }))
      .orgId;
    fashion = (
      await seedOrganization(db, { slug: "opt-mode", name: "Mode", products: 40, flavour: "fashion" })
    ).orgId;
    for (const [key, org, code] of [
      ["homeColor", home, "color"],
      ["homeSku", home, "sku"],
      ["homeWeight", home, "weight"],
      ["fashionSize", fashion, "size"],
      ["fashionColor", fashion, "color"],
    ] as const)
      ids[key] = await idOf(org, code);
  }, 120_000);
  afterAll(async () => {
    await handle?.close();
  });

  it("a SELECT: the list item's fields and its options in their order, in one statement", async () => {
    const c = counting(db);
    const detail = await getAttributeDetail(catalogContext(c.db), home, ids.homeColor!);
    expect(c.statements).toHaveLength(1);
    expect(attributeDetailSchema.parse(detail)).toEqual(detail);
    const { options, ...item } = detail!;
    expect(item).toEqual(await listed(home, ids.homeColor!));
    expect(item.type).toBe("SELECT");
    expect(options).toEqual(optionsOf(HOME).color);
    expect(options![0]).toEqual({ code: "blanc_casse", label: "Blanc cassé" });
  });

  it("a MULTI_SELECT: its options in their order", async () => {
    const detail = await getAttributeDetail(ctx(), fashion, ids.fashionSize!);
    expect(attributeDetailSchema.parse(detail)).toEqual(detail);
    expect(detail!.type).toBe("MULTI_SELECT");
    expect(detail!.options).toEqual(optionsOf(FASHION).size);
    expect(detail!.options!.map((o) => o.code)).toEqual(["xxs", "xs", "s", "m", "l", "xl", "xxl", "3xl"]);
  });

  it("orders options by position, then code; a SELECT without options has an empty list", async () => {
    await db.exec(`
      insert into attributes (id, org_id, slug, code, label, type) values
        ('att_finish', '${home}', 'finish', 'finish', 'Finition', 'SELECT'),
        ('att_empty', '${home}', 'empty', 'empty', 'Sans option', 'MULTI_SELECT');
      insert into attribute_options (org_id, attribute_id, code, label, position) values
        ('${home}', 'att_finish', 'mat', 'Mat', 2),
        ('${home}', 'att_finish', 'brillant', 'Brillant', 2),
        ('${home}', 'att_finish', 'satine', 'Satiné', 1),
        ('${home}', 'att_finish', 'Brut', 'Brut', 2);
    `);
    const finish = await getAttributeDetail(ctx(), home, "att_finish");
    expect(finish!.options).toEqual([
      { code: "satine", label: "Satiné" },
      { code: "Brut", label: "Brut" }, // byte order ("C"): upper case first
      { code: "brillant", label: "Brillant" },
      { code: "mat", label: "Mat" },
    ]);
    const empty = await getAttributeDetail(ctx(), home, "att_empty");
    expect(attributeDetailSchema.parse(empty)).toEqual(empty);
    expect(empty!.options).toEqual([]);
  });

  it("no options key for the other types", async () => {
    for (const id of [ids.homeSku!, ids.homeWeight!]) {
      const detail = await getAttributeDetail(ctx(), home, id);
      expect(attributeDetailSchema.parse(detail)).toEqual(detail);
      expect(Object.hasOwn(detail!, "options")).toBe(false);
      expect(detail).toEqual(await listed(home, id));
    }
  });

  it("undefined for another organization's attribute and for an unknown id", async () => {
    expect(await getAttributeDetail(ctx(), home, ids.fashionColor!)).toBeUndefined();
    expect(await getAttributeDetail(ctx(), fashion, ids.homeColor!)).toBeUndefined();
    expect(await getAttributeDetail(ctx(), home, "att_nope")).toBeUndefined();
    expect(await getAttributeDetail(ctx(), home, "")).toBeUndefined();
  });
});

describe("attributeDetailQuery", () => {
  it("takes no parameter: any one is a 400 unknown parameter", () => {
    expect(parseQuery(new URLSearchParams(""), attributeDetailQuery)).toEqual({});
    for (const search of ["page=1", "options=true", "__proto__=1"]) {
      let error: unknown;
      try {
        parseQuery(new URLSearchParams(search), attributeDetailQuery);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(PublicApiError);
      expect((error as PublicApiError).status).toBe(400);
      expect((error as PublicApiError).code).toBe("PUBLIC_API_INVALID_QUERY");
      expect((error as PublicApiError).message).toBe(
        `Paramètre « ${search.split("=")[0]} » inconnu : cette ressource n'accepte aucun paramètre.`,
      );
    }
  });
});
