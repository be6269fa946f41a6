import { ENDPOINTS, type ListEndpoint } from "./endpoints";
import { unknownParamText } from "./query-messages";
import { insufficientScope } from "./pipeline";
import { keyInQueryMessage } from "./authenticate";
import { IF_NONE_MATCH_MAX, IF_NONE_MATCH_TOO_LONG } from "./conditional";
import { errorExample, errorResponseDoc } from "./openapi-errors";
import { CONDITIONAL_HEADERS, RATE_LIMIT_HEADERS, withRateLimitHeaders } from "./openapi-headers";
import type { Json } from "./openapi-json-schema";
import { IF_NONE_MATCH, parameter } from "./openapi-parameters";

// An example item of each list, shown in its 200 example.
export const EXAMPLES: Record<keyof typeof ENDPOINTS, Json> = {
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

// The schema of the items of each list (a component of the document).
const ITEM_NAMES: Record<keyof typeof ENDPOINTS, string> = {
  products: "Product",
  families: "Family",
  attributes: "Attribute",
  categories: "Category",
  media: "Media",
};

// The GET operation of one list (ENDPOINTS): its parameters, a page of its items, the 304 and the errors.
export function listOperation(list: keyof typeof ENDPOINTS): Json {
  return listEndpointOperation(ENDPOINTS[list], ITEM_NAMES[list], EXAMPLES[list]);
}

// The scope an operation requires, as its description says it ("`a`", or "one of `a`, `b`").
export function scopeText(scope: ListEndpoint["scope"]): string {
  return typeof scope === "string" ? `\`${scope}\`` : `one of ${scope.map((s) => `\`${s}\``).join(", ")}`;
}

// What the document reads of a list endpoint (any query type).
type DocumentedList = Pick<ListEndpoint, "name" | "scope" | "summary" | "description"> & {
  query: { params: ListEndpoint["query"]["params"] };
};

// The GET operation of a list endpoint, its items a component of the document (`itemName`, with an example).
export function listEndpointOperation(e: DocumentedList, itemName: string, example: Json): Json {
  const params = [...Object.entries(e.query.params).map(([name, p]) => parameter(name, p)), IF_NONE_MATCH];
  const scopes = typeof e.scope === "string" ? [e.scope] : [...e.scope];
  return {
    operationId: `list${e.name[0]!.toUpperCase()}${e.name.slice(1)}`,
    summary: e.summary,
    description: `${e.description}\n\nRequired scope: ${scopeText(e.scope)}.`,
    tags: [itemName === "Media" ? "Media" : `${itemName[0]}${itemName.slice(1)}s`.replace("ys", "ies")],
    security: [{ bearerAuth: scopes }],
    "x-required-scope": typeof e.scope === "string" ? e.scope : scopes,
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
          "Not Modified: `If-None-Match` holds the current `ETag` of this answer, so this page, its items and its " +
          "totals are unchanged since the answer that carried it, whatever changed elsewhere. No body; the `ETag`, " +
          "the request id and the rate-limit headers as on a 200.",
        headers: { ...RATE_LIMIT_HEADERS, ...CONDITIONAL_HEADERS },
      },
      ...readErrorResponses(e.scope, Object.keys(e.query.params), {
        invalidPerPage: errorExample(
          "PUBLIC_API_INVALID_QUERY",
          "Paramètre « perPage » invalide : entier de 1 à 100 attendu (reçu « 1000 »).",
        ),
      }),
    }),
  };
}

// The error answers every read shares: 400 (with the given examples, an unknown parameter's and If-None-Match's),
// 401, 403 for the scope, 429, 500 and 503.
export function readErrorResponses(
  scope: ListEndpoint["scope"],
  parameters: readonly string[],
  invalid: Record<string, Json>,
): Json {
  const scopes = typeof scope === "string" ? [scope] : scope;
  return {
    "400": errorResponseDoc(
      `A query parameter is unknown or invalid, or \`If-None-Match\` is longer than ${IF_NONE_MATCH_MAX} characters; the message names it.`,
      {
        ifNoneMatchTooLong: errorExample("PUBLIC_API_INVALID_HEADER", IF_NONE_MATCH_TOO_LONG),
        ...invalid,
        unknownParameter: errorExample(
          "PUBLIC_API_INVALID_QUERY",
          unknownParamText("per_page", [...parameters]),
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
    "403": errorResponseDoc(`The key lacks the ${scopeText(scope)} scope.`, {
      insufficientScope: errorExample("PUBLIC_API_INSUFFICIENT_SCOPE", insufficientScope(scopes).message),
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
  };
}
