// The webhooks' engine (issue 25, preview feature `webhooks`): the dispatcher turns each organization's change feed
// into deliveries, one job per (endpoint, event), and the worker POSTs them, signed, retrying with backoff.
//
// The jobs run on pg-boss (12.x), not on a queue of our own: it is maintained, it keeps its jobs in the same Postgres
// as the catalog (a delivery is queued in the transaction that moves the endpoint's feed position, so none is lost
// nor queued twice), it fetches with SKIP LOCKED (two instances never hold the same attempt), gives an attempt that
// outlived its expiry (a worker killed mid-POST) to another, computes exponential backoff with jitter, and its
// `key_strict_fifo` policy holds an object's later events behind an earlier one that is still being retried (cursor
// order per object). And it runs on both our drivers: node-postgres (its own pool from the same URL) and PGlite (its
// `fromPglite` adapter on the embedded instance, backend `pglite`), which graphile-worker (a pg.Pool and a LISTEN
// connection of its own) does not. It installs and migrates its own schema, `pgboss`, at start.
import { randomBytes } from "node:crypto";
import { PgBoss, fromPglite, type Job } from "pg-boss";
import type { Database, Executor, Queryable } from "@/db/client";
import { base62 } from "@/db/schema";
import { CursorError } from "@/lib/catalog/catalog-errors";
import { CHANGES_CHANNEL } from "@/lib/catalog/change-signals";
import { readChanges } from "@/lib/catalog/changes";
import type { CatalogContext } from "@/lib/catalog/context";
import { MIRRORED } from "@/lib/catalog/items";
import type { Config } from "@/lib/config";
import { recordAudit } from "@/lib/console/audit";
import type { LookupFunction } from "node:net";
import { deliveryAgents, postWebhook, type DeliveryAgents } from "@/lib/webhooks/outbound";
import { signWebhook } from "@/lib/webhooks/signing";
import {
  ATTEMPT_EXPIRE_SECONDS,
  RETRY_DELAY_MAX_SECONDS,
  RETRY_DELAY_SECONDS,
  RETRY_LIMIT,
} from "@/lib/webhooks/schedule";

// The pg-boss queue of the deliveries' attempts.
export const DELIVERY_QUEUE = "webhook-deliveries";

// The schema pg-boss installs itself in.
export const JOB_SCHEMA = "pgboss";

// What a delivery job carries: the delivery's id (its body, endpoint and state are in webhook_deliveries).
export interface DeliveryJob {
  deliveryId: string;
}

// The engine's tunables; tests shorten them (the defaults are the documented schedule, lib/webhooks/schedule.ts).
export interface WebhookEngineOptions {
  retryDelaySeconds?: number;
  retryDelayMaxSeconds?: number;
  retryLimit?: number;
  /** Seconds an attempt may hold its job before pg-boss hands it to another (a worker killed mid-POST). */
  expireSeconds?: number;
  /** How often pg-boss's supervisor looks for expired attempts. */
  superviseIntervalSeconds?: number;
  /** How often the dispatcher reads the feeds when no notification woke it. */
  dispatchIntervalMs?: number;
  /** Least time between the starts of two dispatch passes: commits that come closer are dispatched together. */
  dispatchGapMs?: number;
  /** Workers of this instance, each running a batch of attempts at once. */
  concurrency?: number;
  /** Attempts a worker fetches and runs at once. */
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
  config: Pick<Config, "baseUrl" | "WEBHOOKS_ALLOW_PRIVATE_URLS" | "DATABASE_URL" | "POSTGRES_URL">;
  db(): Promise<Database>;
  catalog(): Promise<CatalogContext>;
}

// First bytes of an answer kept in the attempts' log.
export const BODY_START_BYTES = 512;

// Events read from a feed per endpoint per pass.
const DISPATCH_PAGE = 200;

// A new opaque id with a prefix (whe_ endpoint, whs_ secret, whd_ delivery).
export function webhookId(prefix: "whe" | "whs" | "whd"): string {
  return `${prefix}_${base62(randomBytes(12), 16)}`;
}

