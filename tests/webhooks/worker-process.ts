// A webhooks worker in a process of its own (the durability test kills it with SIGKILL mid-delivery): the engine on
// the database at DATABASE_URL with the tests' fast schedule; prints "ready" once it takes jobs.
import { openPg } from "@/db/client";
import { loadConfig } from "@/lib/config";
import { catalogOf } from "./support";
import { WebhookEngine } from "@/lib/webhooks/engine";

const url = process.env.DATABASE_URL!;
const db = await openPg(url, 2);
const config = loadConfig({
  PUBLIC_BASE_URL: "http://api.test",
  PUBLIC_API_PREVIEW: "webhooks",
  WEBHOOKS_ALLOW_PRIVATE_URLS: "true",
  DATABASE_URL: url,
});
const ctx = catalogOf(db);
const engine = new WebhookEngine(
  { config, db: async () => db, catalog: async () => ctx },
  {
    retryDelaySeconds: 1,
    retryDelayMaxSeconds: 2,
    retryLimit: 5,
    expireSeconds: 2,
    dispatchIntervalMs: 200,
    timeoutMs: 30_000,
  },
);
await engine.start();
process.stdout.write("ready\n");
