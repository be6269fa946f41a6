// Issue 22, item 4: the zod schemas that document a creation's body are the ones that validate it. For values on
// each side of every rule the documented schema and the old hand-written checks once disagreed on (PRICE currencies
// and decimals, an empty PRICE, MULTI_SELECT duplicates, the text and id bounds), the schema accepts exactly what the
// route's dry run accepts (for the types the test family has), and the route refuses the rest with the detail code
// the answers have always had. On PGlite.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AttributeType } from "@/db/schema";
import {
  attributeValueSchemas,
  CREATE_ID_MAX,
  createProductBodySchema,
  TEXT_MAX,
} from "@/lib/catalog/writes/create-product-schema";
import { WRITE_ISSUES } from "@/lib/catalog/writes/write-issues";
import { postProduct, setupWritePreview, type WriteFixture } from "../support/write-preview";

// A value of a type, and the detail code its refusal has (undefined: accepted).
type Case = [type: AttributeType, value: unknown, code: keyof typeof WRITE_ISSUES | undefined];

describe("the request's schemas and the route's answers agree", () => {
  let w: WriteFixture;
  // One attribute of the family per type (not unique, so that a dry run is not a 409). The family has no DATE and
  // no MULTI_SELECT: their cases are checked against the schema alone.
  const codeOf = new Map<string, string>();
  const option = "indoor";
  beforeAll(async () => {
    w = await setupWritePreview("pglite");
    const rows = await w.f.db.query<{ id: string; code: string; type: string }>(
      `select distinct on (a.type) a.id, a.code, a.type from family_attributes fa
         join attributes a on a.id = fa.attribute_id
        where fa.org_id = $1 and fa.family_id = $2 and not a.unique_value and a.code <> 'sku'
        order by a.type, a.code`,
      [w.f.acme.orgId, w.familyId],
    );
    for (const r of rows) codeOf.set(r.type, r.code);
    expect([...codeOf.keys()]).toEqual(expect.arrayContaining(["PRICE", "TEXT"]));
  }, 120_000);
  afterAll(async () => {
    await w?.f.close();
  });

  const cases = (): Case[] => [
    ["PRICE", { EUR: 149.9, JPY: 1500, KWD: 1.234 }, undefined],
    ["PRICE", { EUR: 1.999 }, "INVALID_PRECISION"],
    ["PRICE", { JPY: 1.5 }, "INVALID_PRECISION"],
    ["PRICE", { eur: 1 }, "UNKNOWN_CURRENCY"],
    ["PRICE", { XXY: 1 }, "UNKNOWN_CURRENCY"],
    ["PRICE", { EUR: -1 }, "INVALID_TYPE"],
    ["PRICE", { EUR: "1" }, "INVALID_TYPE"],
    ["PRICE", {}, "INVALID_TYPE"],
    ["PRICE", [], "INVALID_TYPE"],
    ["TEXT", "é".repeat(TEXT_MAX), undefined],
    ["TEXT", "é".repeat(TEXT_MAX + 1), "INVALID_LENGTH"],
    ["TEXT", " \n\t", "INVALID_LENGTH"],
    ["TEXT", 42, "INVALID_TYPE"],
    ["DATE", "2024-02-29", undefined],
    ["DATE", "2023-02-29", "INVALID_TYPE"],
    ["MULTI_SELECT", [option], undefined],
    ["MULTI_SELECT", [option, option], "INVALID_TYPE"],
  ];

  it("for each value: accepted by the schema exactly when the dry run is a 200, else the one detail code", async () => {
    for (const [type, value, code] of cases()) {
      const what = `${type} ${JSON.stringify(value).slice(0, 40)}`;
      expect(attributeValueSchemas[type].safeParse(value).success, what).toBe(code === undefined);
      const attribute = codeOf.get(type);
      if (attribute === undefined) continue;
      const res = await postProduct(w.writer, w.body({ [attribute]: value }), undefined, "?dryRun=true");
      if (code === undefined) expect(res.status, `${what} ${res.text}`).toBe(200);
      else {
        expect(res.status, what).toBe(400);
        expect(
          res.body.details.map((d: { code: string }) => d.code),
          what,
        ).toEqual([code]);
      }
    }
  });

  it("familyId and categoryId: 1 to 128 characters in the schema and in the answers", async () => {
    for (const field of ["familyId", "categoryId"]) {
      for (const [id, refused] of [
        ["x".repeat(CREATE_ID_MAX), false],
        ["x".repeat(CREATE_ID_MAX + 1), true],
        ["", true],
      ] as const) {
        const body = w.body({}, { [field]: id });
        expect(createProductBodySchema.safeParse(body).success, `${field} ${id.length}`).toBe(!refused);
        const res = await postProduct(w.writer, body, undefined, "?dryRun=true");
        // Well-formed but not the organization's: the 404 that comes after every check of the body.
        expect(res.status, `${field} ${id.length}`).toBe(refused ? 400 : 404);
        if (refused)
          expect(res.body.details).toEqual([{ field, code: "INVALID_TYPE", message: expect.any(String) }]);
      }
    }
  });
});
