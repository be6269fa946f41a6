// The process's background work: the change log's retention, the products' documents refresher, the webhooks' engine
// and the retention of usage and of the request log. Built with the runtime and stopped with it; started together
// once the process's runtime has opened its database (start), or run when asked by a test or a tool (runOnce,
// the engine's start).
import { BACKGROUND_STATEMENT_TIMEOUT_MS, type Database } from "@/db/client";
import { ChangeRetention, pruneChanges } from "@/lib/catalog/feed/change-retention";
import type { CatalogContext } from "@/lib/catalog/context";
import { DocumentRefresher } from "@/lib/catalog/feed/product-documents";
import type { Config } from "@/lib/config";
import { previewOn } from "@/lib/preview";
import { UsageRetention, pruneUsageAndLog } from "@/lib/usage/retention";
import { WebhookEngine, type WebhookEngineOptions } from "@/lib/webhooks/engine";

// The background work of one runtime.
export interface Background {
  /** The change log's retention (CHANGES_RETENTION_DAYS): prunes every 10 minutes once started. */
  readonly retention: ChangeRetention;
  /**
   * Products' documents kept current after each change (lib/catalog/feed/product-documents.ts), for the exports and the
   * feed: started only while the preview feature `export` or `changes` is on (nothing else reads them).
   */
  readonly documents: DocumentRefresher;
  /**
   * The webhooks' engine (preview `webhooks`): its queue on this database, the dispatcher and the worker. Started
   * with the rest when the preview is on and this process delivers; otherwise it only queues (console actions).
   */
  readonly webhooks: WebhookEngine;
  /** The retention of usage and of the request log (hourly), started when either is on. */
  readonly usageRetention: UsageRetention;
  /** Starts what the configuration turns on, on the database just opened. */
  start(db: Database): void;
  /** Stops every part (the attempts and passes under way finish first). */
  stop(): Promise<void>;
}

// What the background work reads: the configuration, the database and the catalog's context, and whether usage or
// the request log is counted (their retention runs only then).
export interface BackgroundDeps {
  config: Config;
  db(): Promise<Database>;
  catalog(): Promise<CatalogContext>;
  counting: boolean;
}

// Builds the background work of a runtime; `webhooks`: the engine's tunables (the documented schedule otherwise).
export function createBackground(deps: BackgroundDeps, webhookOpts: WebhookEngineOptions = {}): Background {
  const { config, db, catalog } = deps;
  // Background writes get the background bound, not a request's; pruning a batch takes a few milliseconds, the
  // bound is for a database that does not answer.
  const bounded = async () => (await db()).withStatementTimeout(BACKGROUND_STATEMENT_TIMEOUT_MS);
  const retention = new ChangeRetention(async () =>
    pruneChanges(await bounded(), config.CHANGES_RETENTION_DAYS),
  );
  const documents = new DocumentRefresher(db, catalog, config.baseUrl);
  // Delivering here unless another process does (WEBHOOKS_DELIVERY=elsewhere: npm start's worker process).
  const webhooks = new WebhookEngine(
    { config, db, catalog },
    { work: config.WEBHOOKS_DELIVERY !== "elsewhere", ...webhookOpts },
  );
  const usageRetention = new UsageRetention(async () =>
    pruneUsageAndLog(await bounded(), Date.now(), {
      usage: config.USAGE_RETENTION_DAYS,
      log: config.REQUEST_LOG_MAX_AGE_DAYS,
    }),
  );
  return {
    retention,
    documents,
    webhooks,
    usageRetention,
    start(opened) {
      retention.start();
      if (deps.counting) usageRetention.start();
      if (previewOn("export", config) || previewOn("changes", config)) documents.start();
      if (previewOn("webhooks", config) && webhooks.opts.work)
        webhooks.start().then(
          () =>
            console.log(
              `webhooks: delivering (queue on ${opened.driver}, ${webhooks.opts.concurrency} workers × ${webhooks.opts.batchSize} attempts)`,
            ),
          (err: unknown) => console.error("webhooks: the engine did not start:", err),
        );
    },
    async stop() {
      await retention.stop();
      await usageRetention.stop();
      await documents.stop();
      await webhooks.stop();
    },
  };
}
