import { z } from "zod";
import type { ParamDef } from "@/lib/catalog/query";
import {
  attributeSchema,
  categorySchema,
  familySchema,
  mediaSchema,
  paginationSchema,
  productSchema,
} from "@/lib/catalog/schemas";
import { ENDPOINTS, type ListEndpoint } from "./endpoints";
import { ERRORS, readErrorBodySchema, type ErrorCode } from "./errors";

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

function errorResponseDoc(description: string, examples: Record<string, Json>, headers: Json = {}): Json {
  return {
    description,
    headers: { "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" }, ...headers },
    content: {
      "application/json": {
        schema: { $ref: "#/components/schemas/Error" },
        examples: Object.fromEntries(Object.entries(examples).map(([k, v]) => [k, { value: v }])),
      },
    },
  };
}

const RATE_LIMIT_HEADERS = {
  "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" },
  RateLimit: { $ref: "#/components/headers/RateLimit" },
  "RateLimit-Policy": { $ref: "#/components/headers/RateLimit-Policy" },
  "X-RateLimit-Limit": { $ref: "#/components/headers/X-RateLimit-Limit" },
  "X-RateLimit-Remaining": { $ref: "#/components/headers/X-RateLimit-Remaining" },
  "X-RateLimit-Reset": { $ref: "#/components/headers/X-RateLimit-Reset" },
};

function operation(e: ListEndpoint, itemName: string, example: Json): Json {
  const params = Object.entries(e.query.params).map(([name, p]) => parameter(name, p));
  return {
    operationId: `list${e.name[0]!.toUpperCase()}${e.name.slice(1)}`,
    summary: e.summary,
    description: `${e.description}\n\nRequired scope: \`${e.scope}\`.`,
    tags: [itemName === "Media" ? "Media" : `${itemName[0]}${itemName.slice(1)}s`.replace("ys", "ies")],
    security: [{ bearerAuth: [e.scope] }],
    "x-required-scope": e.scope,
    parameters: params,
    responses: {
      "200": {
        description: "One page of items and the pagination of the whole list.",
        headers: RATE_LIMIT_HEADERS,
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
      "400": errorResponseDoc("A query parameter is unknown or invalid; the message names it.", {
        invalidPerPage: errorExample(
          "PUBLIC_API_INVALID_QUERY",
          "Paramètre « perPage » invalide : entier de 1 à 100 attendu (reçu « 1000 »).",
        ),
        unknownParameter: errorExample(
          "PUBLIC_API_INVALID_QUERY",
          `Paramètre « per_page » inconnu. Paramètres acceptés : ${Object.keys(e.query.params).join(", ")}.`,
        ),
      }),
      "401": errorResponseDoc(
        "The key is missing, invalid, expired or revoked.",
        {
          missing: errorExample("PUBLIC_API_KEY_MISSING"),
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
    },
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

// The OpenAPI 3.1 document of the public API, generated from the zod schemas that validate requests.
export function buildOpenApiDocument(baseUrl: string): Json {
  const paths: Json = {};
  for (const [name, e] of Object.entries(ENDPOINTS) as [keyof typeof ENDPOINTS, ListEndpoint][]) {
    paths[e.path] = { get: operation(e, ITEM_NAMES[name], EXAMPLES[name]!) };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Public Catalog API",
      version: "1.0.0",
      summary: "Read-only access to one organization's product catalog.",
      description:
        "Read-only HTTP/JSON API over the product catalog of the organization that owns the API key. " +
        "Every call sends `Authorization: Bearer <API_KEY>`; the key carries scopes and belongs to exactly one organization. " +
        "Lists page with `page`/`perPage`, search with `q`, sort with `sort=field.asc|desc`. Errors have the shape " +
        "`{ statusCode, message, error, code, requestId }`; messages are in French.",
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
          description:
            "An API key created in the console. Scopes: products:read, families:read, attributes:read, categories:read, media:read.",
        },
      },
      schemas: {
        Product: jsonSchema(productSchema, "output"),
        Family: jsonSchema(familySchema, "output"),
        Attribute: jsonSchema(attributeSchema, "output"),
        Category: jsonSchema(categorySchema, "output"),
        Media: jsonSchema(mediaSchema, "output"),
        Pagination: jsonSchema(paginationSchema, "output"),
        Error: jsonSchema(readErrorBodySchema, "output"),
      },
      headers: {
        "X-Request-Id": {
          description: "Identifier of the request, for support.",
          schema: { type: "string" },
        },
        RateLimit: {
          description:
            'Remaining quota and seconds until it frees (IETF httpapi draft), e.g. `"default";r=599;t=60`.',
          schema: { type: "string" },
        },
        "RateLimit-Policy": {
          description: 'Quota and window in seconds, e.g. `"default";q=600;w=60`.',
          schema: { type: "string" },
        },
        "X-RateLimit-Limit": { description: "Requests allowed per window.", schema: { type: "integer" } },
        "X-RateLimit-Remaining": { description: "Requests left in the window.", schema: { type: "integer" } },
        "X-RateLimit-Reset": {
          description: "When the window frees, in seconds since the Unix epoch.",
          schema: { type: "integer" },
        },
        "Retry-After": {
          description: "Seconds to wait before retrying.",
          schema: { type: "integer", minimum: 1 },
        },
      },
    },
  };
}
