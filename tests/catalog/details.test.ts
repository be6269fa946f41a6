// Preview feature `details` (issue 23), read side, at the catalog level on the embedded database and on the Postgres
// server: a product read whole (its list item's fields, its values per type and per channel rule, MEDIA values and
// its media limited to the organization's public media, another organization's ids, an unknown channel) and a family
// read whole (its attributes, required flags and order). Every answer parses with the strict public schemas.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database, Queryable } from "@/db/client";
import { migrate } from "@/db/migrate";
import { UnknownReferenceError } from "@/lib/catalog/catalog-errors";
import { catalogContext, type CatalogContext } from "@/lib/catalog/context";
import { familiesQuery, getFamilyDetail, listFamilies } from "@/lib/catalog/resources/families";
import { listMedia, mediaQuery } from "@/lib/catalog/resources/media";
import {
  getProductDetail,
  productDetailQuery,
  readProductDetails,
} from "@/lib/catalog/resources/product-detail";
import { listProducts, productsQuery } from "@/lib/catalog/resources/products";
import { familyDetailSchema, productDetailSchema } from "@/lib/catalog/resources/schemas";
import { parseQuery } from "@/lib/public-api/params";
import { openEmptyDatabase, type Driver } from "../support/databases";

const A = "org_dt_a";
const B = "org_dt_b";
const ORG_A = { id: A, slug: "dt-a" };
const BASE = "http://api.test";
const url = (file: string) => `${BASE}/media/dt-a/${file}`;
const thumb = (file: string) => `${BASE}/media/dt-a/thumbs/${file}`;

