// The webhooks' delivery worker, a process of its own: the engine (lib/webhooks/engine.ts) dispatching the feed's
// events and POSTing them, on the database of the environment's configuration, and nothing else (no HTTP server, no
// retention). npm start forks it beside the server when the API runs on Postgres with the `webhooks` preview on
// (WEBHOOKS_DELIVERY=worker, the default; scripts/serve.mjs), so that dispatch passes, pg-boss's fetches and the
// POSTs never take the API's event loop: delivering 50 changes a second took 5 to 7 % of page 1's throughput when the
// server did it itself (bench:webhooks (c), runs 25 and 26). `npm run webhooks:worker` runs one on its own (another
// host, or a server started with WEBHOOKS_DELIVERY=elsewhere). Several workers and servers may share a database:
// pg-boss never hands one attempt to two of them at once, and an endpoint's row is held while it is dispatched.
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
// leaves. Bench (2 cores the server's page 1 saturates, 50 deliveries/s): at nice 0 page 1 −6.9 points against
// control rounds (run 30, 95 % interval −10.6 to −3.1); at nice 19 within noise (runs 33–35, pooled −3.7, −8.2 to
// 0.9), the server's process getting ~2 % less CPU; delivery p50 ~270 → ~280 ms, none late. Alone on its host it
// changes nothing.
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
  await rt.webhooks.start();
} catch (err) {
  console.error("webhooks worker: the engine did not start:", err);
  await rt.close().catch(() => undefined);
  process.exit(1);
}
console.log(
  `webhooks: delivering in a worker process (pid ${process.pid}, nice ${os.getPriority()}, pg-boss on ${driver}, ` +
    `${rt.webhooks.opts.concurrency} workers × ${rt.webhooks.opts.batchSize} attempts)`,
);
