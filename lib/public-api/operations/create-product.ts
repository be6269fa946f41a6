// POST /public/v1/products (preview `writes`, scope products:write): the catalog validates and creates; the answer is
// a 201 with the product's Location. With an Idempotency-Key, the first answer is stored with the product and
// replayed to retries; a dry run checks the key's form like a creation but writes nothing (and so records nothing
// under its key).
import { z } from "zod";
import { createProductSchemaRegistry } from "@/lib/catalog/writes/create-product-schema";
import { draftProduct, insertProduct, prepareProduct } from "@/lib/catalog/writes/create-product";
import { boolParam, defineQuery } from "@/lib/catalog/list/query-grammar";
import {
  createdProductSchema,
  productDraftSchema,
  type CreatedProduct,
} from "@/lib/catalog/resources/schemas";
import { writeIssue } from "@/lib/catalog/writes/write-issues";
import { WRITE_SCOPE } from "@/lib/keys/scopes";
import { errorBodySchema } from "../api-errors";
import { keyInQueryMessage } from "../authenticate";
import {
  IDEMPOTENCY_KEY_MAX,
  IDEMPOTENCY_TTL_HOURS,
  claimIdempotencyKey,
  idempotencyKeyOf,
  recordIdempotentAnswer,
  releaseIdempotencyKey,
  requestFingerprint,
} from "../idempotency";
import { BODY_ERRORS, JSON_DEPTH_LIMIT, WRITE_BODY_LIMIT } from "../json-body";
import { defineOperation } from "../operation";
import { componentSchemas, jsonSchema, type Json } from "../openapi/json-schema";
import {
  RATE_LIMIT_HEADERS,
  errorExample,
  errorResponseDoc,
  exampleOf,
  parameter,
  withRateLimitHeaders,
  writeError,
  writeErrorExample,
} from "../openapi/shared";
import { ApiAnswer } from "../pipeline";

// The query of a creation: only the dry-run switch.
export const createProductQuery = defineQuery({
  dryRun: boolParam("true: every check of the creation, nothing written; 200 with what would be created."),
});

const PATH = "/public/v1/products";

export const createProductOperation = defineOperation({
  method: "POST",
  path: PATH,
  scope: WRITE_SCOPE,
  query: createProductQuery,
  jsonBody: true,
  preview: "writes",
  openapi: () => ({
    operation: createProductFragment(),
    components: {
      ...componentSchemas(createProductSchemaRegistry),
      CreatedProduct: jsonSchema(createdProductSchema, "output"),
      ProductDraft: jsonSchema(productDraftSchema, "output"),
      WriteError: jsonSchema(errorBodySchema, "output"),
    },
  }),
  handler: async (ctx) => {
    const db = ctx.db;
    // Read before the dry run's answer: a dry run performs every check of the creation, the header's included (a
    // malformed key is the same 400 with or without ?dryRun=true).
    const key = idempotencyKeyOf(ctx.request);
    if (ctx.query.dryRun) return new ApiAnswer(200, await draftProduct(db, ctx.org.id, ctx.body));
    const locationOf = (created: CreatedProduct) =>
      `${ctx.config.baseUrl}${PATH}/${encodeURIComponent(created.id)}`;
    if (key === undefined) {
      const created = await insertProduct(db, ctx.org.id, await prepareProduct(db, ctx.org.id, ctx.body));
      return new ApiAnswer(201, created, { Location: locationOf(created) });
    }
    const claim = await claimIdempotencyKey(db, ctx.key.id, key, requestFingerprint("POST", PATH, ctx.body));
    if (!claim.owner) {
      const { status, body, location } = claim.answer;
      return new ApiAnswer(status, JSON.parse(body), {
        ...(location ? { Location: location } : {}),
        "Idempotent-Replayed": "true",
      });
    }
    try {
      const prepared = await prepareProduct(db, ctx.org.id, ctx.body);
      const created = await insertProduct(db, ctx.org.id, prepared, (tx, answer) =>
        recordIdempotentAnswer(tx, ctx.key.id, key, claim.token, {
          status: 201,
          body: JSON.stringify(answer),
          location: locationOf(answer),
        }),
      );
      return new ApiAnswer(201, created, { Location: locationOf(created) });
    } catch (err) {
      // Refused or failed: nothing was written, so nothing is replayed; a retry runs the request again.
      await releaseIdempotencyKey(db, ctx.key.id, key, claim.token).catch(() => undefined);
      throw err;
    }
  },
});

