// What the production server (scripts/serve.mjs) decides about a request before Next.js sees it. Next.js answers
// some requests itself, outside any route of ours: a malformed percent-encoding or an unknown method (TRACE) with a
// 500, a trailing or doubled slash with a 308 redirect, an `RSC` header with a redirect to `?_rsc=…`, an
// absolute-form target (`GET http://evil.test/x`) with a 308 to the host it names, `OPTIONS *` with a 500. Under
// /public/ and /media/ those answers break the API's contract, so they are settled here, in the API's error shape;
// the request target is made a path first, and its dot segments resolved before the path is routed.
// Node's HTTP parser keeps the first of two Authorization headers and drops the other before any code of ours sees
// the request: the front door, which sees the raw header lines, refuses such a request under /public/ (a 401 that
// uses neither key). Its own answers outside the API carry the portal's security headers (lib/portal/csp.ts).
import type { ServerResponse } from "node:http";
import { randomUUID } from "node:crypto";
import { BASELINE_SECURITY_HEADERS } from "@/lib/portal/csp";
import { PublicApiError, errorBody } from "@/lib/public-api/api-errors";
import { plainError } from "@/lib/public-api/error-response";
import { toResponse } from "@/lib/public-api/reply";
import { baseHeaders } from "@/lib/public-api/headers";
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

// Decides what to do with a request from its method, raw request target (as sent, not decoded: a path and query, an
// absolute URL or `*`) and raw header lines (node's `rawHeaders`: name, value, name, value, …).
export function frontDoor(
  method: string,
  rawUrl: string,
  rawHeaders: readonly string[] = [],
): FrontDoorDecision {
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
    if (api)
      return { kind: "answer", response: toResponse(plainError("PUBLIC_API_METHOD_NOT_ALLOWED", method)) };
    return { kind: "answer", response: plainText(405, "Method Not Allowed", { Allow: APP_ALLOW }) };
  }
  // Two Authorization lines: which key was meant is unknown, so neither is used (node would keep the first).
  if (api && authorizationLines(rawHeaders) > 1)
    return { kind: "answer", response: toResponse(plainError("PUBLIC_API_KEY_INVALID", method)) };
  if (!decodes(rawPath)) {
    if (api || media)
      return { kind: "answer", response: toResponse(plainError("PUBLIC_API_INVALID_PATH", method)) };
    return {
      kind: "pass",
      url: NOT_FOUND_PATH,
      stripHeaders: keepAll,
      addHeaders: none,
      routerFree: false,
      api: false,
    };
  }
  // A portal path spelt with doubled slashes, backslashes or a trailing slash: Next.js redirects it to its
  // canonical spelling with none of the security headers (its redirect comes before next.config's headers); the
  // same redirect here carries them. Its Location is a path on this site ("//x" is never protocol-relative).
  if (!api && !media) {
    const canonicalPath = rawPath.replace(/[/\\]+/g, "/").replace(/(.)\/$/, "$1");
    if (canonicalPath !== rawPath)
      return { kind: "answer", response: canonicalRedirect(canonicalPath + query) };
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

// The number of Authorization lines among raw header lines.
function authorizationLines(rawHeaders: readonly string[]): number {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === "authorization") n++;
  return n;
}

// A short plain-text answer of the front door outside the API (never sniffed as HTML, never framed).
function plainText(status: number, text: string, headers: Record<string, string> = {}): Response {
  return new Response(`${text}\n`, {
    status,
    headers: { ...headers, "Content-Type": "text/plain; charset=utf-8", ...BASELINE_SECURITY_HEADERS },
  });
}

// A permanent redirect to a path of this site, with the portal's security headers.
function canonicalRedirect(location: string): Response {
  return new Response(null, { status: 308, headers: { Location: location, ...BASELINE_SECURITY_HEADERS } });
}

// The answer to a request target that is not a path (`GET *`, `GET name`).
const badTarget = () => plainText(400, "Bad Request");

// The server-wide OPTIONS answer (`OPTIONS *`): the methods the server knows.
function serverOptions(): Response {
  return new Response(null, {
    status: 204,
    headers: { Allow: APP_ALLOW, ...BASELINE_SECURITY_HEADERS },
  });
}

