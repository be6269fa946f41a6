// The production HTTP server: Next.js' request handler behind a plain node:http server, so that the client
// address the API sees cannot be forged. Without TRUST_PROXY, X-Forwarded-For is overwritten with the socket's
// address (Next.js alone keeps a client-sent one); with TRUST_PROXY=true the proxy in front sets it.
// Before Next.js, the front door (lib/server/front-door.ts on the server by lib/server/front-server.ts, compiled at
// build time) settles what Next.js would answer outside our routes: request targets that are not a path
// (absolute-form, `*`), unknown methods, malformed paths, dot segments and slash variants, and framework headers
// under /public/; and bounds slow clients. (A bare `next start` gets the same front door from instrumentation.ts.)
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
  SERVER_TIMEOUTS,
  closeRuntime,
  frontDoorListener,
  guardServer,
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

const server = http.createServer(
  SERVER_TIMEOUTS,
  frontDoorListener({
    trustProxy,
    api,
    next: (req, res) =>
      handle(req, res).catch((err) => {
        console.error("[server] unhandled error:", err);
        if (!res.headersSent)
          res.writeHead(500, { "content-type": "text/plain", ...BASELINE_SECURITY_HEADERS });
        res.end("Internal Server Error");
      }),
  }),
);
// Its bounds and its answers to what never reaches the listener: what node's parser refuses, CONNECT.
guardServer(server);
server.listen(port, hostname, () => console.log(`▲ Next.js serving on http://${hostname}:${port}`));

// On exit the process's runtime (lib/runtime.ts) is closed, at most 5 s: usage and the request log
// hold up to USAGE_FLUSH_MS of requests in memory, written by its close.
// The worker is asked to stop at the same time (its attempts under way finish) and waited for within the same 5 s.
const stop = () => {
  stopping = true;
  const workerGone = worker ? new Promise((resolve) => worker.once("exit", resolve)) : undefined;
  worker?.kill("SIGTERM");
  server.close(() => {
    const wait = new Promise((resolve) => setTimeout(resolve, 5000).unref());
    Promise.race([Promise.all([closeRuntime(), workerGone]), wait])
      .catch(() => undefined)
      .finally(() => process.exit(0));
  });
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
