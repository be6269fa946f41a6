// The pieces every operation's OpenAPI fragment shares: the error bodies and their examples, the request id and
// rate-limit headers, the validator headers of a conditional read, the query parameters documented from their
// definitions, If-None-Match, and the error answers of a read.
import type { WriteIssue } from "@/lib/catalog/catalog-errors";
import type { ParamDef } from "@/lib/catalog/list/query-grammar";
import type { Scope } from "@/lib/keys/scopes";
import { ERRORS, type ErrorCode, type PublicApiError } from "../api-errors";
import { keyInQueryMessage } from "../authenticate";
import { IF_NONE_MATCH_MAX, IF_NONE_MATCH_TOO_LONG } from "../conditional";
import { RATE_LIMIT_HEADERS as RATE_LIMIT_HEADER_DOCS } from "../headers";
import { insufficientScope } from "../pipeline";
import { unknownParamText } from "../query-messages";
import { jsonSchema, type Json } from "./json-schema";

const EXAMPLE_REQUEST_ID = "4f7c1a9e-2b7d-4c1e-9a53-0f3d2e6b8c11";

// An example error body of the document: the code's status, message and error, and an example request id.
export function errorExample(code: ErrorCode, message?: string, extra: Json = {}): Json {
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

// An error response of an operation: its description, the request id header and the named example bodies.
export function errorResponseDoc(
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

// The example body of an error the API throws (its code, message and details, as its answer carries them).
export function exampleOf(err: PublicApiError): Json {
  return errorExample(err.code, err.message, err.extra.details ? { details: err.extra.details } : {});
}

// A write-preview error example: the error with its `details` (built by writeIssue: the messages of the answers).
export function writeErrorExample(code: ErrorCode, message: string | undefined, details: WriteIssue[]): Json {
  return errorExample(code, message, { details });
}

// An error response of a write operation: its body is a WriteError (an error with `details`).
export const writeError = (description: string, examples: Record<string, Json>, headers: Json = {}): Json =>
  errorResponseDoc(description, examples, headers, "WriteError");

// The example ETag of the document: the If-None-Match parameter's and the ETag header's.
export const EXAMPLE_ETAG = '"Hq3vZ0p9Qm2vX8rL5wN1yB7cD4fK6jS0"';

// The request id and the rate-limit headers, as references to the document's components.
export const RATE_LIMIT_HEADERS = {
  "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" },
  ...Object.fromEntries(
    Object.keys(RATE_LIMIT_HEADER_DOCS).map((name) => [name, { $ref: `#/components/headers/${name}` }]),
  ),
};

// An operation's responses, each declaring the rate-limit headers: every answer given after the limiter counted the
// request carries them (lib/public-api/headers.ts says which), and the OWASP ruleset asks for them on every 2xx and
// 4xx. Declared headers are optional: an answer given before the limiter (a missing key) simply has none.
export function withRateLimitHeaders(responses: Record<string, Json>): Record<string, Json> {
  return Object.fromEntries(
    Object.entries(responses).map(([status, r]) => [
      status,
      { ...r, headers: { ...RATE_LIMIT_HEADERS, ...(r.headers as Json | undefined) } },
    ]),
  );
}

// The validator headers of a list answer (200 and 304): its ETag, how it may be cached, and what it varies with.
export const CONDITIONAL_HEADERS = {
  ETag: { $ref: "#/components/headers/ETag" },
  "Cache-Control": { $ref: "#/components/headers/Cache-Control" },
  Vary: { $ref: "#/components/headers/Vary" },
};

// The document's header components, which the references above name: the request id, the rate-limit headers,
// Retry-After and the validator headers of a list.
export function headerComponents(): Json {
  return {
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
        "Strong entity tag of this answer: a hash of its bytes, with the organization, the path and the query " +
        "(defaults applied: `?page=1` and `?perPage=20&page=1` share it). It changes when the answer does (an " +
        "item, a total, a family label shown in product items, a product's name in a channel), and only then: a " +
        "write that leaves this answer as it was leaves its tag valid. Send it back in `If-None-Match` to get a " +
        "304 while the answer is the same.",
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
  };
}

// A query parameter of an operation, documented from its definition (lib/catalog/list/query-grammar.ts).
export function parameter(name: string, p: ParamDef): Json {
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
  // A preview feature's parameter (documented only while the feature is on) is marked so, as its operations are.
  if (p.preview !== undefined) out["x-preview"] = true;
  return out;
}

// If-None-Match on a list: the ETags of earlier answers; a match answers 304 (lib/public-api/conditional.ts).
export const IF_NONE_MATCH: Json = {
  name: "If-None-Match",
  in: "header",
  required: false,
  description:
    "The `ETag` of an earlier answer to this same request (or several, comma-separated, or `*`): while that answer " +
    "is unchanged, the answer is **304 Not Modified** with no body: keep your copy. Checked after the key, the rate " +
    "limit and the scope, so a 304 counts against the quota like any request, and a revoked key still gets 401. " +
    "A `W/` prefix is ignored (weak comparison).",
  schema: { type: "string", maxLength: IF_NONE_MATCH_MAX },
  example: EXAMPLE_ETAG,
};

// The scope an operation requires, as its description says it ("`a`", or "one of `a`, `b`").
export function scopeText(scope: Scope | readonly Scope[]): string {
  return typeof scope === "string" ? `\`${scope}\`` : `one of ${scope.map((s) => `\`${s}\``).join(", ")}`;
}

// The error answers every read shares: 400 (with the given examples, an unknown parameter's and If-None-Match's),
// 401, 403 for the scope, 429, 500 and 503.
export function readErrorResponses(
  scope: Scope | readonly Scope[],
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
