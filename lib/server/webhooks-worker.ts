// The webhooks' delivery worker, a process of its own: the engine (lib/webhooks/engine.ts) dispatching the feed's
// events and POSTing them, on the database of the environment's configuration, and nothing else (no HTTP server, no
// retention). npm start forks it beside the server when the API runs on Postgres with the `webhooks` preview on
// (WEBHOOKS_DELIVERY=worker, the default; scripts/serve.mjs), so that dispatch passes, the queue's claims and the
// POSTs never take the API's event loop (bench/README.md#webhooks). `npm run webhooks:worker` runs one on its own
// (another host, or a server started with WEBHOOKS_DELIVERY=elsewhere). Several workers and servers may share a
// database: a delivery's attempt is claimed by one of them at a time, and an endpoint's row is held while it is
// dispatched.
//
// Built into .next/server-bundle/webhooks-worker.mjs (scripts/lib/build.ts). It stops on SIGTERM or SIGINT, and when
// the process that forked it goes away (its IPC channel closes): the attempts under way finish first.
import os from "node:os";
import { getConfig } from "@/lib/config";
import { previewOn } from "@/lib/preview";
import { createRuntime } from "@/lib/runtime";

const config = getConfig();
if (!previewOn("webhooks", config)) {
  console.error(
    "webhooks worker: the `webhooks` preview feature is off (PUBLIC_API_PREVIEW): nothing to deliver",
  );
  process.exit(1);
}
// Deliveries yield to the API: this process runs at the lowest CPU priority (nice 19, set before it starts threads
// of its own, which inherit it), so that on a machine it shares with the server its work fills the CPU the server
// leaves (bench/README.md#webhooks). Alone on its host it changes nothing.
const WORKER_NICE = 19;
try {
  os.setPriority(WORKER_NICE);
} catch (err) {
  console.error("webhooks worker: could not lower its priority:", (err as Error).message);
}
// This process delivers, whatever the configuration says of the server's.
const rt = createRuntime({ ...config, WEBHOOKS_DELIVERY: "inline" });
let stopping: Promise<void> | undefined;
const stop = () =>
  (stopping ??= rt
    .close()
    .catch((err: unknown) => console.error("webhooks worker: stopping:", err))
    .finally(() => process.exit(0)));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
process.once("disconnect", stop);
let driver: string;
try {
  const db = await rt.db();
  // The embedded PGlite belongs to the one process that opened its folder: the server delivers itself there.
  if (db.driver === "pglite")
    throw new Error("a worker process needs Postgres (DATABASE_URL): PGlite is the server's own");
  driver = db.driver;
  await rt.background.webhooks.start();
} catch (err) {
  console.error("webhooks worker: the engine did not start:", err);
  await rt.close().catch(() => undefined);
  process.exit(1);
}
console.log(
  `webhooks: delivering in a worker process (pid ${process.pid}, nice ${os.getPriority()}, queue on ${driver}, ` +
    `${rt.background.webhooks.opts.concurrency} workers × ${rt.background.webhooks.opts.batchSize} attempts)`,
);
