// What the production server (scripts/serve.mjs) decides about a request before Next.js sees it. Next.js answers
// some requests itself, outside any route of ours: a malformed percent-encoding or an unknown method (TRACE) with a
// 500, a trailing or doubled slash with a 308 redirect, an `RSC` header with a redirect to `?_rsc=…`. Under /public/
// and /media/ those answers break the API's contract, so they are settled here, in the API's error shape.
import { plainError } from "@/lib/public-api/error-response";

// The methods any route of the app may answer; anything else (TRACE, PROPFIND, …) is a 405 here.
export const KNOWN_METHODS: ReadonlySet<string> = new Set([
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "OPTIONS",
]);

// The Allow header of a 405 given outside the API.
const APP_ALLOW = [...KNOWN_METHODS].join(", ");

// A path that no page has: Next.js answers it with the portal's own 404 page.
export const NOT_FOUND_PATH = "/_not-found";

// Request headers that steer Next.js' router (React Server Components, prefetches, middleware, its internal
// routing headers); they mean nothing to the API, and `RSC: 1` alone turns an API call into a redirect. Stripped
// before either path (Next.js or the fast path), so that both give the handlers the same headers.
const FRAMEWORK_HEADER =
  /^(rsc|next-[a-z-]+|x-nextjs-[a-z-]+|x-next-[a-z-]+|x-middleware-[a-z-]+|x-invoke-[a-z-]+|x-matched-path|x-now-route-matches)$/i;

// The decision: answer now, or hand the request to Next.js with this URL (and without the framework headers).
export type FrontDoorDecision =
  | { kind: "answer"; response: Response }
  | { kind: "pass"; url: string; stripHeaders: (name: string) => boolean };

const keepAll = () => false;
const stripFramework = (name: string) => FRAMEWORK_HEADER.test(name);

// Decides what to do with a request from its method and raw URL (path and query as sent, not decoded).
export function frontDoor(method: string, rawUrl: string): FrontDoorDecision {
  const q = rawUrl.indexOf("?");
  const rawPath = q < 0 ? rawUrl : rawUrl.slice(0, q);
  const query = q < 0 ? "" : rawUrl.slice(q);
  const api = /^[/\\]+public(?:[/\\]|$)/.test(rawPath);
  const media = /^[/\\]+media(?:[/\\]|$)/.test(rawPath);

  if (!KNOWN_METHODS.has(method)) {
    if (api) return { kind: "answer", response: plainError("PUBLIC_API_METHOD_NOT_ALLOWED", method) };
    return {
      kind: "answer",
      response: new Response("Method Not Allowed\n", {
        status: 405,
        headers: {
          Allow: APP_ALLOW,
          "Content-Type": "text/plain; charset=utf-8",
          "X-Content-Type-Options": "nosniff",
        },
      }),
    };
  }
  if (!decodes(rawPath)) {
    if (api || media) return { kind: "answer", response: plainError("PUBLIC_API_INVALID_PATH", method) };
    return { kind: "pass", url: NOT_FOUND_PATH, stripHeaders: keepAll };
  }
  if (!api && !media) return { kind: "pass", url: rawUrl, stripHeaders: keepAll };
  // The API's paths have one spelling: "/public/v1//products/" and "/public/v1/x/../products/." are answered as
  // "/public/v1/products", never redirected (dot segments resolved as Next.js resolves them, with a URL parser).
  const resolved = new URL(rawPath.replace(/[/\\]+/g, "/"), "http://n").pathname;
  const canonical = resolved.replace(/(.)\/$/, "$1");
  return { kind: "pass", url: canonical + query, stripHeaders: stripFramework };
}

// True when every percent-escape of the path is well formed and the bytes they spell are UTF-8.
function decodes(rawPath: string): boolean {
  try {
    decodeURIComponent(rawPath);
    return true;
  } catch {
    return false;
  }
}
