// The worker: loops that claim batches of deliveries (lib/webhooks/queue.ts), POST them side by side and settle them
// (lib/webhooks/settle.ts). A loop whose batch came back full claims again at once and wakes another (a backlog is
// taken by every loop); else it waits for a nudge (deliveries queued: the dispatcher, a notification) or its poll.
import type { Database } from "@/db/client";
import { claimDeliveries, type Claim } from "@/lib/webhooks/queue";
import { retryDelaySeconds } from "@/lib/webhooks/schedule";
import { CURRENT_SECRETS, type AttemptOutcome } from "@/lib/webhooks/sender";
import { disableFailing, settleAttempts, skipDeliveries, type SettledAttempt } from "@/lib/webhooks/settle";

// What became of one claimed delivery: delivered; failed with a retry left (pending, due again after its backoff);
// failed for the last time (its endpoint switched off); skipped (its endpoint is off); gone (deleted meanwhile);
// unsettled (the database could not be read or written: its claim's lease ends and another attempt takes it).
export type AttemptStatus = "delivered" | "retrying" | "failed" | "skipped" | "gone" | "unsettled";
export interface AttemptResult {
  id: string;
  status: AttemptStatus;
  error?: string;
}

// What a batch of attempts uses: the database, the sender, the schedule.
export interface AttemptDeps {
  db(): Promise<Database>;
  send(
    endpointId: string,
    url: string,
    eventId: string,
    body: string,
    current: readonly string[],
  ): Promise<AttemptOutcome>;
  retryLimit: number;
  retryDelaySeconds: number;
  retryDelayMaxSeconds: number;
}

// A batch of claimed deliveries: read in one statement (with their endpoints and current secrets), POSTed side by
// side, settled in one statement (with the endpoints switched off by a last failure, in one transaction).
export async function runAttempts(deps: AttemptDeps, claims: readonly Claim[]): Promise<AttemptResult[]> {
  try {
    const db = await deps.db();
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
      [claims.map((c) => c.id)],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    const skipped = claims.filter((c) => byId.get(c.id)?.enabled === false);
    if (skipped.length > 0) await skipDeliveries(db, skipped);
    const sent = await Promise.all(
      claims.map(async (claim) => {
        const d = byId.get(claim.id);
        if (!d?.enabled) return { claim, d: undefined, outcome: undefined, last: false };
        const outcome = await deps.send(d.endpoint_id, d.url, d.event_id, d.body, d.secrets);
        return { claim, d, outcome, last: !outcome.ok && claim.tries > deps.retryLimit };
      }),
    );
    const settled: (SettledAttempt & { orgId: string; last: boolean })[] = [];
    for (const { claim, d, outcome, last } of sent)
      if (d && outcome)
        settled.push({
          deliveryId: d.id,
          endpointId: d.endpoint_id,
          orgId: d.org_id,
          outcome,
          tries: claim.tries,
          last,
          state: outcome.ok ? "delivered" : last ? "failed" : "pending",
          ...(outcome.ok || last
            ? {}
            : {
                retryInSeconds: retryDelaySeconds(
                  claim.tries,
                  Math.random(),
                  deps.retryDelaySeconds,
                  deps.retryDelayMaxSeconds,
                ),
              }),
        });
    const lasts = settled.filter((s) => s.last);
    if (lasts.length === 0 && settled.length > 0) await settleAttempts(db, settled);
    else if (lasts.length > 0)
      await db.transaction(async (tx) => {
        await settleAttempts(tx, settled);
        for (const s of lasts) await disableFailing(tx, s.orgId, s.endpointId, s.deliveryId);
      });
    return sent.map(({ claim, d, outcome, last }): AttemptResult => {
      if (!d) return { id: claim.id, status: byId.has(claim.id) ? "skipped" : "gone" };
      if (outcome?.ok) return { id: claim.id, status: "delivered" };
      const error = `webhook attempt failed: ${outcome?.error ?? outcome?.status}`;
      return { id: claim.id, status: last ? "failed" : "retrying", error };
    });
  } catch (err) {
    return claims.map((c) => ({ id: c.id, status: "unsettled" as const, error: String(err) }));
  }
}

// How the worker runs: its loops, the deliveries each claims at once, the claims' lease, its poll.
export interface WorkerOptions {
  concurrency: number;
  batchSize: number;
  leaseSeconds: number;
  pollMs: number;
}

// The worker of one engine: `concurrency` loops, each claiming up to `batchSize` deliveries and running them.
export class DeliveryWorker {
  private stopped = true;
  private loops: Promise<void>[] = [];
  private readonly idle: (() => void)[] = [];
  private nudged = false;

  constructor(
    private readonly db: () => Promise<Database>,
    private readonly run: (claims: readonly Claim[]) => Promise<unknown>,
    private readonly opts: WorkerOptions,
  ) {}

  // Starts the loops.
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    for (let i = 0; i < this.opts.concurrency; i++) this.loops.push(this.loop());
  }

  // Wakes one idle loop to claim now (or, every loop busy, the next one to finish its batch).
  nudge(): void {
    const wake = this.idle.shift();
    if (wake) wake();
    else this.nudged = true;
  }

  // Stops claiming; resolves once the batches under way are settled, or after timeoutMs.
  async stop(timeoutMs: number): Promise<void> {
    this.stopped = true;
    for (const wake of this.idle.splice(0)) wake();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(this.loops),
      new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs))),
    ]);
    clearTimeout(timer);
    this.loops = [];
  }

  private async loop(): Promise<void> {
    let failing = false;
    while (!this.stopped) {
      let claims: Claim[] = [];
      try {
        claims = await claimDeliveries(await this.db(), this.opts.batchSize, this.opts.leaseSeconds);
        failing = false;
      } catch (err) {
        if (!failing) console.error("webhooks: claiming deliveries:", err);
        failing = true;
      }
      if (claims.length > 0) await this.run(claims).catch(() => undefined);
      if (claims.length === this.opts.batchSize) {
        this.nudge();
        continue;
      }
      if (this.nudged) {
        this.nudged = false;
        continue;
      }
      if (!this.stopped) await this.wait();
    }
  }

  // Resolves at the next nudge or after the poll's interval.
  private wait(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        const i = this.idle.indexOf(done);
        if (i >= 0) this.idle.splice(i, 1);
        resolve();
      };
      const timer = setTimeout(done, this.opts.pollMs);
      this.idle.push(done);
    });
  }
}
