// npm start's host of the public API: a request under /public/ is answered by the API's router (lib/public-api/
// router.ts, `(ApiRequest) => Promise<Reply>`) on node:http, with nothing of Next.js around it (nothing reads Next.js'
// build internals). Everything else goes to Next.js.
//
//   request:  URL `http://localhost` + the path (dot segments resolved by the front door) + the query as sent; the
//             node headers; the node request as the body (not for GET/HEAD); a signal aborted when the client goes
//             away, made only when read.
//   response: gzip/deflate by the public `compression` middleware (what `next start` uses too, with its defaults:
//             Vary: Accept-Encoding, bodies of 1 KB and more; and an export's NDJSON, which its filter leaves out),
//             the reply's headers in their order, its body written at once, or a stream's chunk by chunk with
//             backpressure (headers flushed with the first chunk), none for HEAD.
// The parity test (tests/e2e/parity.spec.ts) checks status, headers (names, order, values) and body against
// `next start` of the same build. A failure here (a router that throws, which the API's pipeline never lets happen)
// is a 500 in the API's error shape, never a crash.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { Duplex } from "node:stream";
import compression from "compression";
import { overloadedAnswer } from "@/lib/public-api/admission";
import { errorReply } from "@/lib/public-api/error-response";
import { NDJSON, baseHeaders } from "@/lib/public-api/headers";
import type { ApiRequest } from "@/lib/public-api/api-request";
import type { Reply } from "@/lib/public-api/reply";

// The API (publicApi.answer).
export type ReplyHandler = (request: ApiRequest) => Promise<Reply>;

// Answers a node request with the API (its URL as the front door passed it: a path and query).
export type ApiHost = (req: IncomingMessage, res: ServerResponse, url: string) => void;

// The origin of the URL the router sees: the API builds no link from it (links come from PUBLIC_BASE_URL), and a
// client's Host header is never trusted.
const ORIGIN = "http://localhost";
// Headers never copied from a reply: the body may be re-encoded, and node frames it itself.
const FRAMING = new Set(["content-length", "content-encoding", "transfer-encoding"]);
const noop = () => {};

// What the compression middleware encodes: what its default filter takes (a type that mime-db marks compressible,
// as `next start`'s), and an export's NDJSON, which mime-db does not list (one JSON object per line: it shrinks as
// JSON does, 6.9 to 1 for the demo's products read whole). Each chunk is flushed as it is written (writeReply),
// so a batch of an export reaches the client compressed as soon as it is read.
const compressible: compression.CompressionFilter = (req, res) =>
  compression.filter(req, res) || String(res.getHeader("Content-Type") ?? "").startsWith(NDJSON);

// An export's compression level: zlib's fastest. An export of the million-product organization is 815 MB of
// NDJSON: at the default level (6) gzip alone took 12.5 s of a core here (68 MB/s, 6.8 to 1), at level 1 6.6 s
// (130 MB/s, 5.4 to 1): the export's rate was bound by its compression, on a machine whose other core runs Postgres.
const EXPORT_GZIP_LEVEL = 1;
const EXPORT_PREFIX = "/public/v1/export/";

// Hosts `api` on node:http; `compress` gzips and deflates bodies as `next start` does (next.config's compress), an
// export's at EXPORT_GZIP_LEVEL. `refusesNow` (the router's publicApi.refusesNow): a request it refuses for overload
// is answered overloadedAnswer's 503 at once, before a Web Request is built: a refusal through the router costs
// several times more of the event loop, and under twice the saturation such refusals took the time of the answers
// while requests piled up in the sockets, unread.
// Measured: bench/README.md#the-api-host
export function createApiHost(
  api: ReplyHandler,
  opts: { compress: boolean; refusesNow?: (method: string, pathname: string) => boolean },
): ApiHost {
  const refusesNow = opts.refusesNow;
  const compressAny = opts.compress ? compression({ filter: compressible }) : undefined;
  const compressExport = opts.compress
    ? compression({ filter: compressible, level: EXPORT_GZIP_LEVEL })
    : undefined;
  return (req, res, url) => {
    if (refusesNow) {
      const method = req.method ?? "GET";
      const query = url.indexOf("?");
      if (refusesNow(method, query < 0 ? url : url.slice(0, query))) {
        refuse(req, res, method, opts.compress);
        return;
      }
    }
    req.on("error", noop);
    res.on("error", noop);
    const compress = url.startsWith(EXPORT_PREFIX) ? compressExport : compressAny;
    if (compress) {
      compress(req as never, res as never, noop);
      res.once("close", () => {
        if (!res.writableFinished) releaseCompressionStream(res);
      });
    }
    answer(req, res, () => api(toRequest(req, res, ORIGIN + url))).catch((err: unknown) => {
      console.error("[api-host] could not write an answer:", err);
      res.destroy();
    });
  };
}

// The 503 of a request refused for overload, written at once; its body is not read (the connection stays usable: node
// discards what is left of a request's body once its answer ended). `Vary: Accept-Encoding` as the compression
// middleware adds to any JSON answer, so that a refusal carries the headers an admitted request's 503 does.
function refuse(req: IncomingMessage, res: ServerResponse, method: string, compress: boolean): void {
  req.on("error", noop);
  res.on("error", noop);
  const { status, headers, body } = overloadedAnswer(method);
  if (compress) headers.push("Vary", "Accept-Encoding");
  res.writeHead(status, headers);
  res.end(body);
}