let lastMs = 0;
let seq = 0;
// A job id that sorts after every one this process made before (a UUIDv7: milliseconds, then a counter): pg-boss
// orders a key's jobs by (created_on, id), and the jobs of one dispatch share their created_on.
function orderedJobId(): string {
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    seq = 0;
  } else seq++;
  if (seq > 0xfff) {
    lastMs++;
    seq = 0;
  }
  const hex = lastMs.toString(16).padStart(12, "0");
  const rand = randomBytes(8).toString("hex");
  const variant = ((parseInt(rand[0]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8)}-7${seq.toString(16).padStart(3, "0")}-${variant}${rand.slice(1, 4)}-${rand.slice(4, 16)}`;
}

// pg-boss's database interface over one of our transactions: what it queues there commits or rolls back with it.
function jobDb(tx: Queryable) {
  return { executeSql: async (text: string, values?: unknown[]) => ({ rows: await tx.query(text, values) }) };
}

// A job for a delivery, keyed so that an object's events of one endpoint go in order.
export function deliveryJobInsert(
  deliveryId: string,
  key: string,
): { id: string; data: DeliveryJob; singletonKey: string } {
  return { id: orderedJobId(), data: { deliveryId }, singletonKey: key };
}

// The per-object ordering key of an endpoint's deliveries (a replay or switching it on again starts a generation).
export function orderingKey(endpointId: string, generation: number, type: string, objectId: string): string {
  return `${endpointId}:${generation}:${type}:${objectId}`;
}

// What a worker's batch returns to pg-boss for each job: completed, or failed (pg-boss schedules its retry).
type JobResult = { id: string; status: "completed" | "failed"; output?: { message: string } };

// What one attempt found, as logged.
export interface AttemptOutcome {
  ok: boolean;
  status?: number;
  error?: string;
  latencyMs: number;
  bodyStart: string;
}

// The engine of one process: pg-boss started on the runtime's database, the dispatcher's loop and the worker.
export class WebhookEngine {
  private boss?: PgBoss;
  private starting?: Promise<PgBoss>;
  private timer?: NodeJS.Timeout;
  private unlisten?: () => Promise<void>;
  private dispatching?: Promise<number>;
  private again = false;
  /** When the last dispatch pass started (ms since the epoch), and the timer of a wake held back by dispatchGapMs. */
  private lastPass = 0;
  private held?: NodeJS.Timeout;
  private workerId?: string;
  /**
   * The organizations with an enabled endpoint, as read at the last tick (undefined: not known, every commit wakes
   * the dispatcher). A commit of another organization wakes nothing: its writer's notification costs no dispatch pass
   * (bench run 22: a POST paid 15 % for the capture, the pass each commit woke on an organization without webhooks
   * among it). An endpoint enabled since the tick is dispatched at the next one (dispatchIntervalMs).
   */
  private hooked?: ReadonlySet<string>;
  /** The connections kept open to receivers between attempts (made at the first send, closed by stop). */
  private agents?: DeliveryAgents;
  /** Dispatch passes run (for tests). */
  passes = 0;
  private stopped = false;
  readonly opts: Required<Omit<WebhookEngineOptions, "lookup">> & Pick<WebhookEngineOptions, "lookup">;

  constructor(
    private readonly deps: WebhookEngineDeps,
    opts: WebhookEngineOptions = {},
  ) {
    this.opts = {
      retryDelaySeconds: RETRY_DELAY_SECONDS,
      retryDelayMaxSeconds: RETRY_DELAY_MAX_SECONDS,
      retryLimit: RETRY_LIMIT,
      expireSeconds: ATTEMPT_EXPIRE_SECONDS,
      superviseIntervalSeconds: 60,
      dispatchIntervalMs: 1000,
      dispatchGapMs: 500,
      concurrency: 4,
      batchSize: 32,
      connectTimeoutMs: 5_000,
      timeoutMs: 15_000,
      work: true,
      ...opts,
    };
  }

  // pg-boss on this runtime's database, started (schema installed or migrated) and the queue created, once.
  jobs(): Promise<PgBoss> {
    this.starting ??= (async () => {
      const db = await this.deps.db();
      const common = {
        schema: JOB_SCHEMA,
        superviseIntervalSeconds: this.opts.superviseIntervalSeconds,
        // The expiry of attempts runs in the monitor's pass (pg-boss 12): as often as the supervisor.
        monitorIntervalSeconds: this.opts.superviseIntervalSeconds,
        // Cron schedules are not used; their timers would only poll.
        schedule: false,
      };
      const url = this.deps.config.DATABASE_URL ?? this.deps.config.POSTGRES_URL;
      const boss =
        db.driver === "pglite"
          ? new PgBoss({ ...common, db: fromPglite(db.embedded as never), backend: "pglite" })
          : new PgBoss({ ...common, connectionString: url, max: 4, application_name: "webhooks" });
      boss.on("error", (err: unknown) => console.error("webhooks: job queue:", err));
      await boss.start();
      await boss.createQueue(DELIVERY_QUEUE, {
        policy: "key_strict_fifo",
        retryLimit: this.opts.retryLimit,
        retryDelay: this.opts.retryDelaySeconds,
        retryBackoff: true,
        retryDelayMax: this.opts.retryDelayMaxSeconds,
        expireInSeconds: this.opts.expireSeconds,
      });
      this.boss = boss;
      return boss;
    })().catch((err: unknown) => {
      this.starting = undefined;
      throw err;
    });
    return this.starting;
  }

  // Starts the worker and the dispatcher (woken by each commit of the feed, and every dispatchIntervalMs).
  async start(): Promise<void> {
    this.stopped = false;
    const boss = await this.jobs();
    if (!this.opts.work) return;
    // Each worker fetches a batch (one job per object at most: the head of its key) and runs its attempts side by
    // side, each settled on its own; while batches come back full it fetches again at once (a backlog), else it
    // waits for the dispatcher's nudge (notifyWorker) or the next poll. Measured on the test server: one job per
    // fetch waited the 0.5 s poll between jobs (16 deliveries/s with 8 workers). A batch of 32: the nudge wakes one
    // worker (pg-boss's first of localConcurrency), which took a dispatch pass's ~25 deliveries at 50 changes/s in
    // 3 batches of 8 one after the other (bench run 28: 255 batches for 1,602 deliveries, each a fetch, a read, a
    // settling and pg-boss's completion); now one. At most 4 × 32 POSTs at once per instance.
    this.workerId = await boss.work<DeliveryJob>(
      DELIVERY_QUEUE,
      {
        batchSize: this.opts.batchSize,
        localConcurrency: this.opts.concurrency,
        pollingIntervalSeconds: 0.5,
        perJobResults: true,
        burstWhenBatchFull: true,
      },
      async (jobs) => this.attempts(jobs),
    );
    const db = await this.deps.db();
    await this.readHooked();
    this.unlisten = await db.listen?.(CHANGES_CHANNEL, (orgId) => {
      if (!this.hooked || this.hooked.has(orgId)) this.wake();
    });
    this.timer = setInterval(
      () => void this.readHooked().finally(() => this.wake()),
      this.opts.dispatchIntervalMs,
    );
    this.timer.unref();
    this.wake();
  }

  // Stops taking attempts (those under way finish) and dispatching.
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    clearTimeout(this.held);
    this.held = undefined;
    await this.unlisten?.().catch(() => undefined);
    this.unlisten = undefined;
    await this.dispatching?.catch(() => undefined);
    const boss = this.boss ?? (await this.starting?.catch(() => undefined));
    this.boss = undefined;
    this.starting = undefined;
    this.workerId = undefined;
    await boss?.stop({ graceful: true, timeout: 20_000 });
    this.agents?.http.destroy();
    this.agents?.https.destroy();
    this.agents = undefined;
  }

  // Reads which organizations have an enabled endpoint (a failure forgets it: every commit wakes until the next).
  private async readHooked(): Promise<void> {
    try {
      const db = await this.deps.db();
      const rows = await db.query<{ org_id: string }>(
        "select distinct org_id from webhook_endpoints where enabled",
      );
      this.hooked = new Set(rows.map((r) => r.org_id));
    } catch {
      this.hooked = undefined;
    }
  }

  // Runs a dispatch pass now, or once more after the one under way, and at most one per dispatchGapMs: the first
  // commit after a quiet spell is dispatched at once, those that follow it closely wait for the gap's end and go
  // together (bench run 23: at 50 commits/s, one pass per commit, the API's page 1 lost a fifth of its throughput
  // while the same server delivered them, on 2 cores). 500 ms (bench run 26, 50 commits/s, no other load): the
  // server's CPU for the deliveries 47 ms/s and Postgres' 20 ms/s, against 80 and 85 at 100 ms; commit to delivery
  // p50 268 ms, p99 500 ms (59 and 109 ms at 100 ms; the target is 1 s and 3 s).
  wake(): void {
    // An instance that only queues (work: false) leaves the dispatch to the one that delivers (its timer reads the
    // endpoints every dispatchIntervalMs: a replay is dispatched within that).
    if (this.stopped || !this.opts.work) return;
    if (this.dispatching) {
      this.again = true;
      return;
    }
    const wait = this.lastPass + this.opts.dispatchGapMs - Date.now();
    if (wait > 0) {
      this.held ??= setTimeout(() => {
        this.held = undefined;
        this.wake();
      }, wait);
      return;
    }
    this.lastPass = Date.now();
    this.passes++;
    this.dispatching = this.dispatchAll()
      .catch((err: unknown) => {
        console.error("webhooks: dispatch:", err);
        return 0;
      })
      .finally(() => {
        this.dispatching = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  // Dispatches until every enabled endpoint has caught up with its feed; returns the deliveries queued.
  async dispatchAll(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.dispatchOnce();
      total += n.queued;
      if (!n.more) return total;
    }
  }

  // One pass: for each enabled endpoint behind its organization's feed, the next page of events becomes deliveries
  // (those of its types and ops) and its position moves past them, in one transaction that holds the endpoint's row
  // (an instance that finds it held, or moved since it read, leaves it: never queued twice).
  async dispatchOnce(): Promise<{ queued: number; more: boolean }> {
    const db = await this.deps.db();
    const behind = await db.query<{
      id: string;
      org_id: string;
      slug: string;
      position: string;
      generation: number;
      types: string[];
      ops: string[];
    }>(
      `select e.id, e.org_id, o.slug, e.position::text as position, e.generation, e.types, e.ops
         from webhook_endpoints e
         join organizations o on o.id = e.org_id
         join catalog_change_heads h on h.org_id = e.org_id
        where e.enabled and h.head > e.position
        order by e.id
        limit 100`,
    );
    if (behind.length === 0) return { queued: 0, more: false };
    const ctx = await this.deps.catalog();
    const boss = await this.jobs();
    let queued = 0;
    let more = false;
    for (const e of behind) {
      let page;
      try {
        page = await readChanges(
          ctx,
          { id: e.org_id, slug: e.slug },
          { after: e.position, types: MIRRORED, limit: DISPATCH_PAGE },
          this.deps.config.baseUrl,
        );
      } catch (err) {
        // Events pruned before they were dispatched (an endpoint switched off for longer than the retention): it
        // goes on from the oldest kept.
        if (err instanceof CursorError && err.reason === "expired") {
          await db.query(`update webhook_endpoints set position = $2 where id = $1 and position = $3`, [
            e.id,
            err.bound,
            e.position,
          ]);
          more = true;
          continue;
        }
        throw err;
      }
      const events = page.data.filter((ev) => e.types.includes(ev.type) && e.ops.includes(ev.op));
      const n = await db.transaction(async (tx) => {
        const [held] = await tx.query<{ position: string; generation: number }>(
          `select position::text as position, generation from webhook_endpoints
            where id = $1 and enabled for update skip locked`,
          [e.id],
        );
        if (!held || held.position !== e.position || held.generation !== e.generation) return -1;
        const ids = events.map(() => webhookId("whd"));
        const jobs = events.map((ev, i) =>
          deliveryJobInsert(ids[i]!, orderingKey(e.id, e.generation, ev.type, ev.id)),
        );
        if (jobs.length) {
          // The page's deliveries in one statement (arrays unnested), then their jobs in one more.
          await tx.query(
            `insert into webhook_deliveries (id, endpoint_id, org_id, event_id, event_type, object_id, op, body, job_id)
             select v.id, $1, $2, v.event_id, v.event_type, v.object_id, v.op, v.body, v.job_id
               from unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])
                      as v(id, event_id, event_type, object_id, op, body, job_id)`,
            [
              e.id,
              e.org_id,
              ids,
              events.map((ev) => ev.cursor),
              events.map((ev) => ev.type),
              events.map((ev) => ev.id),
              events.map((ev) => ev.op),
              events.map((ev) => JSON.stringify(ev)),
              jobs.map((j) => j.id),
            ],
          );
          await boss.insert(DELIVERY_QUEUE, jobs, { db: jobDb(tx) });
        }
        await tx.query(`update webhook_endpoints set position = $2 where id = $1`, [e.id, page.cursor]);
        return jobs.length;
      });
      if (n > 0 && this.workerId) boss.notifyWorker(this.workerId); // fetch now, not at the next poll
      if (n >= 0) queued += n;
      if (page.hasMore) more = true;
    }
    return { queued, more };
  }

  // Queues a delivery again (Redeliver), in the caller's transaction: its own ordering key, attempts start afresh.
  async redeliver(tx: Executor, deliveryId: string): Promise<void> {
    const boss = await this.jobs();
    const job = deliveryJobInsert(deliveryId, `redeliver:${deliveryId}:${Date.now()}`);
    await tx.query(
      `update webhook_deliveries set state = 'pending', job_id = $2, next_attempt_at = null, updated_at = now()
        where id = $1`,
      [deliveryId, job.id],
    );
    await boss.insert(DELIVERY_QUEUE, [job], { db: jobDb(tx) });
    if (this.workerId) setTimeout(() => this.workerId && this.boss?.notifyWorker(this.workerId), 50).unref();
  }

  // A worker's batch of attempts (what pg-boss hands a worker): the deliveries read in one statement, the POSTs side
  // by side, every attempt settled in one (settleAttempts). A job is failed (pg-boss retries it) when its POST failed
  // and a retry is left, or when the database could not be read or written; else completed: delivered, given up
  // (its endpoint switched off), or no longer wanted.
  async attempts(
    jobs: readonly Pick<Job<DeliveryJob>, "id" | "data" | "retryCount">[],
  ): Promise<JobResult[]> {
    try {
      const db = await this.deps.db();
      // The deliveries, their endpoints and the endpoints' current secrets in one read.
      const rows = await db.query<{
        id: string;
        endpoint_id: string;
        org_id: string;
        event_id: string;
        body: string;
        url: string;
        enabled: boolean;
        secrets: string[];
      }>(
        `select d.id, d.endpoint_id, d.org_id, d.event_id, d.body, e.url, e.enabled,
                array(${CURRENT_SECRETS.replace("$1", "e.id")}) as secrets
           from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
          where d.id = any($1::text[])`,
        [jobs.map((j) => j.data.deliveryId)],
      );
      const byId = new Map(rows.map((r) => [r.id, r]));
      const skipped = rows.filter((r) => !r.enabled).map((r) => r.id);
      if (skipped.length > 0)
        await db.query(
          `update webhook_deliveries set state = 'skipped', updated_at = now() where id = any($1::text[])`,
          [skipped],
        );
      // The POSTs side by side; each job's outcome (none: its delivery is gone or its endpoint off).
      const sent = await Promise.all(
        jobs.map(async (job) => {
          const d = byId.get(job.data.deliveryId);
          if (!d?.enabled) return { job, d: undefined, outcome: undefined };
          const outcome = await this.send(d.endpoint_id, d.url, d.event_id, d.body, d.secrets);
          return { job, d, outcome, last: !outcome.ok && job.retryCount >= this.opts.retryLimit };
        }),
      );
      const settled = sent.filter((s) => s.outcome !== undefined);
      if (settled.length > 0) {
        const attempts = settled.map((s) => ({
          deliveryId: s.d!.id,
          endpointId: s.d!.endpoint_id,
          outcome: s.outcome!,
          state: s.outcome!.ok ? ("delivered" as const) : s.last ? ("failed" as const) : ("pending" as const),
        }));
        const lasts = settled.filter((s) => s.last);
        // The last failure of a schedule also switches its endpoint off, in the same transaction.
        if (lasts.length === 0) await settleAttempts(db, attempts);
        else
          await db.transaction(async (tx) => {
            await settleAttempts(tx, attempts);
            for (const s of lasts) await disableFailing(tx, s.d!.org_id, s.d!.endpoint_id, s.d!.id);
          });
      }
      return sent.map(({ job, outcome, last }) =>
        outcome && !outcome.ok && !last
          ? {
              id: job.id,
              status: "failed" as const,
              output: { message: `webhook attempt failed: ${outcome.error ?? outcome.status}` },
            }
          : { id: job.id, status: "completed" as const },
      );
    } catch (err) {
      // The database out of reach (the read or the settling): every job of the batch is tried again.
      return jobs.map((job) => ({ id: job.id, status: "failed" as const, output: { message: String(err) } }));
    }
  }

  // POSTs a body to an endpoint now, signed with its current secrets (read here unless given: a test event, an
  // attempt).
  async send(
    endpointId: string,
    url: string,
    eventId: string,
    body: string,
    current?: readonly string[],
  ): Promise<AttemptOutcome> {
    const secrets =
      current ??
      (await (await this.deps.db()).query<{ secret: string }>(CURRENT_SECRETS, [endpointId])).map(
        (s) => s.secret,
      );
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      "content-type": "application/json",
      "user-agent": "public-catalog-api-webhooks/1",
      "webhook-id": eventId,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signWebhook(secrets, eventId, timestamp, body),
    };
    const r = await postWebhook(url, headers, body, {
      allowPrivate: this.deps.config.WEBHOOKS_ALLOW_PRIVATE_URLS,
      connectTimeoutMs: this.opts.connectTimeoutMs,
      timeoutMs: this.opts.timeoutMs,
      maxResponseBytes: BODY_START_BYTES,
      agents: (this.agents ??= deliveryAgents()),
      ...(this.opts.lookup ? { lookup: this.opts.lookup } : {}),
    });
    return {
      ok: r.ok,
      status: r.status,
      error: r.error ?? (r.ok ? undefined : `status ${r.status}`),
      latencyMs: Math.round(r.latencyMs),
      bodyStart: r.bodyStart.slice(0, BODY_START_BYTES),
    };
  }
}

// An endpoint's current secrets ($1), the newest first: each signs every attempt.
const CURRENT_SECRETS = `select secret from webhook_secrets
  where endpoint_id = $1 and (expires_at is null or expires_at > now())
  order by created_at desc`;

// Settles attempts (settleAttempts' arrays): each logged (its number following the ones logged) and its delivery's
// state, attempts and last status moved, in one statement.
const SETTLE = `with r as (
    select * from unnest($1::text[], $2::text[], $3::boolean[], $4::integer[], $5::text[], $6::integer[], $7::text[],
                         $8::text[])
      as r (delivery_id, endpoint_id, ok, status, error, latency_ms, body_start, state)
  ), attempt as (
    insert into webhook_attempts (delivery_id, endpoint_id, attempt, ok, status, error, latency_ms, body_start)
    select r.delivery_id, r.endpoint_id,
           (select count(*) + 1 from webhook_attempts a where a.delivery_id = r.delivery_id),
           r.ok, r.status, r.error, r.latency_ms, r.body_start
      from r
  )
  update webhook_deliveries d
     set state = r.state, attempts = d.attempts + 1, last_status = r.status, updated_at = now()
    from r
   where d.id = r.delivery_id`;

// Settles attempts of distinct deliveries, each with the state its delivery takes (a worker's batch; the console's
// test event, one): every attempt logged and every delivery moved in one statement.
export async function settleAttempts(
  q: Queryable,
  attempts: readonly {
    deliveryId: string;
    endpointId: string;
    outcome: AttemptOutcome;
    state: "delivered" | "pending" | "failed";
  }[],
): Promise<void> {
  const column = <T>(f: (a: (typeof attempts)[number]) => T) => attempts.map(f);
  await q.query(SETTLE, [
    column((a) => a.deliveryId),
    column((a) => a.endpointId),
    column((a) => a.outcome.ok),
    column((a) => a.outcome.status ?? null),
    column((a) => (a.outcome.ok ? null : (a.outcome.error ?? null))),
    column((a) => a.outcome.latencyMs),
    column((a) => a.outcome.bodyStart),
    column((a) => a.state),
  ]);
}

// Switches off an endpoint whose delivery failed every attempt of the schedule, with an audit entry (the console
// shows a banner while it is off for that reason).
async function disableFailing(
  tx: Queryable,
  orgId: string,
  endpointId: string,
  deliveryId: string,
): Promise<void> {
  const [e] = await tx.query<{ url: string }>(
    `update webhook_endpoints set enabled = false, disabled_reason = 'failing', disabled_at = now(), updated_at = now()
      where id = $1 and enabled returning url`,
    [endpointId],
  );
  if (!e) return;
  await recordAudit(tx, {
    orgId,
    actor: { id: null as unknown as string, email: "system" },
    action: "webhook_endpoint.disabled",
    targetId: endpointId,
    details: { url: e.url, reason: "failing", deliveryId },
  });
}
