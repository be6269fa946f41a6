// The OpenAPI document and the write preview: off (the default), the document says nothing about writes; on, it
// documents POST /public/v1/products, marked preview, from the zod schemas, and every error example it shows is
// what the real route answers to the matching request (on PGlite).
import { redoclyLint } from "../support/redocly";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GET } from "@/app/public/v1/openapi.json/route";
import { ATTRIBUTE_TYPES } from "@/db/schema";
import { createProductBodySchema } from "@/lib/catalog/writes/create-product-schema";
import { createdProductSchema, productDraftSchema } from "@/lib/catalog/resources/schemas";
import { getConfig, resetConfig } from "@/lib/config";
import { createRuntime, setRuntime } from "@/lib/runtime";
import { READ_SCOPES } from "@/lib/keys/scopes";
import { errorBodySchema } from "@/lib/public-api/api-errors";
import { RATE_LIMIT_HEADERS } from "@/lib/public-api/headers";
import { buildOpenApiDocument } from "@/lib/public-api/openapi/document";
import { postProduct, setupWritePreview, type WriteFixture } from "../support/write-preview";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

// The document the route serves on a runtime of the environment's configuration, the switch set as asked (the
// router builds it from the runtime's configuration).
async function served(writePreview: boolean): Promise<Json> {
  vi.stubEnv("PUBLIC_API_WRITE_PREVIEW", String(writePreview));
  resetConfig();
  const rt = createRuntime(getConfig());
  setRuntime(rt);
  try {
    const res = await GET(new Request("http://localhost/public/v1/openapi.json"));
    expect(res.status).toBe(200);
    return (await res.json()) as Json;
  } finally {
    setRuntime(undefined);
    await rt.close();
    vi.unstubAllEnvs();
    resetConfig();
  }
}

// A V1 read of the document with `details` on, as it is with it off: without the parameters of reads by ids (marked
// x-preview), the 400's example of too many ids, and their names in the unknown parameter's example.
function withoutReadsByIds(op: Json): Json {
  const copy = structuredClone(op);
  copy.parameters = copy.parameters.filter((p: Json) => p["x-preview"] !== true);
  const examples = copy.responses["400"].content["application/json"].examples;
  delete examples.tooManyIds;
  const unknown = examples.unknownParameter.value;
  unknown.message = unknown.message.replace(/, ids(, identifiers)?\.$/, ".");
  return copy;
}

const WRITE_STATUSES = [
  "200",
  "201",
  "400",
  "401",
  "403",
  "404",
  "409",
  "413",
  "415",
  "422",
  "429",
  "500",
  "503",
];

describe("the OpenAPI document with the write preview off", () => {
  it("is the V1 document: no write operation, schema, scope or word about the preview", async () => {
    const doc = await served(false);
    expect(JSON.stringify(doc)).toBe(JSON.stringify(buildOpenApiDocument("http://localhost:3000")));
    for (const item of Object.values(doc.paths as Json)) expect(Object.keys(item)).toEqual(["get"]);
    expect(Object.keys(doc.components.schemas)).toEqual([
      "Product",
      "Family",
      "Attribute",
      "Category",
      "Media",
      "Pagination",
      "ApiError",
    ]);
    expect(JSON.stringify(doc)).not.toMatch(/products:write|preview|Idempotency|dryRun|details/i);
  });
});

