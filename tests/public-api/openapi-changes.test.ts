// The OpenAPI document with the preview feature `changes` on: GET /public/v1/changes marked x-preview, its query, its
// events' schema (an item is one of the resources' components, by reference), its 410 and the 400 of an unknown
// cursor, its example in the shape the API answers; off, nothing of it (its error code included); lint-clean.
import { describe, expect, it } from "vitest";
import { MIRRORED, changesPageSchema } from "@/lib/catalog/resources/schemas";
import { READ_SCOPES } from "@/lib/keys/scopes";
import { buildOpenApiDocument } from "@/lib/public-api/openapi/document";
import { redoclyLint } from "../support/redocly";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const on = buildOpenApiDocument("http://api.test", { preview: ["changes"] }) as Json;
const off = buildOpenApiDocument("http://api.test") as Json;
const PATH = "/public/v1/changes";

describe("the OpenAPI document of the preview feature `changes`", () => {
  it("adds GET /public/v1/changes marked x-preview, readable with any read scope; V1's paths stay as they are", () => {
    const op = on.paths[PATH].get;
    expect(Object.keys(on.paths[PATH])).toEqual(["get"]);
    expect(op["x-preview"]).toBe(true);
    expect(op.tags).toEqual(["Changes"]);
    expect(op["x-required-scope"]).toEqual([...READ_SCOPES]);
    expect(off.paths[PATH]).toBeUndefined();
    for (const p of Object.keys(off.paths)) expect(on.paths[p], p).toEqual(off.paths[p]);
  });

  it("documents its query: after (a cursor), types, limit 1..1000, wait 0..30", () => {
    const params = Object.fromEntries(on.paths[PATH].get.parameters.map((p: Json) => [p.name, p]));
    expect(Object.keys(params)).toEqual(["after", "types", "limit", "wait"]);
    expect(params.after.schema).toMatchObject({ type: "string", pattern: "^[0-9]{1,15}$", default: "0" });
    expect(params.types.schema.items.enum).toEqual([...MIRRORED]);
    expect(params.limit.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 1000, default: 100 });
    expect(params.wait.schema).toMatchObject({ type: "integer", minimum: 0, maximum: 30, default: 0 });
  });

  it("an event's item is one of the resources' components, or null", () => {
    const item = on.components.schemas.ChangeEvent.properties.item;
    const refs = item.anyOf.filter((s: Json) => s.$ref).map((s: Json) => s.$ref.split("/").pop());
    expect(refs).toEqual([
      "ProductDetail",
      "FamilyDetail",
      "AttributeDetail",
      "Category",
      "Media",
      "Channel",
    ]);
    for (const name of refs) expect(on.components.schemas[name], name).toBeDefined();
    expect(item.anyOf).toContainEqual({ type: "null" });
  });

  it("gives its example in the shape the API answers, and its cursor errors", () => {
    const responses = on.paths[PATH].get.responses;
    expect(() => changesPageSchema.parse(responses["200"].content["application/json"].example)).not.toThrow();
    const gone = responses["410"].content["application/json"].examples.cursorExpired.value;
    expect(gone).toMatchObject({ statusCode: 410, error: "Gone", code: "PUBLIC_API_CURSOR_EXPIRED" });
    expect(gone.message).toContain("GET /public/v1/export/{resource}");
    const unknown = responses["400"].content["application/json"].examples.unknownCursor.value;
    expect(unknown).toMatchObject({ statusCode: 400, code: "PUBLIC_API_INVALID_QUERY" });
    expect(unknown.message).toContain("« after »");
    expect(responses["304"]).toBeUndefined();
  });

  it("lists the 410's code in ApiError only while the feature is on", () => {
    expect(on.components.schemas.ApiError.properties.code.enum).toContain("PUBLIC_API_CURSOR_EXPIRED");
    expect(off.components.schemas.ApiError.properties.code.enum).not.toContain("PUBLIC_API_CURSOR_EXPIRED");
    expect(JSON.stringify(off)).not.toContain("CURSOR_EXPIRED");
  });

  it("passes @redocly/cli lint with no error, alone and with every other feature", () => {
    for (const preview of [["changes"], ["writes", "details", "changes", "export"]] as const) {
      const doc = buildOpenApiDocument("http://api.test", { preview: [...preview] });
      const { failed, output } = redoclyLint(doc);
      expect(failed, output).toBe(false);
    }
  }, 120_000);
});
