import { z } from "zod";
import { createProductSchemaRegistry } from "@/lib/catalog/create-product-schema";
import type { WriteIssue } from "@/lib/catalog/catalog-errors";
import { writeIssue } from "@/lib/catalog/write-issues";
import type { ParamDef } from "@/lib/catalog/list-query-grammar";
import {
  attributeSchema,
  categorySchema,
  createdProductSchema,
  familySchema,
  mediaSchema,
  paginationSchema,
  productDraftSchema,
  productSchema,
} from "@/lib/catalog/schemas";
import { READ_SCOPES, WRITE_SCOPE } from "@/lib/keys/scopes";
import { createProductQuery } from "./create-product-route";
import { ENDPOINTS, type ListEndpoint } from "./endpoints";
import { ERRORS, errorBodySchema, readErrorBodySchema, type ErrorCode } from "./api-errors";
import { RATE_LIMIT_HEADERS as RATE_LIMIT_HEADER_DOCS } from "./headers";
import { IDEMPOTENCY_KEY_MAX, IDEMPOTENCY_TTL_HOURS } from "./idempotency";
import { keyInQueryMessage } from "./authenticate";
import { IF_NONE_MATCH_MAX, IF_NONE_MATCH_TOO_LONG } from "./conditional";
import { JSON_DEPTH_LIMIT, WRITE_BODY_LIMIT } from "./json-body";

type Json = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: "input" | "output"): Json {
  const {
    $schema: _s,
    $id: _i,
    id: _id,
    ...rest
  } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Json;
  return rest;
}

// The schemas of a registry, each named by its id and referring to the others as #/components/schemas/<id>.
function componentSchemas(registry: z.core.$ZodRegistry<{ id: string }>): Record<string, Json> {
  const { schemas } = z.toJSONSchema(registry, {
    io: "input",
    unrepresentable: "any",
    uri: (id) => `#/components/schemas/${id}`,
  });
  return Object.fromEntries(
    Object.entries(schemas).map(([name, { $schema: _s, $id: _i, ...rest }]) => [name, rest as Json]),
  );
}

function parameter(name: string, p: ParamDef): Json {
  let schema = jsonSchema(p.schema, "input");
  if (p.boolean) schema = { type: "boolean" };
  if (schema.type === "integer") {
    // Integers arrive as digits (the schema's pattern and default are the query string's): document the number.
    const { pattern: _p, default: fallback, ...rest } = schema;
    schema = fallback === undefined ? rest : { ...rest, default: Number(fallback) };
  }
  const out: Json = {
    name,
    in: "query",
    required: false,
    description: p.description,
    schema,
  };
  if (p.array) {
    out.style = "form";
    out.explode = false;
  }
  if (p.example !== undefined) {
    out.example = p.boolean
      ? p.example === "true"
      : p.array
        ? p.example.split(",")
        : schema.type === "integer"
          ? Number(p.example)
          : p.example;
  }
  return out;
}

const EXAMPLE_REQUEST_ID = "4f7c1a9e-2b7d-4c1e-9a53-0f3d2e6b8c11";

function errorExample(code: ErrorCode, message?: string, extra: Json = {}): Json {
  const e = ERRORS[code];
  return {
    statusCode: e.status,
    message: message ?? e.message,
    error: e.error,
    code,
    requestId: EXAMPLE_REQUEST_ID,
    ...extra,
  };
}

function errorResponseDoc(
  description: string,
  examples: Record<string, Json>,
  headers: Json = {},
  schema = "ApiError",
): Json {
  return {
    description,
    headers: { "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" }, ...headers },
    content: {
      "application/json": {
        schema: { $ref: `#/components/schemas/${schema}` },
        examples: Object.fromEntries(Object.entries(examples).map(([k, v]) => [k, { value: v }])),
      },
    },
  };
}

// The request id and the rate-limit headers, as references to the document's components.
const RATE_LIMIT_HEADERS = {
  "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" },
  ...Object.fromEntries(
    Object.keys(RATE_LIMIT_HEADER_DOCS).map((name) => [name, { $ref: `#/components/headers/${name}` }]),
  ),
};

// An operation's responses, each declaring the rate-limit headers: every answer given after the limiter counted the
// request carries them (lib/public-api/headers.ts says which), and the OWASP ruleset asks for them on every 2xx and
// 4xx. Declared headers are optional: an answer given before the limiter (a missing key) simply has none.
function withRateLimitHeaders(responses: Record<string, Json>): Record<string, Json> {
  return Object.fromEntries(
    Object.entries(responses).map(([status, r]) => [
      status,
      { ...r, headers: { ...RATE_LIMIT_HEADERS, ...(r.headers as Json | undefined) } },
    ]),
  );
}

