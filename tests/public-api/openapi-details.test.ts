// The OpenAPI document with the preview feature `details` on: its four operations marked x-preview, their examples in
// the shapes the API answers, reads by ids on every list (parameters marked x-preview), the V1 document unchanged
// without it, and the whole lint-clean for @redocly/cli.
import { redoclyLint } from "../support/redocly";
import { describe, expect, it } from "vitest";
import {
  attributeDetailSchema,
  channelSchema,
  familyDetailSchema,
  productDetailSchema,
} from "@/lib/catalog/resources/schemas";
import { buildOpenApiDocument } from "@/lib/public-api/openapi/document";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const on = buildOpenApiDocument("http://api.test", { preview: ["details"] }) as Json;
const off = buildOpenApiDocument("http://api.test") as Json;
// A V1 read of the document with `details` on, as it is with `details` off: without the parameters of reads by ids
// (marked x-preview), the 400's example of too many ids, and their names in the unknown parameter's example.
function withoutReadsByIds(op: Json): Json {
  const copy = structuredClone(op);
  copy.parameters = copy.parameters.filter((p: Json) => p["x-preview"] !== true);
  const examples = copy.responses["400"].content["application/json"].examples;
  delete examples.tooManyIds;
  const unknown = examples.unknownParameter.value;
  unknown.message = unknown.message.replace(/, ids(, identifiers)?\.$/, ".");
  return copy;
}

const LISTS = ["products", "families", "attributes", "categories", "media", "channels"];
const PATHS = [
  "/public/v1/products/{id}",
  "/public/v1/families/{id}",
  "/public/v1/attributes/{id}",
  "/public/v1/channels",
];

describe("the OpenAPI document of the preview feature `details`", () => {
  it("adds its four GET operations, each marked x-preview; V1's paths stay as they are but for reads by ids", () => {
    for (const p of PATHS) {
      expect(on.paths[p]?.get?.["x-preview"], p).toBe(true);
      expect(Object.keys(on.paths[p]), p).toEqual(["get"]);
      expect(off.paths[p], p).toBeUndefined();
    }
    for (const p of Object.keys(off.paths)) {
      expect(Object.keys(on.paths[p]), p).toEqual(["get"]);
      expect(withoutReadsByIds(on.paths[p].get), p).toEqual(off.paths[p].get);
    }
  });

  it("documents reads by ids on every list: ids (and identifiers on products), marked x-preview, at most 100", () => {
    for (const list of LISTS) {
      const op = on.paths[`/public/v1/${list}`].get;
      const preview = op.parameters.filter((p: Json) => p["x-preview"] === true);
      expect(
        preview.map((p: Json) => p.name),
        list,
      ).toEqual(list === "products" ? ["ids", "identifiers"] : ["ids"]);
      for (const p of preview) {
        expect(p, `${list} ${p.name}`).toMatchObject({
          in: "query",
          required: false,
          style: "form",
          explode: false,
          schema: { type: "array", items: { type: "string" }, minItems: 1, maxItems: 100 },
        });
        expect(p.description).toMatch(/^\*\*Preview\*\* \(feature `details`\)/);
      }
      expect(String(preview[0].example[0]).split("_")[0], list).toBe(
        String(op.responses["200"].content["application/json"].example.data[0].id).split("_")[0],
      );
      const examples = op.responses["400"].content["application/json"].examples;
      expect(examples.tooManyIds.value.message, list).toMatch(
        /^Paramètre « ids » invalide : au plus 100 valeurs séparées par des virgules attendues, 101 reçues \(reçu « .+ »\)\.$/,
      );
      expect(examples.unknownParameter.value.message, list).toMatch(/, ids(, identifiers)?\.$/);
    }
    for (const p of Object.keys(off.paths))
      expect(JSON.stringify(off.paths[p]), p).not.toMatch(/"ids"|identifiers|x-preview/);
  });

  it("documents each item's id as a path parameter and its 404", () => {
    for (const p of PATHS.slice(0, 3)) {
      const op = on.paths[p].get;
      expect(op.parameters.find((x: Json) => x.in === "path")).toMatchObject({ name: "id", required: true });
      expect(op.responses["404"].content["application/json"].examples.notFound.value.code).toBe(
        "PUBLIC_API_NOT_FOUND",
      );
      expect(op.responses["304"]).toBeDefined();
    }
  });

  it("gives examples in the shapes the API answers (the strict schemas parse them)", () => {
    const example = (p: string) => on.paths[p].get.responses["200"].content["application/json"].example;
    expect(() => productDetailSchema.parse(example(PATHS[0]!))).not.toThrow();
    expect(() => familyDetailSchema.parse(example(PATHS[1]!))).not.toThrow();
    expect(() => attributeDetailSchema.parse(example(PATHS[2]!))).not.toThrow();
    for (const item of example(PATHS[3]!).data) expect(() => channelSchema.parse(item)).not.toThrow();
  });

  it("says channels are readable with any read scope", () => {
    const op = on.paths["/public/v1/channels"].get;
    expect(op["x-required-scope"]).toEqual([
      "products:read",
      "families:read",
      "attributes:read",
      "categories:read",
      "media:read",
    ]);
    expect(op.description).toContain("one of `products:read`");
  });

  it("passes @redocly/cli lint with no error", () => {
    const { failed, output } = redoclyLint(on);
    expect(failed, output).toBe(false);
  }, 60_000);
});
