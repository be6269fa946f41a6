// The production server's fast path: a request under /public/v1/ is answered by calling the route handler that
// Next.js would call (the table of lib/server/next-routes.ts), with the Web Request Next.js would build and its
// Response written to the socket as Next.js writes it, without Next.js' routing and rendering machinery around it
// (about 1 ms of CPU per request on this machine: the framework's ceiling). Everything else goes to Next.js.
//
// What Next.js does around an app route handler, and so what this does (checked against `next start` by
// tests/e2e/parity.spec.ts), but for two things the API needs otherwise:
//   request:  URL `http(s)://localhost:<port>` + the path with dot segments resolved + the query as sent (Next.js
//             rebuilds it from a parsed object, which loses `__proto__`; the API's parser reads the query as sent
//             from the front door's header on both paths); the node headers plus X-Forwarded-Host/-Port/-Proto/-For
//             when absent; the node request as the body (not for GET/HEAD); a signal aborted when the client goes
//             away; `{ params }` as second argument.
//   response: gzip/deflate by next.config's `compress` (Next.js' own middleware, which adds Vary:
//             Accept-Encoding), the handler's headers but Content-Length, Content-Encoding and Transfer-Encoding,
//             the body streamed chunk by chunk with backpressure (headers flushed with the first chunk), none for
//             HEAD. Not Next.js' router headers (RSC, Next-Router-*) in Vary: the front door strips them from the
//             API's requests, so its answers do not vary by them.
// A failure here (a handler that throws, which the API's pipeline never lets happen) is a 500 in the API's error
// shape, never a crash.
import type { IncomingMessage, ServerResponse } from "node:http";
import { Duplex } from "node:stream";
import { errorResponse } from "@/lib/public-api/error-response";
import { baseHeaders } from "@/lib/public-api/headers";
import type { RouteMatch, RouteTable } from "./next-routes";

// Next.js' compression middleware (the `compression` package): (req, res, next) → void.
export type Compression = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

export interface FastPathOptions {
  /** The port and host name Next.js was given (next({ port, hostname })): the handlers' URL origin. */
  port: number;
  hostname: string;
  /** next.config's compress on: Next.js' compression middleware. */
  compression?: Compression;
}

// Serves a request (its URL as the front door passed it) when a route of the table answers it: true when it
// took the request, false to hand it to Next.js.
export type FastPath = (req: IncomingMessage, res: ServerResponse, url: string) => boolean;

const PREFIX = "/public/v1/";
// Response headers Next.js never copies from a handler's Response (the body may have been decoded).
const FORBIDDEN = new Set([
  "content-length",
  "content-encoding",
  "transfer-encoding",
  "x-middleware-set-cookie",
]);
// Response headers Next.js appends rather than keeping the first value.
const MULTI = new Set(["set-cookie", "www-authenticate", "proxy-authenticate", "vary"]);
const noop = () => {};

export function createFastPath(table: RouteTable, opts: FastPathOptions): FastPath {
  const host = opts.hostname.includes(":") ? `[${opts.hostname}]` : opts.hostname;
  const origins = { http: `http://${host}:${opts.port}`, https: `https://${host}:${opts.port}` };

  return (req, res, url) => {
    if (!url.startsWith(PREFIX)) return false;
    const method = req.method ?? "GET";
    let found: RouteMatch | undefined;
    let target: URL;
    try {
      const proto = req.headers["x-forwarded-proto"]?.includes("https") ? "https" : "http";
      target = new URL(origins[proto] + url);
      // A trailing slash left by dot segments: Next.js redirects it (the front door resolves them first).
      if (target.pathname.endsWith("/")) return false;
      found = table.match(target.pathname);
    } catch {
      return false; // Next.js decides
    }
    const handler = found?.route.handlers[method];
    if (!found || !handler) return false;

    req.on("error", noop);
    res.on("error", noop);
    if (opts.compression) {
      opts.compression(req, res, noop);
      res.once("close", () => {
        if (!res.writableFinished) releaseCompressionStream(res);
      });
    }
    const context = { params: Promise.resolve(found.params) };
    answer(req, res, () => handler(toRequest(req, res, target, opts), context)).catch((err: unknown) => {
      console.error("[fast-path] could not write an answer:", err);
      res.destroy();
    });
    return true;
  };
}

// The Web Request Next.js gives a route handler for this node request.
export function toRequest(
  req: IncomingMessage,
  res: ServerResponse,
  target: URL,
  server: { port: number; hostname: string },
): Request {
  const h = req.headers;
  const https = h["x-forwarded-proto"] ? h["x-forwarded-proto"] === "https" : false;
  h["x-forwarded-host"] ??= h.host ?? server.hostname;
  h["x-forwarded-port"] ??= String(server.port);
  h["x-forwarded-proto"] ??= https ? "https" : "http";
  h["x-forwarded-for"] ??= req.socket.remoteAddress;
  const headers = new Headers();
  for (const name in h) {
    const value = h[name];
    if (value === undefined) continue;
    if (typeof value === "string") headers.append(name, value);
    else for (const v of value) headers.append(name, v);
  }
  const method = req.method ?? "GET";
  if (method === "GET" || method === "HEAD") return new HandlerRequest(target.href, { method, headers }, res);
  // A body: the node request, streamed; its signal is needed at once (undici ties the body's stream to it).
  const signal = closedSignal(res);
  const init: RequestInit & { duplex?: "half" } = { method, headers, signal };
  if (!signal.aborted) {
    init.body = req as unknown as ReadableStream;
    init.duplex = "half";
  }
  return new Request(target.href, init);
}