const IDEMPOTENCY_KEY_SCHEMA = z
  .string()
  .min(1)
  .max(IDEMPOTENCY_KEY_MAX)
  .regex(/^[\x21-\x7e]+$/);

// The operation object of a creation (marked preview: it may still change).
function createProductFragment(): Json {
  const scope = WRITE_SCOPE;
  const dryRun = parameter("dryRun", createProductQuery.params.dryRun!);
  return {
    operationId: "createProduct",
    summary: "Create a product (preview)",
    description:
      "**Preview**: available only while the operator switches the write preview on (`PUBLIC_API_WRITE_PREVIEW=true`); " +
      "the contract may still change. Creates a draft product in the key's organization from a family, a category and " +
      "attribute values checked against each attribute's type; the product is then listed by `GET /public/v1/products` " +
      "(identifier: the `sku` value, label: the `name` value) and counted in `total` at once. Nothing is ever half " +
      "created. Every refusal names each offending field in `details`. Send an `Idempotency-Key` to retry safely, " +
      "`?dryRun=true` to validate without writing." +
      `\n\nRequired scope: \`${scope}\`.`,
    tags: ["Products"],
    security: [{ bearerAuth: [scope] }],
    "x-required-scope": scope,
    "x-preview": true,
    parameters: [
      {
        name: "Idempotency-Key",
        in: "header",
        required: false,
        description:
          `Makes retries safe (IETF httpapi idempotency-key draft): 1 to 255 visible ASCII characters, a UUID for example, ` +
          `unique per request you mean; kept ${IDEMPOTENCY_TTL_HOURS} h per API key. A retry with the same key and the same ` +
          "body gets the first answer again (same status and body, header `Idempotent-Replayed: true`) and creates " +
          "nothing; the same key with another body is a 422 (`PUBLIC_API_IDEMPOTENCY_KEY_REUSED`); the same key while " +
          "the first request still runs is a 409 (`PUBLIC_API_IDEMPOTENCY_KEY_IN_USE`): retry it. A refused request " +
          "(4xx) leaves the key free.",
        schema: jsonSchema(IDEMPOTENCY_KEY_SCHEMA, "input"),
        example: "5f0c7a52-8d7e-4b7a-9a43-3c1d2e9b6f10",
      },
      {
        ...dryRun,
        description: "`true`: every check of the creation, nothing written; 200 with what would be created.",
      },
    ],
    requestBody: {
      required: true,
      description: `JSON (\`Content-Type: application/json\`), at most ${WRITE_BODY_LIMIT / 1024} KB and ${JSON_DEPTH_LIMIT} levels of nested objects and arrays (the body itself is level 1).`,
      content: {
        "application/json": {
          schema: { $ref: "#/components/schemas/CreateProductRequest" },
        },
      },
    },
    responses: withRateLimitHeaders({
      "200": {
        description:
          "Dry run (`?dryRun=true`): every check passed; what would be created. Nothing was written.",
        headers: RATE_LIMIT_HEADERS,
        content: {
          "application/json": {
            schema: { $ref: "#/components/schemas/ProductDraft" },
            example: {
              dryRun: true,
              familyId: "fam_1b2C3d4E5f6G7h8I",
              categoryId: "cat_9a8B7c6D5e4F3g2H",
              status: "draft",
              identifier: "ACM-CHA-000124",
              label: "Chaise Oslo en noyer",
              values: { sku: "ACM-CHA-000124", name: "Chaise Oslo en noyer", price: { EUR: 149.9 } },
            },
          },
        },
      },
      "201": {
        description:
          "Created: the product, a draft. With an `Idempotency-Key`, a retry gets this same answer again with `Idempotent-Replayed: true`.",
        headers: {
          ...RATE_LIMIT_HEADERS,
          Location: {
            description: "URL of the new product (`GET /public/v1/products/{id}` is planned).",
            schema: { type: "string", format: "uri" },
          },
          "Idempotent-Replayed": {
            description:
              "`true` when this is the stored answer of an earlier request with the same `Idempotency-Key`.",
            schema: { type: "string", enum: ["true"] },
          },
        },
        content: {
          "application/json": {
            schema: { $ref: "#/components/schemas/CreatedProduct" },
            example: {
              id: "prd_3Hk8sD1fG6jL2zX9",
              familyId: "fam_1b2C3d4E5f6G7h8I",
              categoryId: "cat_9a8B7c6D5e4F3g2H",
              status: "draft",
              createdAt: "2026-06-07T09:30:12.345Z",
            },
          },
        },
      },
      "400": writeError(
        `The body is not JSON, is nested deeper than ${JSON_DEPTH_LIMIT} levels or is not an object; or it has` +
          " an unknown field or an `organizationId`, names an unknown attribute or gives a value of the wrong type; or a query parameter or the `Idempotency-Key` header is invalid. `details` names each field.",
        {
          malformedJson: exampleOf(BODY_ERRORS.malformed()),
          tooDeep: exampleOf(BODY_ERRORS.tooDeep(`values.color${".0".repeat(JSON_DEPTH_LIMIT - 2)}`)),
          organizationId: writeErrorExample("PUBLIC_API_INVALID_BODY", undefined, [
            writeIssue("organizationId", "FORBIDDEN_FIELD", "organizationId"),
          ]),
          unknownField: writeErrorExample("PUBLIC_API_INVALID_BODY", undefined, [
            writeIssue("sku", "UNKNOWN_FIELD", "field", "sku"),
          ]),
          unknownAttribute: writeErrorExample("PUBLIC_API_INVALID_BODY", undefined, [
            writeIssue("values.colour", "UNKNOWN_ATTRIBUTE", "attribute", "colour"),
          ]),
          wrongType: writeErrorExample("PUBLIC_API_INVALID_BODY", undefined, [
            writeIssue("values.price.EUR", "INVALID_TYPE", "amount"),
          ]),
          invalidIdempotencyKey: writeErrorExample("PUBLIC_API_INVALID_HEADER", undefined, [
            writeIssue("Idempotency-Key", "INVALID_IDEMPOTENCY_KEY", "header", IDEMPOTENCY_KEY_MAX),
          ]),
          invalidDryRun: errorExample(
            "PUBLIC_API_INVALID_QUERY",
            "Paramètre « dryRun » invalide : true ou false attendu (reçu « yes »).",
          ),
        },
      ),
      "401": errorResponseDoc(
        "The key is missing, invalid, expired or revoked. A key is read from the `Authorization` header only: one sent in the query (`?api_key=…`, `?key=…`, `?access_token=…`) is ignored, and the message says so.",
        {
          missing: errorExample("PUBLIC_API_KEY_MISSING"),
          keyInQuery: errorExample("PUBLIC_API_KEY_MISSING", keyInQueryMessage("api_key")),
          invalid: errorExample("PUBLIC_API_KEY_INVALID"),
          expired: errorExample("PUBLIC_API_KEY_EXPIRED"),
          revoked: errorExample("PUBLIC_API_KEY_REVOKED"),
        },
        { "WWW-Authenticate": { schema: { type: "string" }, example: 'Bearer realm="public-api"' } },
        "WriteError",
      ),
      "403": writeError(`The key lacks the \`${scope}\` scope.`, {
        insufficientScope: errorExample(
          "PUBLIC_API_INSUFFICIENT_SCOPE",
          `La clé API n'a pas le scope « ${scope} » requis pour cette ressource.`,
        ),
      }),
      "404": writeError(
        "The family or the category is not one of the key's organization (the same answer whether it exists elsewhere or nowhere).",
        {
          familyNotFound: writeErrorExample("PUBLIC_API_FAMILY_NOT_FOUND", undefined, [
            writeIssue("familyId", "NOT_FOUND", "family"),
          ]),
          categoryNotFound: writeErrorExample("PUBLIC_API_CATEGORY_NOT_FOUND", undefined, [
            writeIssue("categoryId", "NOT_FOUND", "category"),
          ]),
        },
      ),
      "409": writeError(
        "The SKU, or the value of a `uniqueValue` attribute, is already used in the organization; or a request with the same `Idempotency-Key` is still running (retry after `Retry-After` seconds with the same key).",
        {
          skuTaken: writeErrorExample("PUBLIC_API_CONFLICT", undefined, [
            writeIssue("values.sku", "ALREADY_EXISTS", "sku", "ACM-CHA-000124"),
          ]),
          idempotencyKeyInUse: writeErrorExample("PUBLIC_API_IDEMPOTENCY_KEY_IN_USE", undefined, [
            writeIssue("Idempotency-Key", "KEY_IN_USE", "header"),
          ]),
        },
        { "Retry-After": { $ref: "#/components/headers/Retry-After" } },
      ),
      "413": writeError(
        `The body is larger than ${WRITE_BODY_LIMIT / 1024} KB (${WRITE_BODY_LIMIT} bytes).`,
        {
          tooLarge: exampleOf(BODY_ERRORS.tooLarge()),
        },
      ),
      "415": writeError("No `Content-Type`, or one other than `application/json`.", {
        unsupportedMediaType: exampleOf(BODY_ERRORS.unsupportedType("text/plain")),
      }),
      "422": writeError(
        "Well-formed data that breaks a rule: an attribute the family requires is missing, or an attribute is not the family's; or the `Idempotency-Key` was used with another body in the last 24 h.",
        {
          requiredMissing: writeErrorExample("PUBLIC_API_UNPROCESSABLE", undefined, [
            writeIssue("values.price", "REQUIRED", "attribute", "price"),
          ]),
          notInFamily: writeErrorExample("PUBLIC_API_UNPROCESSABLE", undefined, [
            writeIssue("values.supplier_ref", "NOT_IN_FAMILY", "attribute", "supplier_ref"),
          ]),
          idempotencyKeyReused: writeErrorExample("PUBLIC_API_IDEMPOTENCY_KEY_REUSED", undefined, [
            writeIssue("Idempotency-Key", "KEY_REUSED", "header", IDEMPOTENCY_TTL_HOURS),
          ]),
        },
      ),
      "429": writeError(
        "Rate limit exceeded (creations count like reads); retry after `retryAfter` seconds with the same `Idempotency-Key`.",
        { rateLimited: errorExample("PUBLIC_API_RATE_LIMIT_EXCEEDED", undefined, { retryAfter: 12 }) },
        { ...RATE_LIMIT_HEADERS, "Retry-After": { $ref: "#/components/headers/Retry-After" } },
      ),
      "500": writeError("Unexpected error; nothing internal is disclosed. Nothing was created.", {
        internal: errorExample("PUBLIC_API_INTERNAL_ERROR"),
      }),
      "503": writeError(
        "The database or the rate limiter cannot be reached; retry later with the same `Idempotency-Key`.",
        { unavailable: errorExample("PUBLIC_API_UNAVAILABLE") },
        { "Retry-After": { $ref: "#/components/headers/Retry-After" } },
      ),
    }),
  };
}
