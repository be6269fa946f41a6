// The production HTTP server: Next.js' request handler behind a plain node:http server, so that the client
// address the API sees cannot be forged. Without TRUST_PROXY, X-Forwarded-For is overwritten with the socket's
// address (Next.js alone keeps a client-sent one); with TRUST_PROXY=true the proxy in front sets it.
// Before Next.js, the front door (lib/server/front-door.ts, compiled at build time) settles what Next.js would answer
// outside our routes: request targets that are not a path (absolute-form, `*`), unknown methods, malformed paths,
// dot segments and slash variants, and framework headers under /public/.
// Then the API's own router (lib/public-api/router.ts, hosted by lib/server/api-host.ts) answers everything under
// /public/, without Next.js' per-request routing (about 1 ms of CPU); everything else goes to Next.js.
// PCA_FAST_PATH=off sends the API through Next.js' route files instead (the benchmark's comparison, the parity
// of the two paths).
// Started by scripts/start.ts after the database is ready; PORT, TRUST_PROXY and PCA_FAST_PATH come from the
// environment.
import { fork } from "node:child_process";
import http from "node:http";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import next from "next";

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const port = Number(process.env.PORT || 3000);
const hostname = process.env.HOSTNAME || "0.0.0.0";
const trustProxy = /^(true|1|yes|on)$/i.test(process.env.TRUST_PROXY ?? "");
const fastPathOff = /^(off|false|0|no)$/i.test(process.env.PCA_FAST_PATH ?? "");

const {
  BASELINE_SECURITY_HEADERS,
  connectRefusal,
  dropRouterVary,
  frontDoor,
  parserRefusal,
  publicApiHost,
  webhooksWorkerWanted,
} = await import(pathToFileURL(path.join(dir, ".next", "server-bundle", "server.mjs")).href);

// The webhooks' delivery worker (lib/server/webhooks-worker.ts) in a process of its own when wanted (the `webhooks`
// preview on, Postgres, WEBHOOKS_DELIVERY=worker): this server then only queues. Decided before Next.js starts (its
// start-up hook builds the runtime from the environment). A worker that ends unexpectedly is started again, after 1 s
// doubling up to 30 s while it keeps ending within a minute; it is stopped with the server.
let worker;
let workerFailures = 0;
let stopping = false;
function startWorker() {
  const started = Date.now();
  worker = fork(path.join(dir, ".next", "server-bundle", "webhooks-worker.mjs"), [], {
    env: { ...process.env, WEBHOOKS_DELIVERY: "inline" },
  });
  worker.on("exit", (code, signal) => {
    worker = undefined;
    if (stopping) return;
    workerFailures = Date.now() - started > 60_000 ? 1 : workerFailures + 1;
    const delay = Math.min(30_000, 1000 * 2 ** (workerFailures - 1));
    console.error(
      `webhooks: the worker process ended (${signal ?? `code ${code}`}); again in ${delay / 1000} s`,
    );
    setTimeout(() => stopping || startWorker(), delay).unref();
  });
}
if (webhooksWorkerWanted(process.env)) {
  process.env.WEBHOOKS_DELIVERY = "elsewhere";
  startWorker();
}
const app = next({ dev: false, dir, port, hostname: "localhost" });
await app.prepare();
const handle = app.getRequestHandler();
const api = fastPathOff ? undefined : publicApiHost();
console.log(api ? "/public/ on the API's own router" : "/public/v1 through Next.js (PCA_FAST_PATH=off)");

// Writes a Web Response (a small body: the front door's answers) to a node response.
async function send(res, method, response) {
  // No body, and so no Content-Length, for HEAD and bodiless answers (a 204 must not carry one).
  const body = method === "HEAD" || !response.body ? null : Buffer.from(await response.arrayBuffer());
  const headers = Object.fromEntries(response.headers);
  if (body) headers["content-length"] = String(body.length);
  res.writeHead(response.status, headers);
  res.end(body);
}

