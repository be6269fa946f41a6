// One instance of the API in a process of its own, for tests/instances/two-instances.test.ts: the runtime is a
// process singleton (lib/runtime.ts keeps it on globalThis and the pipeline reads it there), so two instances in one
// process would share it. This process builds its runtime as the production server's (createRuntime from the
// environment's configuration, background work on: key broadcast, change retention, documents' refresher and, with the
// preview on, the webhooks' engine all start when the database opens), and serves /public/ as scripts/serve.mjs
// does: the client's address from the socket, the front door, then the API's router on node:http with gzip
// (lib/server/bundle-entry.ts' publicApiHost). Next.js and its pages are left out: nothing under /public/ reaches
// them; the few console routes the console sessions' test calls are hosted from their route handlers
// (console-routes.ts), the rest is a 404.
//
// Environment: the API's configuration (DATABASE_URL, REDIS_URL, PUBLIC_API_PREVIEW, …), and INSTANCE_HOOK_ADDRESS:
// the loopback address every webhook endpoint's name resolves to from this instance (its DNS look-up, the engine's
// `lookup` option), so that a receiver listening on several addresses tells which instance sent each attempt.
// Prints "listening <port>" once it serves and its webhooks' engine takes jobs.
import http from "node:http";
import type { AddressInfo, LookupFunction } from "node:net";
import { loadConfig } from "@/lib/config";
import { previewOn } from "@/lib/preview";
import { createRuntime, setRuntime } from "@/lib/runtime";
import { frontDoorListener, publicApiHost } from "@/lib/server/bundle-entry";
import { consoleRoutes } from "./console-routes";

const hookAddress = process.env.INSTANCE_HOOK_ADDRESS ?? "127.0.0.1";
const lookup: LookupFunction = (_host, options, callback) => {
  if (options.all) callback(null, [{ address: hookAddress, family: 4 }]);
  else callback(null, hookAddress, 4);
};

const rt = createRuntime(loadConfig(process.env), undefined, { background: true, webhooks: { lookup } });
setRuntime(rt);
const api = publicApiHost();

// npm start's listener (the socket's address, the front door, the API's router), with the console's routes (or a
// 404) for what Next.js would answer.
const server = http.createServer(
  frontDoorListener({
    trustProxy: false,
    api,
    next: (req, res) => {
      consoleRoutes(req, res).catch(() => res.destroy());
    },
  }),
);

// The database opened starts the background work; the webhooks' engine has started once it ran a dispatch pass
// (its worker is registered before the first one).
await rt.db();
const started = Date.now();
while (previewOn("webhooks", rt.config) && rt.background.webhooks.passes === 0) {
  if (Date.now() - started > 60_000) throw new Error("the webhooks' engine did not start within 60 s");
  await new Promise((r) => setTimeout(r, 20));
}
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});

const stop = () => {
  server.closeIdleConnections();
  server.close(() => {
    const wait = new Promise((resolve) => setTimeout(resolve, 10_000).unref());
    Promise.race([rt.close(), wait])
      .catch(() => undefined)
      .finally(() => process.exit(0));
  });
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