describe("the OpenAPI document with the write preview on", () => {
  let doc: Json;
  let op: Json;
  beforeAll(async () => {
    doc = await served(true);
    op = doc.paths["/public/v1/products"].post;
  });

  it("serves POST /public/v1/products beside the read, marked preview, with its scope", () => {
    expect(Object.keys(doc.paths["/public/v1/products"])).toEqual(["get", "post"]);
    expect(op).toMatchObject({
      operationId: "createProduct",
      summary: "Create a product (preview)",
      "x-preview": true,
      "x-required-scope": "products:write",
      security: [{ bearerAuth: ["products:write"] }],
      tags: ["Products"],
    });
    expect(op.description).toMatch(/^\*\*Preview\*\*/);
    expect(op.description).toMatch(/Required scope: `products:write`\.$/);
    expect(doc.components.securitySchemes.bearerAuth.description).toContain(
      `${READ_SCOPES.join(", ")}; products:write (write preview`,
    );
    // The reads are unchanged, but for the parameters of reads by ids (`details`, which writes turns on), marked
    // x-preview, and the 400's examples that name them.
    const off = buildOpenApiDocument("http://localhost:3000");
    for (const [p, item] of Object.entries(off.paths as Json))
      expect(withoutReadsByIds(doc.paths[p].get), p).toEqual((item as Json).get);
  });

  it("documents the Idempotency-Key header and the dryRun query parameter", () => {
    const byName = Object.fromEntries((op.parameters as Json[]).map((p) => [p.name, p]));
    expect(Object.keys(byName)).toEqual(["Idempotency-Key", "dryRun"]);
    expect(byName["Idempotency-Key"]).toMatchObject({
      in: "header",
      required: false,
      schema: { type: "string", minLength: 1, maxLength: 255 },
    });
    expect(byName["Idempotency-Key"].description).toMatch(/Idempotent-Replayed: true/);
    expect(byName["Idempotency-Key"].description).toMatch(/PUBLIC_API_IDEMPOTENCY_KEY_REUSED/);
    expect(byName["Idempotency-Key"].description).toMatch(/PUBLIC_API_IDEMPOTENCY_KEY_IN_USE/);
    expect(byName["Idempotency-Key"].description).toMatch(/24 h per API key/);
    expect(byName.dryRun).toMatchObject({ in: "query", schema: { type: "boolean" }, example: true });
  });

  it("takes its request body from the zod schema: familyId, categoryId, values by attribute type", () => {
    expect(op.requestBody).toMatchObject({
      required: true,
      content: { "application/json": { schema: { $ref: "#/components/schemas/CreateProductRequest" } } },
    });
    const body = doc.components.schemas.CreateProductRequest;
    expect(body).toMatchObject({
      type: "object",
      required: ["familyId", "categoryId", "values"],
      additionalProperties: false,
    });
    expect(body.properties.values.additionalProperties).toEqual({
      $ref: "#/components/schemas/AttributeValue",
    });
    expect(createProductBodySchema.safeParse(body.example).success).toBe(true);
    // One alternative per attribute type (titled with it), and the per-channel object of a scopable attribute.
    const alternatives = (doc.components.schemas.AttributeValue.anyOf as Json[]).map((a) =>
      a.$ref ? doc.components.schemas[a.$ref.split("/").pop()].title : a.title,
    );
    expect(alternatives).toEqual([...ATTRIBUTE_TYPES, "Per channel"]);
    expect(doc.components.schemas.TextValue).toMatchObject({ type: "string", maxLength: 255 });
    expect(doc.components.schemas.PriceValue).toMatchObject({
      type: "object",
      propertyNames: { pattern: "^[A-Z]{3}$" },
      additionalProperties: { type: "number", minimum: 0 },
    });
  });

  it("lists every answer: 200 (dry run), 201 with Location, and the errors with details", () => {
    expect(Object.keys(op.responses)).toEqual(WRITE_STATUSES);
    const schemaOf = (status: string) => op.responses[status].content["application/json"].schema.$ref;
    expect(schemaOf("200")).toBe("#/components/schemas/ProductDraft");
    expect(schemaOf("201")).toBe("#/components/schemas/CreatedProduct");
    expect(Object.keys(op.responses["201"].headers)).toEqual(
      expect.arrayContaining(["Location", "Idempotent-Replayed", "RateLimit"]),
    );
    expect(
      productDraftSchema.safeParse(op.responses["200"].content["application/json"].example).success,
    ).toBe(true);
    expect(
      createdProductSchema.safeParse(op.responses["201"].content["application/json"].example).success,
    ).toBe(true);
    expect(doc.components.schemas.WriteError.properties.details).toMatchObject({ type: "array" });
    for (const status of WRITE_STATUSES.slice(2)) {
      const content = op.responses[status].content["application/json"];
      expect(content.schema.$ref, status).toBe("#/components/schemas/WriteError");
      for (const [name, ex] of Object.entries(content.examples as Json)) {
        expect(errorBodySchema.safeParse(ex.value).success, `${status} ${name}`).toBe(true);
        expect(String(ex.value.statusCode), `${status} ${name}`).toBe(status);
      }
    }
  });

  it("passes @redocly/cli lint with no error", () => {
    const { failed, output } = redoclyLint(doc);
    expect(failed, output).toBe(false);
  }, 60_000);
});

