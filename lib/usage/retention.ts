// The retention of usage and of the request log: every hour (first a minute after start), usage hours older than
// USAGE_RETENTION_DAYS and log rows (and drop counters) older than REQUEST_LOG_MAX_AGE_DAYS are deleted in batches
// of short statements. The bound per organization in rows is kept by the log's own flush (lib/usage/request-log.ts).
import type { Queryable } from "@/db/client";
import { BackgroundTimer } from "@/lib/background-timer";
import { DAY_MS } from "./recorder";
import { PRUNE_BATCH, pruneRequestLogByAge } from "./request-log";

// When the retention runs: a minute after start, then an hour after each run ends.
export const USAGE_RETENTION_TIMING = { firstMs: 60_000, everyMs: 3_600_000 };

// Deletes usage hours that started before `cutoff` (ms since the epoch), PRUNE_BATCH at a time; returns how many.
export async function pruneUsage(db: Queryable, cutoff: number): Promise<number> {
  let total = 0;
  for (;;) {
    const rows = await db.query<{ n: number }>(
      `with gone as (
         delete from usage_hours u
          where (u.org_id, u.key_id, u.hour) in (
            select org_id, key_id, hour from usage_hours where hour < to_timestamp($1::float8 / 1000) limit $2)
         returning 1
       )
       select count(*)::int as n from gone`,
      [cutoff, PRUNE_BATCH],
    );
    const n = Number(rows[0]?.n ?? 0);
    total += n;
    if (n < PRUNE_BATCH) return total;
  }
}

// One run of the retention at `now`: what went from usage and from the log.
export async function pruneUsageAndLog(
  db: Queryable,
  now: number,
  days: { usage: number; log: number },
): Promise<{ usage: number; log: number }> {
  return {
    usage: await pruneUsage(db, now - days.usage * DAY_MS),
    log: await pruneRequestLogByAge(db, now - days.log * DAY_MS),
  };
}

// The runtime's retention of usage and of the log, on a BackgroundTimer; a failure is logged and the next run comes.
export class UsageRetention {
  private readonly timer: BackgroundTimer;

  constructor(
    private readonly prune: () => Promise<{ usage: number; log: number }>,
    timing = USAGE_RETENTION_TIMING,
  ) {
    this.timer = new BackgroundTimer(() => this.runOnce(), timing);
  }

  /** Plans the first run (once). */
  start(): void {
    this.timer.start();
  }

  /** Cancels the next run and waits for one under way. */
  async stop(): Promise<void> {
    await this.timer.stop();
  }

  /** One run now (a failure is logged, and counts nothing). */
  async runOnce(): Promise<{ usage: number; log: number }> {
    try {
      return await this.prune();
    } catch (err) {
      console.error("[usage] retention failed; it runs again later:", (err as Error).message);
      return { usage: 0, log: 0 };
    }
  }
}
