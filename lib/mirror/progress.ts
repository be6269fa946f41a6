// The mirror's progress lines on standard error: items loaded per resource (and per second), events applied, the
// cursor and the lag (now minus the time of the last event applied). Lines of a long step come at most every
// `everyMs`; the end of each step always has its line.
import type { MirrorResource } from "./tables";

const number = (n: number) => n.toLocaleString("en-US");
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

// What was applied since the last line, and in all.
interface Applied {
  events: number;
  upserts: number;
  deletes: number;
}

// The progress of one run of the mirror, written line by line.
export class Progress {
  private lastLine = 0;
  private readonly since: Applied = { events: 0, upserts: 0, deletes: 0 };
  /** Events applied in this run. */
  readonly total: Applied = { events: 0, upserts: 0, deletes: 0 };
  private lastEventAt: string | undefined;
  private reportedCaughtUp = false;
  private arrivals = 0;

  constructor(
    private readonly write: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
    private readonly everyMs = 2_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** A line of its own. */
  say(text: string): void {
    this.write(`mirror: ${text}`);
  }

  /** A resource's export under way: `n` items read so far since `startedMs`. */
  loading(resource: MirrorResource, n: number, startedMs: number): void {
    if (!this.due()) return;
    const ms = this.now() - startedMs;
    this.say(`loading ${resource}: ${number(n)} items (${number(rate(n, ms))}/s)`);
  }

  /** A resource's export read to its end line. */
  loaded(resource: MirrorResource, n: number, startedMs: number): void {
    const ms = this.now() - startedMs;
    this.lastLine = this.now();
    this.say(`${resource}: ${number(n)} items loaded in ${seconds(ms)} (${number(rate(n, ms))}/s)`);
  }

  /** A page of the feed applied (committed with its cursor). */
  applied(page: Applied & { cursor: string; lastEventAt?: string }): void {
    for (const k of ["events", "upserts", "deletes"] as const) {
      this.since[k] += page[k];
      this.total[k] += page[k];
    }
    if (page.lastEventAt) this.lastEventAt = page.lastEventAt;
    if (page.events > 0) this.reportedCaughtUp = false;
    if (this.since.events > 0 && this.due()) this.flush(page.cursor, false);
  }

  /**
   * The feed read to its head: a line with the run's totals and the lag, once per arrival there, at most every
   * `everyMs` unless it is the first or `now` (the end of a catch-up); one held back comes with the next quiet page.
   */
  caughtUp(cursor: string, now = false): void {
    if (this.reportedCaughtUp || (!now && this.arrivals > 0 && !this.due())) return;
    this.reportedCaughtUp = true;
    this.arrivals++;
    this.flush(cursor, true);
  }

  /** Seconds from the last event applied (its `at`) to now; undefined before any event. */
  lagSeconds(): number | undefined {
    if (!this.lastEventAt) return undefined;
    return Math.max(0, (this.now() - Date.parse(this.lastEventAt)) / 1000);
  }

  private flush(cursor: string, caughtUp: boolean): void {
    const lag = this.lagSeconds();
    // Caught up: the run's totals; on the way: what was applied since the last line.
    const s = caughtUp ? this.total : this.since;
    this.say(
      `${caughtUp ? `caught up at cursor ${cursor}: ` : ""}${number(s.events)} events applied` +
        `${caughtUp ? " in this run" : ""} (${number(s.upserts)} upserts, ${number(s.deletes)} deletes)` +
        `${caughtUp ? "" : `, cursor ${cursor}`}${lag === undefined ? "" : `, lag ${lag.toFixed(1)} s`}`,
    );
    this.since.events = this.since.upserts = this.since.deletes = 0;
    this.lastLine = this.now();
  }

  private due(): boolean {
    if (this.now() - this.lastLine < this.everyMs) return false;
    this.lastLine = this.now();
    return true;
  }
}

const rate = (n: number, ms: number) => Math.round(n / Math.max(ms / 1000, 0.001));