// The request the API reads (ApiRequest) of a node request: a read's made of the node request itself
// (NodeReadRequest), a write's a Web Request streaming the node request's body.
export function toRequest(req: IncomingMessage, res: ServerResponse, url: string): ApiRequest {
  const method = req.method ?? "GET";
  if (method === "GET" || method === "HEAD") return new NodeReadRequest(method, url, req.headers, res);
  const headers = new Headers();
  for (const name in req.headers) {
    const value = req.headers[name];
    if (value === undefined) continue;
    if (typeof value === "string") headers.append(name, value);
    else for (const v of value) headers.append(name, v);
  }
  // A body: the node request, streamed; its signal is needed at once (undici ties the body's stream to it).
  const signal = closedSignal(res);
  const init: RequestInit & { duplex?: "half" } = { method, headers, signal };
  if (!signal.aborted) {
    init.body = webStream(req);
    init.duplex = "half";
  }
  return new Request(url, init);
}

// A node request's body as a Web stream, read chunk by chunk as the handler pulls (a chunk is a Buffer); a failed
// read errors the stream, and a cancelled stream stops reading.
function webStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  const chunks: AsyncIterator<Buffer> = req[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await chunks.next();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel() {
      await chunks.return?.();
    },
  });
}

// A read (GET, HEAD) as the API reads it: no body; a header by name as a Web Request's Headers give it (a repeated
// one joined by ", "); a `signal` (aborted when the client goes away, as Next.js' is) made when a handler first reads
// it. Handing undici a signal cost an AbortController, a WeakRef and a FinalizationRegistry entry per request, which
// survive young-generation collections: under load they were promoted by the megabyte and set off the old-space
// collections behind the tail latency. Measured: bench/README.md#the-api-host
// The API's handlers never read it; a handler that does gets the same signal as before.
class NodeReadRequest implements ApiRequest {
  readonly body = null;
  readonly headers: ApiRequest["headers"];
  #res: ServerResponse;
  #signal: AbortSignal | undefined;
  constructor(
    readonly method: string,
    readonly url: string,
    headers: IncomingHttpHeaders,
    res: ServerResponse,
  ) {
    this.headers = {
      get(name) {
        const value = headers[name.toLowerCase()];
        return value === undefined ? null : typeof value === "string" ? value : value.join(", ");
      },
    };
    this.#res = res;
  }
  get signal(): AbortSignal {
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

// Calls the API and writes its reply; a throw is answered with a 500 in the API's shape.
async function answer(req: IncomingMessage, res: ServerResponse, call: () => Promise<Reply>) {
  let reply: Reply;
  try {
    reply = await call();
    if (typeof reply?.status !== "number") throw new TypeError("the API did not return a reply");
  } catch (err) {
    const requestId = crypto.randomUUID();
    reply = errorReply(err, requestId, baseHeaders(requestId), req.method === "HEAD");
  }
  await writeReply(req, res, reply);
}

// Writes a reply to a node response: its status, its headers in order (framing aside), its body.
export async function writeReply(req: IncomingMessage, res: ServerResponse, reply: Reply): Promise<void> {
  const body = reply.body;
  const stream = body instanceof ReadableStream ? body : undefined;
  if (res.destroyed) {
    await stream?.cancel().catch(noop);
    return;
  }
  res.statusCode = reply.status;
  reply.headers.forEach((value, name) => {
    if (!FRAMING.has(name)) res.appendHeader(name, value);
  });
  if (body === null || req.method === "HEAD") {
    await stream?.cancel().catch(noop);
    res.end();
    return;
  }
  // Headers, body and end in one system call (writev), as a stream's first chunk goes below; the compression
  // middleware's flush sends a compressed body whole.
  if (!stream) {
    res.cork();
    res.flushHeaders();
    res.write(body);
    (res as ServerResponse & { flush?: () => void }).flush?.();
    res.end();
    // Compressed, the body reaches the socket after this tick, as zlib gives it, and node's own end comes last: the
    // socket is not left corked until then (a write past its buffer would wait for a drain that never comes).
    if (res.socket?.writableCorked) res.socket.uncork();
    return;
  }
  const reader = stream.getReader();
  // Headers flushed with the first chunk, each chunk, the end, sent in one system call when the body is ready at
  // once (the API's JSON): the socket stays corked until the next read settles or the next tick, whichever comes
  // first, so a body that streams slowly still goes out chunk by chunk. Three calls instead cost much of the fast
  // path's CPU. Measured: bench/README.md#the-api-host
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
      // The compression middleware's flush: a chunk goes out as soon as it is written, as under `next start`.
      (res as ServerResponse & { flush?: () => void }).flush?.();
      if (!ok) {
        uncork();
        await drained(res);
      }
    }
  } catch (err) {
    // The body failed half-way: the client sees a cut answer, as under `next start`.
    uncork();
    console.error("[api-host] response body failed:", err);
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

// After a client went away, the compression middleware's zlib stream is never ended: destroy it. The middleware's
// `res.on("drain")` returns that stream while compression is active (compression 1.x; tests/server/api-host.test.ts
// checks that no stream is left).
function releaseCompressionStream(res: ServerResponse): void {
  const maybeStream = res.on("drain", noop) as unknown;
  if (maybeStream === res || !(maybeStream instanceof Duplex)) {
    res.off("drain", noop);
    return;
  }
  maybeStream.destroy();
}
