import { randomUUID } from "node:crypto";
import type { RateLimitResult } from "@/lib/rate-limit";

// Headers exposed to browsers calling the API from another origin.
const EXPOSED =
  "X-Request-Id, ETag, RateLimit, RateLimit-Policy, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Location, Idempotent-Replayed";

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

// Rate-limit state headers: IETF httpapi draft (RateLimit-Policy, RateLimit) and the X-RateLimit-* trio.
export function setRateLimitHeaders(
  h: Headers,
  policy: string,
  windowSeconds: number,
  r: RateLimitResult,
  now: number,
): void {
  const resetIn = Math.max(0, Math.ceil((r.reset - now) / 1000));
  const remaining = Math.max(0, r.remaining);
  h.set("RateLimit-Policy", `"${policy}";q=${r.limit};w=${windowSeconds}`);
  h.set("RateLimit", `"${policy}";r=${remaining};t=${resetIn}`);
  h.set("X-RateLimit-Limit", String(r.limit));
  h.set("X-RateLimit-Remaining", String(remaining));
  h.set("X-RateLimit-Reset", String(Math.ceil(r.reset / 1000)));
}

// The answer to a CORS preflight of the public API.
export function preflightResponse(allow: string): Response {
  const headers = apiHeaders(randomUUID(), "public, max-age=86400");
  headers.set("Access-Control-Allow-Methods", allow);
  headers.set(
    "Access-Control-Allow-Headers",
    "Authorization, Content-Type, Accept, If-None-Match, Idempotency-Key",
  );
  headers.set("Access-Control-Max-Age", "86400");
  headers.set("Allow", allow);
  return new Response(null, { status: 204, headers });
}
