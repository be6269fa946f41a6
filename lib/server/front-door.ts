// What the production server (scripts/serve.mjs) decides about a request before Next.js sees it. Next.js answers
// some requests itself, outside any route of ours: a malformed percent-encoding or an unknown method (TRACE) with a
// 500, a trailing or doubled slash with a 308 redirect, an `RSC` header with a redirect to `?_rsc=…`, an
// absolute-form target (`GET http://evil.test/x`) with a 308 to the host it names, `OPTIONS *` with a 500. Under
// /public/ and /media/ those answers break the API's contract, so they are settled here, in the API's error shape;
// the request target is made a path first, and its dot segments resolved before the path is routed.
import type { ServerResponse } from "node:http";
import { plainError } from "@/lib/public-api/error-response";
import { SENT_QUERY_HEADER } from "@/lib/public-api/params";

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
// before either path (Next.js or the API's own router), so that both give the handlers the same headers.
const FRAMEWORK_HEADER =
  /^(rsc|next-[a-z-]+|x-nextjs-[a-z-]+|x-next-[a-z-]+|x-middleware-[a-z-]+|x-invoke-[a-z-]+|x-matched-path|x-now-route-matches)$/i;

// The decision: answer now, or hand the request on with this URL, without the framework headers and with headers
// of the server's own (the API's: the query as sent, SENT_QUERY_HEADER).
export type FrontDoorDecision =
  | { kind: "answer"; response: Response }
  | {
      kind: "pass";
      url: string;
      stripHeaders: (name: string) => boolean;
      addHeaders: Record<string, string>;
      /** Under /public/ or /media/: router headers stripped, so its answer must not vary by them (dropRouterVary). */
      routerFree: boolean;
      /** Under /public/: the API's (its router answers it). */
      api: boolean;
    };

const keepAll = () => false;
// Under /public/ and /media/: the router's headers, and a client's own SENT_QUERY_HEADER (the server's word only).
const stripFramework = (name: string) =>
  FRAMEWORK_HEADER.test(name) || name.toLowerCase() === SENT_QUERY_HEADER;
const none = {};

// Decides what to do with a request from its method and raw request target (as sent, not decoded: a path and
// query, an absolute URL or `*`).
export function frontDoor(method: string, rawUrl: string): FrontDoorDecision {
  // `*` names the server itself (RFC 9110, 9.3.7): only OPTIONS may ask about it.
  if (rawUrl === "*")
    return { kind: "answer", response: method === "OPTIONS" ? serverOptions() : badTarget() };
  const target = originForm(rawUrl);
  if (target === null) return { kind: "answer", response: badTarget() };
  const q = target.indexOf("?");
  const rawPath = q < 0 ? target : target.slice(0, q);
  const query = q < 0 ? "" : target.slice(q);
  // Dot segments resolved first ("..", "%2e%2e" and backslashes, as Next.js resolves them, with a URL parser; runs
  // of slashes collapsed first so that "//public" stays a path), then routed: "/x/../public/v1/products" is the
  // API's, whatever prefix it was spelt under.
  const resolved = new URL(rawPath.replace(/[/\\]+/g, "/"), "http://n").pathname;
  const api = /^\/public(?:\/|$)/.test(resolved);
  const media = /^\/media(?:\/|$)/.test(resolved);

  if (!KNOWN_METHODS.has(method)) {
    if (api) return { kind: "answer", response: plainError("PUBLIC_API_METHOD_NOT_ALLOWED", method) };
    return { kind: "answer", response: plainText(405, "Method Not Allowed", { Allow: APP_ALLOW }) };
  }
  if (!decodes(rawPath)) {
    if (api || media) return { kind: "answer", response: plainError("PUBLIC_API_INVALID_PATH", method) };
    return {
      kind: "pass",
      url: NOT_FOUND_PATH,
      stripHeaders: keepAll,
      addHeaders: none,
      routerFree: false,
      api: false,
    };
  }
  if (!api && !media)
    return {
      kind: "pass",
      url: target,
      stripHeaders: keepAll,
      addHeaders: none,
      routerFree: false,
      api: false,
    };
  // The API's paths have one spelling: "/public/v1//products/" and "/public/v1/x/../products/." are answered as
  // "/public/v1/products", never redirected.
  const canonical = resolved.replace(/(.)\/$/, "$1");
  // The query as sent (without a fragment, as a URL's), which Next.js would re-serialise (losing `__proto__`)
  // before the API's parser sees it.
  const addHeaders = api ? { [SENT_QUERY_HEADER]: query.slice(1).replace(/#.*$/s, "") } : none;
  return {
    kind: "pass",
    url: canonical + query,
    stripHeaders: stripFramework,
    addHeaders,
    routerFree: true,
    api,
  };
}

// The path and query of a request target: itself in origin-form ("/path?q"); in absolute-form
// ("http://host/path?q", which a client may send to any server) only its path and query: the host it names is never
// trusted (Next.js would redirect there). Anything else (a bare name, authority-form) is null.
function originForm(target: string): string | null {
  if (target.startsWith("/")) return target;
  const authority = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(target);
  if (!authority) return null;
  const rest = target.slice(authority[0].length);
  return rest.startsWith("/") ? rest : `/${rest}`;
}

// A short plain-text answer of the front door outside the API (never sniffed as HTML).
function plainText(status: number, text: string, headers: Record<string, string> = {}): Response {
  return new Response(`${text}\n`, {
    status,
    headers: { ...headers, "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" },
  });
}

// The answer to a request target that is not a path (`GET *`, `GET name`).
const badTarget = () => plainText(400, "Bad Request");

// The server-wide OPTIONS answer (`OPTIONS *`): the methods the server knows.
function serverOptions(): Response {
  return new Response(null, {
    status: 204,
    headers: { Allow: APP_ALLOW, "X-Content-Type-Options": "nosniff" },
  });
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

// Makes a node response drop Next.js' router headers (RSC, Next-Router-*, Next-Url) from its Vary when its head is
// written, after everything else (Next.js, the route, the compression middleware) has added to it. Next.js lists
// them on every app route's answer; the front door stripped them from a routerFree request, so its answer does not
// vary by them (the API's answers showed "Vary: rsc, next-router-state-tree, …, Authorization, Accept-Encoding").
export function dropRouterVary(res: ServerResponse): void {
  const writeHead = res.writeHead as (...args: unknown[]) => ServerResponse;
  res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    const vary = this.getHeader("vary");
    if (vary !== undefined) {
      const names = (Array.isArray(vary) ? vary : [String(vary)])
        .flatMap((v) => v.split(","))
        .map((n) => n.trim())
        .filter((n) => n && !FRAMEWORK_HEADER.test(n));
      if (names.length) this.setHeader("vary", names.join(", "));
      else this.removeHeader("vary");
    }
    return writeHead.apply(this, args);
  } as ServerResponse["writeHead"];
}
