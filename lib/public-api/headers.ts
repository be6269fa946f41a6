import { randomUUID } from "node:crypto";
import type { RateLimitResult } from "@/lib/rate-limit/types";
import type { Reply } from "./reply";

// The rate-limit state headers, IETF httpapi draft (RateLimit-Policy, RateLimit) and the X-RateLimit-* trio, with
// what the OpenAPI document says of each. setRateLimitHeaders sets exactly these; the document declares them on every
// answer of an operation (lib/public-api/openapi/shared.ts), since every answer given after the per-key limiter
// counted the request carries them (200, 304, 400, 403, 404, 409, 413, 415, 422, 429, and a 500 or 503 of the
// database), and a 401 to a well-formed unknown key carries the auth-failures policy's.
export const RATE_LIMIT_HEADERS = {
  RateLimit: {
    description:
      'Remaining quota and seconds until it frees (IETF httpapi draft), e.g. `"default";r=599;t=60`; on a 401 to a well-formed unknown key, the `"auth-failures"` policy of the client address.',
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
} as const;

// The name of a rate-limit header.
export type RateLimitHeader = keyof typeof RATE_LIMIT_HEADERS;

// The media type of an export's answer (preview `export`): one JSON object per line.
export const NDJSON = "application/x-ndjson";

// Headers exposed to browsers calling the API from another origin (an export adds its cursor's).
export const EXPOSED = [
  "X-Request-Id",
  "ETag",
  ...Object.keys(RATE_LIMIT_HEADERS),
  "Retry-After",
  "Location",
  "Idempotent-Replayed",
].join(", ");

// Headers every answer under /public/v1 carries: its request id, cross-origin access and the security headers.
function apiHeaders(requestId: string, cacheControl: string, contentType?: string): Headers {
  const h = new Headers({
    "Cache-Control": cacheControl,
    "X-Request-Id": requestId,
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Expose-Headers": EXPOSED,
    "X-Content-Type-Options": "nosniff",
  });
  if (contentType) h.set("Content-Type", contentType);
  return h;
}

// Headers of a JSON answer of the public API (private, never stored unless a caching feature says otherwise).
export function baseHeaders(requestId: string, cacheControl = "private, no-store"): Headers {
  return apiHeaders(requestId, cacheControl, "application/json; charset=utf-8");
}

// Sets the rate-limit state headers (RATE_LIMIT_HEADERS, every one of them) of a limiter's answer.
export function setRateLimitHeaders(
  h: Headers,
  policy: string,
  windowSeconds: number,
  r: RateLimitResult,
  now: number,
): void {
  const resetIn = Math.max(0, Math.ceil((r.reset - now) / 1000));
  const remaining = Math.max(0, r.remaining);
  const values: Record<RateLimitHeader, string> = {
    "RateLimit-Policy": `"${policy}";q=${r.limit};w=${windowSeconds}`,
    RateLimit: `"${policy}";r=${remaining};t=${resetIn}`,
    "X-RateLimit-Limit": String(r.limit),
    "X-RateLimit-Remaining": String(remaining),
    "X-RateLimit-Reset": String(Math.ceil(r.reset / 1000)),
  };
  for (const [name, value] of Object.entries(values)) h.set(name, value);
}

// The answer to a CORS preflight of the public API, for a resource whose methods are `allow`: its Allow header is
// the one its 405 sends (one value for both, so a client reads one answer), and CORS allows those and OPTIONS.
export function preflightReply(allow: string): Reply {
  const headers = apiHeaders(randomUUID(), "public, max-age=86400");
  headers.set("Access-Control-Allow-Methods", `${allow}, OPTIONS`);
  headers.set(
    "Access-Control-Allow-Headers",
    "Authorization, Content-Type, Accept, If-None-Match, Idempotency-Key",
  );
  headers.set("Access-Control-Max-Age", "86400");
  headers.set("Allow", allow);
  return { status: 204, headers, body: null };
}