// What the production server writes on a socket whose request node's HTTP parser refused (its `clientError`: a
// header block or request line over 16 KB, a request whose headers took longer than headersTimeout, a request that
// is not HTTP), before it closes the connection: the whole answer as bytes, `Connection: close`. Node's own answer
// is a bare status line; this one is in the API's error shape when the request line names a path under /public/,
// plain text with the portal's security headers when it names another. When the path is unknown (node keeps a
// request line it has not finished parsing to itself, so a timed-out request's is never known, nor a request that
// is not HTTP) it is in the API's error shape with the portal's security headers too: right for either side. No
// answer for a socket whose client is gone (a reset).
export function parserRefusal(code: string | undefined, rawPacket?: Buffer | string): Buffer {
  const status = code === "HPE_HEADER_OVERFLOW" ? 431 : code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
  const reason = STATUS_TEXT[status]!;
  let headers: Headers;
  let body: string;
  const api = targetsApi(rawPacket);
  if (api !== false) {
    const requestId = randomUUID();
    const e = new PublicApiError(
      status === 431
        ? "PUBLIC_API_HEADERS_TOO_LARGE"
        : status === 408
          ? "PUBLIC_API_REQUEST_TIMEOUT"
          : "PUBLIC_API_INVALID_HEADER",
    );
    headers = baseHeaders(requestId);
    if (api === undefined) for (const [k, v] of Object.entries(BASELINE_SECURITY_HEADERS)) headers.set(k, v);
    body = JSON.stringify(errorBody(e, requestId));
  } else {
    headers = new Headers({ "Content-Type": "text/plain; charset=utf-8", ...BASELINE_SECURITY_HEADERS });
    body = `${reason}\n`;
  }
  return closingAnswer(status, reason, headers, Buffer.from(body));
}

// What the production server writes on the socket of a CONNECT request, which node hands to the server's `connect`
// event instead of its request handler (without a listener it closes the socket unanswered): the front door's
// answer (CONNECT is no method of the app: a 405, in the API's error shape under /public/; an authority-form target
// a 400), then the connection closed.
export async function connectRefusal(rawUrl: string, rawHeaders: readonly string[]): Promise<Buffer> {
  const decision = frontDoor("CONNECT", rawUrl, rawHeaders);
  const response =
    decision.kind === "answer"
      ? decision.response
      : plainText(405, "Method Not Allowed", { Allow: APP_ALLOW });
  const body = Buffer.from(await response.arrayBuffer());
  return closingAnswer(
    response.status,
    response.statusText || STATUS_TEXT[response.status] || "",
    response.headers,
    body,
  );
}

// An answer as the bytes of an HTTP/1.1 response that closes its connection.
function closingAnswer(status: number, reason: string, headers: Headers, body: Buffer): Buffer {
  const lines = [`HTTP/1.1 ${status} ${reason}`];
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  lines.push(`content-length: ${body.length}`, "connection: close", "", "");
  return Buffer.concat([Buffer.from(lines.join("\r\n"), "latin1"), body]);
}

// The reason phrases of the statuses the server writes on a socket itself.
const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  405: "Method Not Allowed",
  408: "Request Timeout",
  431: "Request Header Fields Too Large",
};

// Whether a raw request's first line (what the parser had read) targets a path under /public/, in origin or
// absolute form: undefined when no complete request line was read (or it is not one).
function targetsApi(rawPacket: Buffer | string | undefined): boolean | undefined {
  if (!rawPacket) return undefined;
  const text = typeof rawPacket === "string" ? rawPacket : rawPacket.subarray(0, 20_000).toString("latin1");
  const line = /^[A-Za-z]+ (\S+) HTTP\/1\.[01]\r?\n/.exec(text);
  if (!line) return undefined;
  const path = originForm(line[1]!);
  if (path === null) return false;
  try {
    return /^\/public(?:\/|$)/.test(new URL(path.replace(/[/\\]+/g, "/"), "http://n").pathname);
  } catch {
    return false;
  }
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