// A Request whose `signal` (aborted when the client goes away, as Next.js' is) is made when a handler first reads
// it. Handing undici a signal at construction costs an AbortController, a WeakRef and a FinalizationRegistry
// entry per request, which survive young-generation collections: under load they were promoted by the megabyte
// and set off the old-space collections behind the tail latency (bench/results/2026-11-23-gc-fast-path.md).
// The API's handlers never read it; a handler that does gets the same signal as before.
class HandlerRequest extends Request {
  #res: ServerResponse;
  #signal: AbortSignal | undefined;
  constructor(url: string, init: RequestInit, res: ServerResponse) {
    super(url, init);
    this.#res = res;
  }
  override get signal(): AbortSignal {
    return (this.#signal ??= closedSignal(this.#res));
  }
}

// An AbortSignal aborted when the client goes away before the answer is written.
function closedSignal(res: ServerResponse): AbortSignal {
  // Read after the answer went out in full (a handler keeping its request): never aborted, as under Next.js.
  if (res.writableFinished) return new AbortController().signal;
  if (res.errored || res.destroyed) return AbortSignal.abort(res.errored ?? new Error("Response aborted"));
  const controller = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) controller.abort(new Error("Response aborted"));
  });
  return controller.signal;
}

// Calls the handler and writes its Response; a handler that throws is answered with a 500 in the API's shape.
async function answer(req: IncomingMessage, res: ServerResponse, call: () => Promise<Response> | Response) {
  let response: Response;
  try {
    response = await call();
    if (!(response instanceof Response)) throw new TypeError("the route handler did not return a Response");
  } catch (err) {
    const requestId = crypto.randomUUID();
    response = errorResponse(err, requestId, baseHeaders(requestId), req.method === "HEAD");
  }
  await writeResponse(req, res, response);
}

// Writes a Web Response to a node response as Next.js' sendResponse does.
export async function writeResponse(
  req: IncomingMessage,
  res: ServerResponse,
  response: Response,
): Promise<void> {
  if (res.destroyed) {
    await response.body?.cancel().catch(noop);
    return;
  }
  res.statusCode = response.status;
  res.statusMessage = response.statusText;
  response.headers.forEach((value, name) => {
    if (FORBIDDEN.has(name)) return;
    if (MULTI.has(name) || res.getHeader(name) === undefined) res.appendHeader(name, value);
  });
  const body = response.body;
  if (!body || req.method === "HEAD") {
    if (body) await body.cancel().catch(noop);
    res.end();
    return;
  }
  const reader = body.getReader();
  // The same writes as Next.js (headers flushed with the first chunk, each chunk, the end), sent in one system
  // call when the body is ready at once (the API's JSON): the socket stays corked until the next read settles or
  // the next tick, whichever comes first, so a body that streams slowly still goes out chunk by chunk. The bytes
  // are Next.js'; written as three calls, they were a third of the fast path's CPU (measured with --cpu-prof).
  let corked = false;
  const uncork = () => {
    if (!corked) return;
    corked = false;
    res.uncork();
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) {
        await reader.cancel().catch(noop);
        return;
      }
      if (!res.headersSent) {
        res.cork();
        corked = true;
        process.nextTick(uncork);
        res.flushHeaders();
      }
      const ok = res.write(value);
      // The compression middleware's flush: a chunk goes out as soon as it is written, as under Next.js.
      (res as ServerResponse & { flush?: () => void }).flush?.();
      if (!ok) {
        uncork();
        await drained(res);
      }
    }
  } catch (err) {
    // The body failed half-way: the client sees a cut answer, as under Next.js.
    uncork();
    console.error("[fast-path] response body failed:", err);
    res.destroy();
    return;
  }
  // end() flushes a corked socket itself.
  corked = false;
  if (!res.destroyed) res.end();
}

// Resolves when the socket takes more (drain) or is gone (close).
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

// After a client went away, the compression middleware's zlib stream is never ended: destroy it (what Next.js'
// releaseCompressionStream does; `res.on` returns that stream while compression is active).
function releaseCompressionStream(res: ServerResponse): void {
  const maybeStream = res.on("drain", noop) as unknown;
  if (maybeStream === res || !(maybeStream instanceof Duplex)) {
    res.off("drain", noop);
    return;
  }
  maybeStream.destroy();
}