// How long a client may hold a socket without sending a request in full (issue 27, item 6). A client that sends
// its headers a byte a second is closed after HEADERS_TIMEOUT_MS (node's default, 60 s, let a few hundred such
// clients hold the server's sockets for a minute each); a request whose body trickles in, after
// REQUEST_TIMEOUT_MS (node's default: 300 s; the largest body the app takes is 64 KB). Node checks both every
// CHECK_INTERVAL_MS (its default, 30 s, would let a slow client hold its socket up to 40 s past the limit). An idle
// kept-alive connection is not a request in progress: keepAliveTimeout (65 s) still governs it. The header block,
// request line included, is node's default of at most 16 KB (maxHeaderSize), a 431.
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
const CHECK_INTERVAL_MS = 1_000;

function onRequest(req, res) {
  if (!trustProxy) {
    req.headers["x-forwarded-for"] = req.socket.remoteAddress ?? "unknown";
    delete req.headers["x-real-ip"];
  }
  const decision = frontDoor(req.method ?? "GET", req.url ?? "/", req.rawHeaders);
  if (decision.kind === "answer") {
    send(res, req.method, decision.response).catch(() => res.destroy());
    return;
  }
  for (const name of Object.keys(req.headers)) if (decision.stripHeaders(name)) delete req.headers[name];
  Object.assign(req.headers, decision.addHeaders);
  if (api && decision.api) {
    api(req, res, decision.url);
    return;
  }
  req.url = decision.url;
  // Next.js lists its router headers in every app route's Vary; the API's own router never does.
  if (decision.routerFree) dropRouterVary(res);
  handle(req, res).catch((err) => {
    console.error("[server] unhandled error:", err);
    if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain", ...BASELINE_SECURITY_HEADERS });
    res.end("Internal Server Error");
  });
}

const server = http.createServer(
  {
    headersTimeout: HEADERS_TIMEOUT_MS,
    requestTimeout: REQUEST_TIMEOUT_MS,
    connectionsCheckingInterval: CHECK_INTERVAL_MS,
  },
  onRequest,
);
server.keepAliveTimeout = 65_000;
// A request node's parser refused (too large, too slow, not HTTP): a clean answer in the shape of its side (the
// API's error body under /public/), then the connection closed; nothing for a client that is gone.
// As node's own handler: no answer once one has begun on this socket (it would corrupt it), written before the
// socket is destroyed (a small write leaves at once).
server.on("clientError", (err, socket) => {
  const answering = socket._httpMessage?.headersSent;
  if (err.code !== "ECONNRESET" && socket.writable && !answering)
    socket.write(parserRefusal(err.code, err.rawPacket));
  socket.destroy();
});
// CONNECT (no method of ours) comes here, not to onRequest: the front door's 405 or 400, then the socket closed.
server.on("connect", (req, socket) => {
  socket.on("error", () => undefined);
  connectRefusal(req.url ?? "", req.rawHeaders)
    .then((bytes) => socket.end(bytes, () => socket.destroy()))
    .catch(() => socket.destroy());
});
server.listen(port, hostname, () => console.log(`▲ Next.js serving on http://${hostname}:${port}`));

// On exit the process's runtime (lib/runtime.ts, on globalThis) is closed, at most 5 s: usage and the request log
// hold up to USAGE_FLUSH_MS of requests in memory, written by its close.
// The worker is asked to stop at the same time (its attempts under way finish) and waited for within the same 5 s.
const stop = () => {
  stopping = true;
  const workerGone = worker ? new Promise((resolve) => worker.once("exit", resolve)) : undefined;
  worker?.kill("SIGTERM");
  server.close(() => {
    const rt = globalThis[Symbol.for("public-catalog-api.runtime")];
    const wait = new Promise((resolve) => setTimeout(resolve, 5000).unref());
    Promise.race([Promise.all([rt?.close(), workerGone]), wait])
      .catch(() => undefined)
      .finally(() => process.exit(0));
  });
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
