// The webhooks' engine (preview feature `webhooks`) of one process: the dispatcher (lib/webhooks/dispatcher.ts) turns
// each organization's change feed into deliveries, the worker (lib/webhooks/worker.ts) claims them from the queue
// kept in webhook_deliveries (lib/webhooks/queue.ts) and POSTs them, signed (lib/webhooks/sender.ts), retrying with
// backoff. The queue is our own rather than a job library's: the deliveries table already holds each one's state,
// attempts and next attempt, so queueing one is the same insert in the same transaction as the endpoint's position,
// and the few rules a queue needs here (claim with SKIP LOCKED, a lease, the head of each object's key, a backoff)
// are three statements that run alike on node-postgres and on PGlite.
import type { LookupFunction } from "node:net";
import type { Database, Executor } from "@/db/client";
import type { CatalogContext } from "@/lib/catalog/context";
import type { Config } from "@/lib/config";
import { Dispatcher } from "@/lib/webhooks/dispatcher";
import { DELIVERIES_CHANNEL, requeueDelivery, type Claim } from "@/lib/webhooks/queue";
import {
  ATTEMPT_EXPIRE_SECONDS,
  RETRY_DELAY_MAX_SECONDS,
  RETRY_DELAY_SECONDS,
  RETRY_LIMIT,
} from "@/lib/webhooks/schedule";
import { Sender, type AttemptOutcome } from "@/lib/webhooks/sender";
import { DeliveryWorker, runAttempts, type AttemptResult } from "@/lib/webhooks/worker";

export { webhookId } from "@/lib/webhooks/endpoints";
export { orderingKey } from "@/lib/webhooks/queue";
export { BODY_START_BYTES, type AttemptOutcome } from "@/lib/webhooks/sender";
export { settleAttempts } from "@/lib/webhooks/settle";
export type { AttemptResult } from "@/lib/webhooks/worker";

// The engine's tunables; tests shorten them (the defaults are the documented schedule, lib/webhooks/schedule.ts).
export interface WebhookEngineOptions {
  retryDelaySeconds?: number;
  retryDelayMaxSeconds?: number;
  retryLimit?: number;
  /** Seconds a worker holds an attempt before another may claim it (a worker killed mid-POST). */
  expireSeconds?: number;
  /** How often an idle worker looks for due deliveries (retries, and those no notification announced). */
  pollIntervalMs?: number;
  /** How often the dispatcher reads the feeds when no notification woke it. */
  dispatchIntervalMs?: number;
  /** Least time between the starts of two dispatch passes: commits that come closer are dispatched together. */
  dispatchGapMs?: number;
  /** Worker loops of this instance, each running a batch of attempts at once. */
  concurrency?: number;
  /** Attempts a worker loop claims and runs at once. */
  batchSize?: number;
  connectTimeoutMs?: number;
  timeoutMs?: number;
  /** The DNS look-up of each connection (tests: a name that resolves to a private address); the system's by default. */
  lookup?: LookupFunction;
  /** Whether this instance runs the worker (POSTs) and the dispatcher; false: it only queues (console actions). */
  work?: boolean;
}

// The engine's database access and configuration.
export interface WebhookEngineDeps {
  config: Pick<Config, "baseUrl" | "WEBHOOKS_ALLOW_PRIVATE_URLS">;
  db(): Promise<Database>;
  catalog(): Promise<CatalogContext>;
}

// Longest stop() waits for the attempts under way.
const STOP_TIMEOUT_MS = 20_000;

// The engine of one process: the dispatcher, the worker and the sender, started and stopped together.
export class WebhookEngine {
  readonly opts: Required<Omit<WebhookEngineOptions, "lookup">> & Pick<WebhookEngineOptions, "lookup">;
  private readonly sender: Sender;
  private readonly dispatcher: Dispatcher;
  private readonly worker: DeliveryWorker;
  private unlisten?: () => Promise<void>;