// Organization A: two channels (web, print), one attribute of each type (name, description and promo scopable),
// values with channel values for web only, a scopable attribute with a web value only, a value in a shape its type
// does not have, four media (two public, one private, one public of B), one product with three media links.
// Organization B: a channel, a product, a public media.
async function seed(db: Database): Promise<void> {
  await db.exec(`
    insert into organizations (id, slug, name) values ('${A}', 'dt-a', 'A'), ('${B}', 'dt-b', 'B');
    insert into channels (id, org_id, code, label) values
      ('chn_web', '${A}', 'web', 'Web'), ('chn_print', '${A}', 'print', 'Print'), ('chn_b', '${B}', 'web', 'Web');
    insert into families (id, org_id, slug, code, label) values
      ('fam_a', '${A}', 'chaises', 'chairs', 'Chaises'), ('fam_empty', '${A}', 'vide', 'empty', 'Vide'),
      ('fam_b', '${B}', 'b', 'b', 'B');
    insert into categories (id, org_id, slug, label) values ('cat_a', '${A}', 'salon', 'Salon'), ('cat_b', '${B}', 'b', 'B');
    insert into attributes (id, org_id, slug, code, label, type, is_scopable) values
      ('att_sku', '${A}', 'sku', 'sku', 'SKU', 'TEXT', false),
      ('att_name', '${A}', 'name', 'name', 'Nom', 'TEXT', true),
      ('att_desc', '${A}', 'description', 'description', 'Description', 'TEXTAREA', true),
      ('att_weight', '${A}', 'weight', 'weight', 'Poids', 'NUMBER', false),
      ('att_price', '${A}', 'price', 'price', 'Prix', 'PRICE', false),
      ('att_promo', '${A}', 'promo', 'promo', 'Promo', 'PRICE', true),
      ('att_active', '${A}', 'active', 'active', 'Actif', 'BOOLEAN', false),
      ('att_launch', '${A}', 'launch', 'launch', 'Lancement', 'DATE', false),
      ('att_color', '${A}', 'color', 'color', 'Couleur', 'SELECT', false),
      ('att_tags', '${A}', 'tags', 'tags', 'Tags', 'MULTI_SELECT', false),
      ('att_packshot', '${A}', 'packshot', 'packshot', 'Packshot', 'MEDIA', false),
      ('att_secret', '${A}', 'secret', 'secret', 'Secret', 'MEDIA', false),
      ('att_gallery', '${A}', 'gallery', 'gallery', 'Galerie', 'MEDIA', false),
      ('att_web_only', '${A}', 'web_only', 'web_only', 'Web seulement', 'TEXT', true),
      ('att_broken', '${A}', 'broken', 'broken', 'Cassé', 'NUMBER', false),
      ('att_bname', '${B}', 'name', 'name', 'Nom', 'TEXT', true);
    insert into family_attributes (org_id, family_id, attribute_id, is_required, position) values
      ('${A}', 'fam_a', 'att_sku', true, 0),
      ('${A}', 'fam_a', 'att_price', false, 2),
      ('${A}', 'fam_a', 'att_name', true, 1),
      ('${A}', 'fam_a', 'att_color', false, 2),
      ('${A}', 'fam_a', 'att_active', false, 1);
    insert into media (id, org_id, slug, original_name, type, category, file_name, mime_type, is_public) values
      ('med_1', '${A}', 'm1', 'Photo 1.jpg', 'IMAGE', 'Packshot', 'm1.jpg', 'image/jpeg', true),
      ('med_2', '${A}', 'm2', 'Notice.pdf', 'DOCUMENT', 'Fiche', 'm2.pdf', 'application/pdf', true),
      ('med_private', '${A}', 'm3', 'Secret.jpg', 'IMAGE', 'Packshot', 'm3.jpg', 'image/jpeg', false),
      ('med_b', '${B}', 'mb', 'B.jpg', 'IMAGE', 'Packshot', 'mb.jpg', 'image/jpeg', true);
    insert into products (id, org_id, identifier, label, status, family_id, category_id, created_at, updated_at)
    values
      ('prd_1', '${A}', 'SKU-1', 'Chaise Oslo', 'published', 'fam_a', 'cat_a',
       '2026-01-02T03:04:05.678Z', '2026-02-03T04:05:06.789Z'),
      ('prd_bare', '${A}', 'SKU-2', '', 'draft', 'fam_a', 'cat_a', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'),
      ('prd_b', '${B}', 'B-1', 'Autre', 'draft', 'fam_b', 'cat_b', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z');
    insert into product_values (org_id, product_id, attribute_id, attribute_scopable, channel_id, value) values
      ('${A}', 'prd_1', 'att_sku', false, null, '"SKU-1"'),
      ('${A}', 'prd_1', 'att_name', true, null, '"Chaise Oslo"'),
      ('${A}', 'prd_1', 'att_name', true, 'chn_web', '"Chaise Oslo – web"'),
      ('${A}', 'prd_1', 'att_desc', true, null, '"Une chaise."'),
      ('${A}', 'prd_1', 'att_desc', true, 'chn_web', '"Une chaise, en ligne."'),
      ('${A}', 'prd_1', 'att_weight', false, null, '4.5'),
      ('${A}', 'prd_1', 'att_price', false, null, '{"EUR": 129.9, "USD": 140}'),
      ('${A}', 'prd_1', 'att_promo', true, 'chn_web', '{"EUR": 99}'),
      ('${A}', 'prd_1', 'att_active', false, null, 'false'),
      ('${A}', 'prd_1', 'att_launch', false, null, '"2026-09-01"'),
      ('${A}', 'prd_1', 'att_color', false, null, '"oak"'),
      ('${A}', 'prd_1', 'att_tags', false, null, '["indoor", "dining"]'),
      ('${A}', 'prd_1', 'att_packshot', false, null, '"med_1"'),
      ('${A}', 'prd_1', 'att_secret', false, null, '"med_private"'),
      ('${A}', 'prd_1', 'att_gallery', false, null, '["med_2", "med_private", "med_missing", "med_b", "med_1"]'),
      ('${A}', 'prd_1', 'att_web_only', true, 'chn_web', '"Seulement en ligne"'),
      ('${A}', 'prd_1', 'att_broken', false, null, '"douze"'),
      ('${B}', 'prd_b', 'att_bname', true, 'chn_b', '"B web"');
    insert into media_links (org_id, media_id, product_id, position) values
      ('${A}', 'med_1', 'prd_1', 2), ('${A}', 'med_private', 'prd_1', 0), ('${A}', 'med_2', 'prd_1', 1),
      ('${A}', 'med_1', 'prd_1', 5), ('${B}', 'med_b', 'prd_b', 0);
  `);
}

const packshot = { id: "med_1", mediaUrl: url("m1.jpg"), thumbnailUrl: thumb("m1.jpg") };
const notice = { id: "med_2", mediaUrl: url("m2.pdf"), thumbnailUrl: thumb("m2.pdf") };

// The values every read of prd_1 shows, whatever the channel: its unscoped values of non-scopable attributes.
const UNSCOPED_TYPES = {
  active: false,
  color: "oak",
  gallery: [notice, packshot],
  launch: "2026-09-01",
  packshot,
  price: { EUR: 129.9, USD: 140 },
  sku: "SKU-1",
  tags: ["indoor", "dining"],
  weight: 4.5,
};

// Counts the statements that go through a real database handle.
function spy(db: Queryable): Queryable & { statements: number } {
  const s = {
    statements: 0,
    query: <R>(text: string, params?: readonly unknown[]) => {
      s.statements++;
      return db.query<R>(text, params);
    },
  };
  return s;
}

