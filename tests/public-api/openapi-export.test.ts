// The OpenAPI document with the preview feature `export` on: its operation marked x-preview, its NDJSON answer's
// lines (each resource's shape, then ExportEnd) and examples the strict schemas parse, its scopes and limits said,
// the V1 document unchanged without it, and the whole lint-clean for @redocly/cli.
import { describe, expect, it } from "vitest";
import { exportEndSchema } from "@/lib/catalog/feed/export";
import { MIRRORED } from "@/lib/catalog/resources/items";
import { categorySchema, channelSchema, productDetailSchema } from "@/lib/catalog/resources/schemas";
import { buildOpenApiDocument } from "@/lib/public-api/openapi/document";
import { redoclyLint } from "../support/redocly";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const on = buildOpenApiDocument("http://api.test", { preview: ["export"] }) as Json;
const withDetails = buildOpenApiDocument("http://api.test", { preview: ["details", "export"] }) as Json;
const off = buildOpenApiDocument("http://api.test") as Json;
const PATH = "/public/v1/export/{resource}";

describe("the OpenAPI document of the preview feature `export`", () => {
  it("adds its GET operation, marked x-preview; V1's paths stay as they are", () => {
    expect(on.paths[PATH].get["x-preview"]).toBe(true);
    expect(Object.keys(on.paths[PATH])).toEqual(["get"]);
    expect(off.paths[PATH]).toBeUndefined();
    expect(off.components.schemas.ExportEnd).toBeUndefined();
    expect(off.tags.map((t: Json) => t.name)).not.toContain("Export");
    for (const p of Object.keys(off.paths)) expect(on.paths[p], p).toEqual(off.paths[p]);
    // Without details, only the export's path is added (the details' schemas come with it: they are its lines).
    expect(Object.keys(on.paths).sort()).toEqual([...Object.keys(off.paths), PATH].sort());
    expect(withDetails.paths[PATH]).toEqual(on.paths[PATH]);
  });

  it("documents the resource as a path parameter of six values, `after`, and Accept-Encoding", () => {
    const params = on.paths[PATH].get.parameters as Json[];
    expect(params.find((p) => p.in === "path")).toMatchObject({
      name: "resource",
      required: true,
      schema: { enum: [...MIRRORED] },
    });
    expect(params.filter((p) => p.in === "query").map((p) => p.name)).toEqual(["after"]);
    expect(params.find((p) => p.in === "header")?.name).toBe("Accept-Encoding");
  });

  it("answers NDJSON: lines of each resource's shape then ExportEnd, examples the strict schemas parse", () => {
    const ok = on.paths[PATH].get.responses["200"];
    const media = ok.content["application/x-ndjson"];
    expect(Object.keys(ok.content)).toEqual(["application/x-ndjson"]);
    expect(media.schema.anyOf.map((s: Json) => s.$ref.split("/").pop())).toEqual([
      "ProductDetail",
      "FamilyDetail",
      "AttributeDetail",
      "Category",
      "Media",
      "Channel",
      "ExportEnd",
    ]);
    for (const s of media.schema.anyOf)
      expect(on.components.schemas[s.$ref.split("/").pop()], s.$ref).toBeDefined();
    expect(() => productDetailSchema.parse(media.examples.product.value)).not.toThrow();
    expect(() => categorySchema.parse(media.examples.category.value)).not.toThrow();
    expect(() => channelSchema.parse(media.examples.channel.value)).not.toThrow();
    expect(() => exportEndSchema.parse(media.examples.end.value)).not.toThrow();
    expect(ok.headers["Cache-Control"].schema.enum).toEqual(["private, no-store"]);
  });

  it("says the scopes, one request of the quota per export, two at once per key, its 404 and its 429s", () => {
    const op = on.paths[PATH].get;
    expect(op.description).toContain("`channels`: any read scope");
    expect(op.description).toContain("`products`: `products:read`");
    expect(op.description).toContain("counts as **one request** against the key's rate limit");
    expect(op.description).toContain("at most 2 exports at once");
    expect(op.responses["404"].content["application/json"].examples.notFound.value.code).toBe(
      "PUBLIC_API_NOT_FOUND",
    );
    const tooMany = op.responses["429"].content["application/json"].examples;
    expect(Object.keys(tooMany)).toEqual(["rateLimited", "tooManyExports"]);
    expect(tooMany.tooManyExports.value).toMatchObject({
      code: "PUBLIC_API_RATE_LIMIT_EXCEEDED",
      retryAfter: expect.any(Number),
    });
    // An export is never conditional: no If-None-Match among its 400s.
    expect(Object.keys(op.responses["400"].content["application/json"].examples)).toEqual([
      "unknownParameter",
    ]);
    expect(Object.keys(op.responses)).toEqual(["200", "400", "401", "403", "404", "429", "500", "503"]);
  });

  it("passes @redocly/cli lint with no error, alone and with details", () => {
    for (const doc of [on, withDetails]) {
      const { failed, output } = redoclyLint(doc);
      expect(failed, output).toBe(false);
    }
  }, 120_000);
});
