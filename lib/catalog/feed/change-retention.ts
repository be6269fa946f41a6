import "server-only";
import type { Queryable } from "@/db/client";
import { BackgroundTimer } from "@/lib/background-timer";

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

// The runtime's retention: runs `prune` a minute after start, then 10 minutes after each run ends (BackgroundTimer).
// A failure is logged and the next run comes as planned.
export class ChangeRetention {
  private readonly timer: BackgroundTimer;

  constructor(
    private readonly prune: () => Promise<number>,
    timing: { firstMs: number; everyMs: number } = {
      firstMs: RETENTION_FIRST_MS,
      everyMs: RETENTION_EVERY_MS,
    },
  ) {
    this.timer = new BackgroundTimer(() => this.runOnce(), timing);
  }

  /** Plans the first run (once; a second start does nothing). */
  start(): void {
    this.timer.start();
  }

  /** Cancels the next run and waits for one under way. */
  async stop(): Promise<void> {
    await this.timer.stop();
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
}
