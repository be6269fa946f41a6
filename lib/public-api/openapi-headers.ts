import { RATE_LIMIT_HEADERS as RATE_LIMIT_HEADER_DOCS } from "./headers";
import type { Json } from "./openapi-json-schema";

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
