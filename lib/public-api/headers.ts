import type { RateLimitResult } from "@/lib/rate-limit";

// Headers exposed to browsers calling the API from another origin.
const EXPOSED =
  "X-Request-Id, RateLimit, RateLimit-Policy, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After";

// Headers every public API response carries.
export function baseHeaders(requestId: string): Headers {
  return new Headers({
    "Content-Type": "application/json; charset=utf-8",
    "Cache-Control": "private, no-store",
    "X-Request-Id": requestId,
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Expose-Headers": EXPOSED,
    "X-Content-Type-Options": "nosniff",
  });
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
  return new Response(null, {
    status: 204,
    headers: {
      "Access-Control-Allow-Origin": "*",
      "Access-Control-Allow-Methods": allow,
      "Access-Control-Allow-Headers": "Authorization, Content-Type, Accept",
      "Access-Control-Max-Age": "86400",
      Allow: allow,
      "Cache-Control": "public, max-age=86400",
    },
  });
}