  constructor(
    private readonly deps: WebhookEngineDeps,
    opts: WebhookEngineOptions = {},
  ) {
    this.opts = {
      retryDelaySeconds: RETRY_DELAY_SECONDS,
      retryDelayMaxSeconds: RETRY_DELAY_MAX_SECONDS,
      retryLimit: RETRY_LIMIT,
      expireSeconds: ATTEMPT_EXPIRE_SECONDS,
      pollIntervalMs: 500,
      dispatchIntervalMs: 1000,
      dispatchGapMs: 500,
      concurrency: 4,
      batchSize: 32,
      connectTimeoutMs: 5_000,
      timeoutMs: 15_000,
      work: true,
      ...opts,
    };
    this.sender = new Sender(deps.db, {
      allowPrivate: deps.config.WEBHOOKS_ALLOW_PRIVATE_URLS,
      connectTimeoutMs: this.opts.connectTimeoutMs,
      timeoutMs: this.opts.timeoutMs,
      ...(this.opts.lookup ? { lookup: this.opts.lookup } : {}),
    });
    this.dispatcher = new Dispatcher(
      { db: deps.db, catalog: deps.catalog, baseUrl: deps.config.baseUrl, queued: () => this.worker.nudge() },
      this.opts,
    );
    // Each loop claims a batch (one delivery per object at most: the head of its key) and runs its attempts side by
    // side, so that a dispatch pass's deliveries go in one batch (bench/README.md#webhooks). At most
    // concurrency × batchSize POSTs at once per instance.
    this.worker = new DeliveryWorker(deps.db, (claims) => this.attempts(claims), {
      concurrency: this.opts.concurrency,
      batchSize: this.opts.batchSize,
      leaseSeconds: this.opts.expireSeconds,
      pollMs: this.opts.pollIntervalMs,
    });
  }

  /** Dispatch passes run (for tests). */
  get passes(): number {
    return this.dispatcher.passes;
  }

  // The queue on this runtime's database, ready to take deliveries (its tables come with the migrations).
  async jobs(): Promise<void> {
    await this.deps.db();
  }

  // Starts the worker (woken by every queueing, of any instance) and the dispatcher; nothing when work is false.
  async start(): Promise<void> {
    const db = await this.deps.db();
    if (!this.opts.work) return;
    this.unlisten ??= await db.listen?.(DELIVERIES_CHANNEL, () => this.worker.nudge());
    this.worker.start();
    await this.dispatcher.start();
  }

  // Stops dispatching and claiming; the attempts under way finish first.
  async stop(): Promise<void> {
    await this.dispatcher.stop();
    await this.unlisten?.().catch(() => undefined);
    this.unlisten = undefined;
    await this.worker.stop(STOP_TIMEOUT_MS);
    this.sender.close();
  }

  // Runs a dispatch pass now or soon (an instance that only queues leaves it to the one that delivers, whose timer
  // reads the endpoints every dispatchIntervalMs: a replay is dispatched within that).
  wake(): void {
    this.dispatcher.wake();
  }

  // Dispatches until every enabled endpoint has caught up with its feed; returns the deliveries queued.
  dispatchAll(): Promise<number> {
    return this.dispatcher.dispatchAll();
  }

  // One dispatch pass (Dispatcher.dispatchOnce).
  dispatchOnce(): Promise<{ queued: number; more: boolean }> {
    return this.dispatcher.dispatchOnce();
  }

  // Queues a delivery again (Redeliver), in the caller's transaction: its own ordering key, attempts start afresh.
  async redeliver(tx: Executor, deliveryId: string): Promise<void> {
    await requeueDelivery(tx, deliveryId);
  }

  // A batch of claimed deliveries, attempted and settled (runAttempts).
  attempts(claims: readonly Claim[]): Promise<AttemptResult[]> {
    return runAttempts(
      {
        db: this.deps.db,
        send: (...args) => this.sender.send(...args),
        retryLimit: this.opts.retryLimit,
        retryDelaySeconds: this.opts.retryDelaySeconds,
        retryDelayMaxSeconds: this.opts.retryDelayMaxSeconds,
      },
      claims,
    );
  }

  // POSTs a body to an endpoint now, signed with its current secrets (read here unless given).
  send(
    endpointId: string,
    url: string,
    eventId: string,
    body: string,
    current?: readonly string[],
  ): Promise<AttemptOutcome> {
    return this.sender.send(endpointId, url, eventId, body, current);
  }
}
