import "server-only";
import type { Queryable } from "@/db/client";

// Most events one call of catalog_changes_prune deletes (migration 0017): one short transaction each.
export const PRUNE_BATCH = 1_000;

// When the runtime's retention runs: first a minute after start (not in the way of start-up), then every 10 minutes.
export const RETENTION_FIRST_MS = 60_000;
export const RETENTION_EVERY_MS = 10 * 60_000;

// Prunes the change log's events older than `keepDays`, batch after batch until none is left; returns how many went.
// Each organization's floor rises to its last cursor pruned.
export async function pruneChanges(db: Queryable, keepDays: number, batch = PRUNE_BATCH): Promise<number> {
  let total = 0;
  for (;;) {
    const [row] = await db.query<{ pruned: number }>(
      "select catalog_changes_prune(make_interval(days => $1::int), $2::int) as pruned",
      [keepDays, batch],
    );
    const pruned = Number(row?.pruned ?? 0);
    if (pruned === 0) return total;
    total += pruned;
  }
}

// The runtime's retention timer: runs `prune` a minute after start, then 10 minutes after each run ends (a long run
// never overlaps the next). A failure is logged and the next run comes as planned; the timer never keeps the process
// alive.
export class ChangeRetention {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;

  constructor(
    private readonly prune: () => Promise<number>,
    private readonly timing: { firstMs: number; everyMs: number } = {
      firstMs: RETENTION_FIRST_MS,
      everyMs: RETENTION_EVERY_MS,
    },
  ) {}

  /** Plans the first run (once; a second start does nothing). */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(this.timing.firstMs);
  }

  /** Cancels the next run and waits for one under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One run now: how many events were pruned (0 after a failure, which is logged). */
  async runOnce(): Promise<number> {
    try {
      const pruned = await this.prune();
      if (pruned > 0) console.log(`[changes] retention: pruned ${pruned} events`);
      return pruned;
    } catch (err) {
      console.error("[changes] retention failed; it runs again later:", (err as Error).message);
      return 0;
    }
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.runOnce().then(() => {
        this.running = undefined;
        this.schedule(this.timing.everyMs);
      });
    }, ms);
    this.timer.unref();
  }
}