// Each documented error example against the real answer to a request that should produce it.
describe("the write examples are the route's answers", () => {
  let w: WriteFixture;
  let examples: Record<string, Json>;
  // The headers the document declares on the status of each example.
  let declared: Record<string, string[]>;
  beforeAll(async () => {
    w = await setupWritePreview("pglite");
    const op = buildOpenApiDocument("http://api.test", { preview: ["writes"] }).paths as Json;
    examples = {};
    declared = {};
    for (const r of Object.values(op["/public/v1/products"].post.responses as Json))
      for (const [name, ex] of Object.entries((r.content?.["application/json"]?.examples ?? {}) as Json)) {
        examples[name] = ex.value;
        declared[name] = Object.keys(r.headers ?? {});
      }
  }, 120_000);
  afterAll(async () => {
    await w?.f.close();
  });

  const json = { "content-type": "application/json" };
  const cases: Record<string, () => Promise<Json>> = {
    malformedJson: () => postProduct(w.writer, "{"),
    tooDeep: () =>
      postProduct(
        w.writer,
        JSON.stringify(w.body({ color: "<deep>" })).replace(
          '"<deep>"',
          `${"[".repeat(40)}1${"]".repeat(40)}`,
        ),
      ),
    organizationId: () => postProduct(w.writer, w.body({}, { organizationId: "org_x" })),
    unknownField: () => postProduct(w.writer, w.body({}, { sku: "ACM-1" })),
    unknownAttribute: () => postProduct(w.writer, w.body({ colour: "rouge" })),
    wrongType: () => postProduct(w.writer, w.body({ price: { EUR: -1 } })),
    invalidIdempotencyKey: () =>
      postProduct(w.writer, w.body(), { ...json, "idempotency-key": "k".repeat(256) }),
    invalidDryRun: () => postProduct(w.writer, w.body(), json, "?dryRun=yes"),
    missing: () => postProduct(null, w.body()),
    keyInQuery: () => postProduct(null, w.body(), json, `?api_key=${encodeURIComponent(w.writer)}`),
    invalid: () => postProduct("pca_notakeyatall", w.body()),
    insufficientScope: () => postProduct(w.f.acme.full, w.body()),
    familyNotFound: () => postProduct(w.writer, w.body({}, { familyId: w.otherFamilyId })),
    categoryNotFound: () => postProduct(w.writer, w.body({}, { categoryId: w.otherCategoryId })),
    skuTaken: async () => {
      await postProduct(w.writer, w.body({ sku: "ACM-CHA-000124" }));
      return postProduct(w.writer, w.body({ sku: "ACM-CHA-000124" }));
    },
    tooLarge: () => postProduct(w.writer, w.body({ description: "x".repeat(70_000) })),
    unsupportedMediaType: () =>
      postProduct(w.writer, JSON.stringify(w.body()), { "content-type": "text/plain" }),
    requiredMissing: () => {
      const b = w.body();
      delete b.values.price;
      return postProduct(w.writer, b);
    },
    notInFamily: () => postProduct(w.writer, w.body({ supplier_ref: "REF-1" })),
    idempotencyKeyReused: async () => {
      const headers = { ...json, "idempotency-key": `reuse-${Date.now()}` };
      await postProduct(w.writer, w.body(), headers);
      return postProduct(w.writer, w.body(), headers);
    },
  };

  it.each(Object.keys(cases))("%s", async (name) => {
    const res = (await cases[name]!()) as { body: Json; headers: Headers };
    expect(examples[name], `no example named ${name}`).toBeDefined();
    expect({ ...res.body, requestId: "<id>" }).toEqual({ ...examples[name], requestId: "<id>" });
    // Issue 21, row 12: the rate-limit headers it carries are declared on its status.
    const sent = Object.keys(RATE_LIMIT_HEADERS).filter((h) => res.headers.get(h) !== null);
    expect(declared[name]).toEqual(expect.arrayContaining(sent));
  });

  it("declares the rate-limit headers on the 200 and the 201 it sends them on", async () => {
    const op = buildOpenApiDocument("http://api.test", { preview: ["writes"] }).paths as Json;
    const responses = op["/public/v1/products"].post.responses as Json;
    for (const [status, query] of [
      ["200", "?dryRun=true"],
      ["201", ""],
    ]) {
      const res = await postProduct(w.writer, w.body(), json, query);
      expect(String(res.status)).toBe(status);
      const sent = Object.keys(RATE_LIMIT_HEADERS).filter((h) => res.headers.get(h) !== null);
      expect(sent).toEqual(Object.keys(RATE_LIMIT_HEADERS));
      expect(Object.keys(responses[status!].headers)).toEqual(expect.arrayContaining(sent));
    }
  });
});