// The validator headers of a list answer (200 and 304): its ETag, how it may be cached, and what it varies with.
const CONDITIONAL_HEADERS = {
  ETag: { $ref: "#/components/headers/ETag" },
  "Cache-Control": { $ref: "#/components/headers/Cache-Control" },
  Vary: { $ref: "#/components/headers/Vary" },
};

const EXAMPLE_ETAG = '"Hq3vZ0p9Qm2vX8rL5wN1yB7cD4fK6jS0"';

// If-None-Match on a list: the ETags of earlier answers; a match answers 304 (lib/public-api/page-cache.ts).
const IF_NONE_MATCH: Json = {
  name: "If-None-Match",
  in: "header",
  required: false,
  description:
    "The `ETag` of an earlier answer to this same request (or several, comma-separated, or `*`): while the list is " +
    "unchanged, the answer is **304 Not Modified** with no body: keep your copy. Checked after the key, the rate " +
    "limit and the scope, so a 304 counts against the quota like any request, and a revoked key still gets 401. " +
    "A `W/` prefix is ignored (weak comparison).",
  schema: { type: "string", maxLength: IF_NONE_MATCH_MAX },
  example: EXAMPLE_ETAG,
};

function operation(e: ListEndpoint, itemName: string, example: Json): Json {
  const params = [...Object.entries(e.query.params).map(([name, p]) => parameter(name, p)), IF_NONE_MATCH];
  return {
    operationId: `list${e.name[0]!.toUpperCase()}${e.name.slice(1)}`,
    summary: e.summary,
    description: `${e.description}\n\nRequired scope: \`${e.scope}\`.`,
    tags: [itemName === "Media" ? "Media" : `${itemName[0]}${itemName.slice(1)}s`.replace("ys", "ies")],
    security: [{ bearerAuth: [e.scope] }],
    "x-required-scope": e.scope,
    parameters: params,
    responses: withRateLimitHeaders({
      "200": {
        description: "One page of items and the pagination of the whole list.",
        headers: { ...RATE_LIMIT_HEADERS, ...CONDITIONAL_HEADERS },
        content: {
          "application/json": {
            schema: {
              type: "object",
              required: ["data", "pagination"],
              additionalProperties: false,
              properties: {
                data: { type: "array", items: { $ref: `#/components/schemas/${itemName}` } },
                pagination: { $ref: "#/components/schemas/Pagination" },
              },
            },
            example: {
              data: [example],
              pagination: { page: 1, perPage: 20, total: 1, totalPages: 1, hasAny: true },
            },
          },
        },
      },
      "304": {
        description:
          "Not Modified: `If-None-Match` holds the list's current `ETag`, so the list (this page, its items and its " +
          "totals) is unchanged since the answer that carried it. No body; the `ETag`, the request id and the " +
          "rate-limit headers as on a 200.",
        headers: { ...RATE_LIMIT_HEADERS, ...CONDITIONAL_HEADERS },
      },
      "400": errorResponseDoc(
        `A query parameter is unknown or invalid, or \`If-None-Match\` is longer than ${IF_NONE_MATCH_MAX} characters; the message names it.`,
        {
          ifNoneMatchTooLong: errorExample("PUBLIC_API_INVALID_HEADER", IF_NONE_MATCH_TOO_LONG),
          invalidPerPage: errorExample(
            "PUBLIC_API_INVALID_QUERY",
            "Paramètre « perPage » invalide : entier de 1 à 100 attendu (reçu « 1000 »).",
          ),
          unknownParameter: errorExample(
            "PUBLIC_API_INVALID_QUERY",
            `Paramètre « per_page » inconnu. Paramètres acceptés : ${Object.keys(e.query.params).join(", ")}.`,
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
      ),
      "403": errorResponseDoc(`The key lacks the \`${e.scope}\` scope.`, {
        insufficientScope: errorExample(
          "PUBLIC_API_INSUFFICIENT_SCOPE",
          `La clé API n'a pas le scope « ${e.scope} » requis pour cette ressource.`,
        ),
      }),
      "429": errorResponseDoc(
        "Rate limit exceeded; retry after `retryAfter` seconds (also in the Retry-After header).",
        { rateLimited: errorExample("PUBLIC_API_RATE_LIMIT_EXCEEDED", undefined, { retryAfter: 12 }) },
        { ...RATE_LIMIT_HEADERS, "Retry-After": { $ref: "#/components/headers/Retry-After" } },
      ),
      "500": errorResponseDoc("Unexpected error; nothing internal is disclosed.", {
        internal: errorExample("PUBLIC_API_INTERNAL_ERROR"),
      }),
      "503": errorResponseDoc(
        "The database or the rate limiter cannot be reached; retry later.",
        { unavailable: errorExample("PUBLIC_API_UNAVAILABLE") },
        { "Retry-After": { $ref: "#/components/headers/Retry-After" } },
      ),
    }),
  };
}

// A write-preview error example: the error with its `details` (built by writeIssue: the messages of the answers).
function writeErrorExample(code: ErrorCode, message: string | undefined, details: WriteIssue[]): Json {
  return errorExample(code, message, { details });
}

const writeError = (description: string, examples: Record<string, Json>, headers: Json = {}): Json =>
  errorResponseDoc(description, examples, headers, "WriteError");

const IDEMPOTENCY_KEY_SCHEMA = z
  .string()
  .min(1)
  .max(IDEMPOTENCY_KEY_MAX)
  .regex(/^[\x21-\x7e]+$/);

// POST /public/v1/products, documented only while the write preview is on (marked preview: it may still change).
function createProductOperation(): Json {
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
          malformedJson: writeErrorExample(
            "PUBLIC_API_INVALID_BODY",
            "Corps de requête invalide : JSON mal formé.",
            [writeIssue("body", "INVALID_JSON", "body")],
          ),
          tooDeep: writeErrorExample(
            "PUBLIC_API_INVALID_BODY",
            `Corps de requête invalide : JSON imbriqué sur plus de ${JSON_DEPTH_LIMIT} niveaux.`,
            [
              writeIssue(
                `values.color${".0".repeat(JSON_DEPTH_LIMIT - 2)}`,
                "TOO_DEEP",
                "value",
                JSON_DEPTH_LIMIT,
              ),
            ],
          ),
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
          tooLarge: writeErrorExample(
            "PUBLIC_API_PAYLOAD_TOO_LARGE",
            `Corps de requête trop volumineux : ${WRITE_BODY_LIMIT / 1024} Ko au plus.`,
            [writeIssue("body", "TOO_LARGE", "body", WRITE_BODY_LIMIT)],
          ),
        },
      ),
      "415": writeError("No `Content-Type`, or one other than `application/json`.", {
        unsupportedMediaType: writeErrorExample("PUBLIC_API_UNSUPPORTED_MEDIA_TYPE", undefined, [
          writeIssue("Content-Type", "UNSUPPORTED_MEDIA_TYPE", "contentType", "text/plain"),
        ]),
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

const EXAMPLES: Record<string, Json> = {
  products: {
    id: "prd_7Yq2nC4kP0sLx9Ta",
    identifier: "ACM-CHA-000123",
    label: "Chaise Oslo en chêne",
    status: "draft",
    family: { id: "fam_1b2C3d4E5f6G7h8I", label: "Chaises" },
    category: { id: "cat_9a8B7c6D5e4F3g2H", label: "Salle à manger" },
    updatedAt: "2026-06-07T09:30:12.345Z",
  },
  families: {
    id: "fam_1b2C3d4E5f6G7h8I",
    slug: "chaises",
    code: "chairs",
    label: "Chaises",
    updatedAt: "2026-06-07T09:30:12.345Z",
  },
  attributes: {
    id: "att_4K5l6M7n8O9p0Q1r",
    slug: "nom",
    code: "name",
    label: "Nom",
    type: "TEXT",
    uniqueValue: false,
    isScopable: true,
    updatedAt: "2026-06-07T09:30:12.345Z",
  },
  categories: {
    id: "cat_9a8B7c6D5e4F3g2H",
    slug: "salle-a-manger",
    label: "Salle à manger",
    parentId: null,
    isMaster: true,
    updatedAt: "2026-06-07T09:30:12.345Z",
  },
  media: {
    id: "med_2S3t4U5v6W7x8Y9z",
    slug: "chaise-oslo-packshot-1",
    originalName: "chaise-oslo-chêne.png",
    type: "IMAGE",
    category: "Packshot",
    mediaUrl: "https://api.example.com/media/acme/chaise-oslo-packshot-1.png",
    thumbnailUrl: "https://api.example.com/media/acme/thumbs/chaise-oslo-packshot-1.png",
    updatedAt: "2026-06-07T09:30:12.345Z",
  },
};

const ITEM_NAMES: Record<keyof typeof ENDPOINTS, string> = {
  products: "Product",
  families: "Family",
  attributes: "Attribute",
  categories: "Category",
  media: "Media",
};

// What the document describes besides V1: the write preview (PUBLIC_API_WRITE_PREVIEW), off by default.
export interface OpenApiOptions {
  writePreview?: boolean;
}

// The OpenAPI 3.1 document of the public API, generated from the zod schemas that validate requests. With the
// write preview off it describes V1 only (the five reads); on, it adds POST /public/v1/products, marked preview.
export function buildOpenApiDocument(baseUrl: string, options: OpenApiOptions = {}): Json {
  const writes = options.writePreview === true;
  const paths: Json = {};
  for (const [name, e] of Object.entries(ENDPOINTS) as [keyof typeof ENDPOINTS, ListEndpoint][]) {
    paths[e.path] = { get: operation(e, ITEM_NAMES[name], EXAMPLES[name]!) };
  }
  if (writes) (paths[ENDPOINTS.products.path] as Json).post = createProductOperation();
  const readScopes = READ_SCOPES.join(", ");
  return {
    openapi: "3.1.0",
    info: {
      title: "Public Catalog API",
      version: "1.0.0",
      summary: writes
        ? "Access to one organization's product catalog: reads, and product creation in preview."
        : "Read-only access to one organization's product catalog.",
      description:
        "Read-only HTTP/JSON API over the product catalog of the organization that owns the API key. " +
        "Every call sends `Authorization: Bearer <API_KEY>`; the key carries scopes and belongs to exactly one organization. " +
        "Lists page with `page`/`perPage`, search with `q`, sort with `sort=field.asc|desc`, and keep a copy in sync " +
        "with `updatedSince` and conditional requests (`ETag`, `If-None-Match`, 304). Errors have the shape " +
        "`{ statusCode, message, error, code, requestId }`; messages are in French." +
        (writes
          ? " Write preview (switched on on this server): `POST /public/v1/products` creates draft products with the " +
            "`products:write` scope; its errors add `details`, one entry per offending field. It may still change."
          : ""),
      // The portal of this server: its guides say how to reach support (quote the requestId).
      contact: { name: "Public Catalog API portal", url: `${baseUrl}/docs` },
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    servers: [{ url: baseUrl, description: "This server" }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: "Products", description: "Products of the catalog." },
      { name: "Families", description: "Product families and the attributes they expect." },
      { name: "Attributes", description: "Configurable attributes." },
      { name: "Categories", description: "Catalog classification: master and secondary trees." },
      { name: "Media", description: "Publicly exposed images, videos and documents." },
    ],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "pca_…",
          description: writes
            ? `An API key created in the console. Scopes: ${readScopes}; ${WRITE_SCOPE} (write preview: creates products; never granted by default).`
            : `An API key created in the console. Scopes: ${readScopes}.`,
        },
      },
      schemas: {
        Product: jsonSchema(productSchema, "output"),
        Family: jsonSchema(familySchema, "output"),
        Attribute: jsonSchema(attributeSchema, "output"),
        Category: jsonSchema(categorySchema, "output"),
        Media: jsonSchema(mediaSchema, "output"),
        Pagination: jsonSchema(paginationSchema, "output"),
        // Not "Error": generated clients (openapi-typescript, openapi-generator) export a type of each schema's name,
        // and one named Error shadows JavaScript's global Error class in the code that imports it.
        ApiError: jsonSchema(readErrorBodySchema, "output"),
        ...(writes
          ? {
              ...componentSchemas(createProductSchemaRegistry),
              CreatedProduct: jsonSchema(createdProductSchema, "output"),
              ProductDraft: jsonSchema(productDraftSchema, "output"),
              WriteError: jsonSchema(errorBodySchema, "output"),
            }
          : {}),
      },
      headers: {
        "X-Request-Id": {
          description: "Identifier of the request, for support.",
          schema: { type: "string" },
        },
        ...RATE_LIMIT_HEADER_DOCS,
        "Retry-After": {
          description: "Seconds to wait before retrying.",
          schema: { type: "integer", minimum: 1 },
        },
        ETag: {
          description:
            "Strong entity tag of this answer, from the organization, its catalog version, the path and the query " +
            "(defaults applied: `?page=1` and `?perPage=20&page=1` share it). It changes with anything the list shows " +
            "(an item, a total, a family label shown in product items, a product's name in a channel). Send it back " +
            "in `If-None-Match` to get a 304 while nothing changed.",
          schema: { type: "string" },
          example: EXAMPLE_ETAG,
        },
        "Cache-Control": {
          description:
            "`private, no-cache`: a cache may keep the answer for this key only, and must revalidate it " +
            "(`If-None-Match`) before each use.",
          schema: { type: "string", enum: ["private, no-cache"] },
        },
        Vary: {
          description:
            "Lists `Authorization`: the answer depends on the key's organization and scopes (a server may list other " +
            "request headers besides).",
          schema: { type: "string" },
          example: "Authorization",
        },
      },
    },
  };
}