describe.each(["pglite", "pg"] as const)("details on %s", (driver: Driver) => {
  let db: Database;
  let close: () => Promise<void>;
  let ctx: CatalogContext;

  const detail = (id: string, search = "") =>
    getProductDetail(ctx, ORG_A, id, parseQuery(new URLSearchParams(search), productDetailQuery), BASE);
  const listItem = async (id: string, search = "") =>
    (await listProducts(ctx, A, parseQuery(new URLSearchParams(search), productsQuery))).data.find(
      (p) => p.id === id,
    );

  beforeAll(async () => {
    ({ db, close } = await openEmptyDatabase(driver, "details"));
    await migrate(db);
    await seed(db);
    ctx = catalogContext(db);
  });
  afterAll(async () => {
    await close?.();
  });

  describe("product", () => {
    it("reads a product whole, unscoped values only without a channel, in code order", async () => {
      const d = await detail("prd_1");
      expect(productDetailSchema.parse(d)).toEqual(d);
      expect(d).toEqual({
        id: "prd_1",
        identifier: "SKU-1",
        label: "Chaise Oslo",
        status: "published",
        family: { id: "fam_a", label: "Chaises" },
        category: { id: "cat_a", label: "Salon" },
        updatedAt: "2026-02-03T04:05:06.789Z",
        createdAt: "2026-01-02T03:04:05.678Z",
        values: { ...UNSCOPED_TYPES, description: "Une chaise.", name: "Chaise Oslo" },
        media: [
          {
            id: "med_2",
            slug: "m2",
            originalName: "Notice.pdf",
            type: "DOCUMENT",
            category: "Fiche",
            mediaUrl: url("m2.pdf"),
            thumbnailUrl: thumb("m2.pdf"),
            updatedAt: expect.stringMatching(/Z$/),
          },
          {
            id: "med_1",
            slug: "m1",
            originalName: "Photo 1.jpg",
            type: "IMAGE",
            category: "Packshot",
            mediaUrl: url("m1.jpg"),
            thumbnailUrl: thumb("m1.jpg"),
            updatedAt: expect.stringMatching(/Z$/),
          },
        ],
      });
      // Keys in attribute code order (a scopable attribute with channel values only, web_only and promo, absent; a
      // value not in its type's shape, broken, and a MEDIA value whose only media is private, secret, absent).
      expect(Object.keys(d!.values)).toEqual([
        "active",
        "color",
        "description",
        "gallery",
        "launch",
        "name",
        "packshot",
        "price",
        "sku",
        "tags",
        "weight",
      ]);
    });

    it("reads scopable values in the channel asked, else unscoped", async () => {
      const web = await detail("prd_1", "channelId=chn_web");
      expect(productDetailSchema.parse(web)).toEqual(web);
      expect(web!.label).toBe("Chaise Oslo – web");
      expect(web!.values).toEqual({
        ...UNSCOPED_TYPES,
        description: "Une chaise, en ligne.",
        name: "Chaise Oslo – web",
        promo: { EUR: 99 },
        web_only: "Seulement en ligne",
      });
      expect(Object.keys(web!.values)).toEqual([...Object.keys(web!.values)].sort());

      // A channel without values of its own: the unscoped ones (and the label the list gives without a value).
      const print = await detail("prd_1", "channelId=chn_print");
      expect(print!.label).toBe("Chaise Oslo");
      expect(print!.values).toEqual({ ...UNSCOPED_TYPES, description: "Une chaise.", name: "Chaise Oslo" });
    });

    it("gives the list item's fields exactly as the products list does", async () => {
      for (const search of ["", "channelId=chn_web", "channelId=chn_print"]) {
        for (const id of ["prd_1", "prd_bare"]) {
          const d = await detail(id, search);
          const { createdAt, values, media, ...item } = d!;
          expect([typeof createdAt, typeof values, Array.isArray(media)]).toEqual(["string", "object", true]);
          expect(item).toEqual(await listItem(id, search));
        }
      }
      // A product without label nor values: the identifier, nothing else.
      const bare = await detail("prd_bare");
      expect(productDetailSchema.parse(bare)).toMatchObject({ label: "SKU-2", values: {}, media: [] });
    });

    it("gives each media as the media list does", async () => {
      const listed = (await listMedia(ctx, ORG_A, parseQuery(new URLSearchParams(), mediaQuery), BASE)).data;
      const d = await detail("prd_1");
      expect(d!.media).toEqual(["med_2", "med_1"].map((id) => listed.find((m) => m.id === id)));
    });

    it("reads in one statement", async () => {
      const s = spy(db);
      const c = catalogContext(s);
      await getProductDetail(c, ORG_A, "prd_1", { channelId: "chn_web" }, BASE);
      await getProductDetail(c, ORG_A, "prd_1", {}, BASE);
      expect(s.statements).toBe(2);
    });

    it("knows no product of another organization, nor an unknown id", async () => {
      expect(await detail("prd_b")).toBeUndefined();
      expect(await detail("prd_nope")).toBeUndefined();
      expect(await detail("prd_b", "channelId=chn_web")).toBeUndefined();
      // B reads its own, with its channel, and none of A's.
      const b = await getProductDetail(ctx, { id: B, slug: "dt-b" }, "prd_b", { channelId: "chn_b" }, BASE);
      expect(productDetailSchema.parse(b)).toMatchObject({
        label: "B web",
        values: {},
        media: [{ id: "med_b", mediaUrl: "http://api.test/media/dt-b/mb.jpg" }],
      });
      expect(await getProductDetail(ctx, { id: B, slug: "dt-b" }, "prd_1", {}, BASE)).toBeUndefined();
    });

    it("refuses an unknown channel, or another organization's, with the list's error", async () => {
      for (const channelId of ["chn_b", "chn_nope"]) {
        const listError = await listProducts(
          ctx,
          A,
          parseQuery(new URLSearchParams({ channelId }), productsQuery),
        ).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(listError).toBeInstanceOf(UnknownReferenceError);
        for (const id of ["prd_1", "prd_nope"]) {
          const e = await detail(id, `channelId=${channelId}`).then(
            () => undefined,
            (err: unknown) => err,
          );
          expect(e).toBeInstanceOf(UnknownReferenceError);
          expect(e).toMatchObject({
            field: "channelId",
            value: channelId,
            message: (listError as Error).message,
          });
        }
      }
    });
  });

  describe("family", () => {
    it("reads a family whole: attributes by position then code, with required", async () => {
      const f = await getFamilyDetail(ctx, A, "fam_a");
      expect(familyDetailSchema.parse(f)).toEqual(f);
      const listed = (await listFamilies(ctx, A, parseQuery(new URLSearchParams(), familiesQuery))).data;
      const { attributes, ...item } = f!;
      expect(item).toEqual(listed.find((x) => x.id === "fam_a"));
      expect(attributes).toEqual([
        { id: "att_sku", code: "sku", label: "SKU", type: "TEXT", required: true },
        { id: "att_active", code: "active", label: "Actif", type: "BOOLEAN", required: false },
        { id: "att_name", code: "name", label: "Nom", type: "TEXT", required: true },
        { id: "att_color", code: "color", label: "Couleur", type: "SELECT", required: false },
        { id: "att_price", code: "price", label: "Prix", type: "PRICE", required: false },
      ]);
    });

    it("reads a family without attributes, and none of another organization", async () => {
      const empty = await getFamilyDetail(ctx, A, "fam_empty");
      expect(familyDetailSchema.parse(empty)).toMatchObject({ code: "empty", attributes: [] });
      expect(await getFamilyDetail(ctx, A, "fam_b")).toBeUndefined();
      expect(await getFamilyDetail(ctx, A, "fam_nope")).toBeUndefined();
      expect(await getFamilyDetail(ctx, B, "fam_a")).toBeUndefined();
    });
  });

  // The export's and the feed's batch reader (four statements for a whole batch) gives what the detail's one statement
  // gives, product by product, key order included; by ids and by id range, another organization's never.
  describe("products read in batches", () => {
    it("reads each product as its detail does, by ids and after an id", async () => {
      const ids = ["prd_1", "prd_bare"];
      const one = await Promise.all(ids.map((id) => getProductDetail(ctx, ORG_A, id, {}, BASE)));
      const byIds = await readProductDetails(ctx, ORG_A, { ids: [...ids, "prd_b", "prd_nowhere"] }, BASE);
      expect(JSON.stringify(byIds)).toBe(JSON.stringify(one));
      const after = await readProductDetails(ctx, ORG_A, { after: "", limit: 10 }, BASE);
      expect(JSON.stringify(after)).toBe(JSON.stringify(one));
      const rest = await readProductDetails(ctx, ORG_A, { after: "prd_1", limit: 10 }, BASE);
      expect(rest.map((p) => p.id)).toEqual(["prd_bare"]);
      expect(await readProductDetails(ctx, ORG_A, { after: "prd_bare", limit: 10 }, BASE)).toEqual([]);
    });
  });
});
