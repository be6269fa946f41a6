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
  private pending: { cursor: string; caughtUp: boolean; lag: number | undefined } | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

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

  /** A page of the feed applied (committed with its cursor); `atHead`: the feed had no more after it. */
  applied(page: Applied & { cursor: string; lastEventAt?: string }, atHead: boolean): void {
    for (const k of ["events", "upserts", "deletes"] as const) {
      this.since[k] += page[k];
      this.total[k] += page[k];
    }
    if (page.lastEventAt) this.lastEventAt = page.lastEventAt;
    if (page.events > 0) this.reportedCaughtUp = false;
    if (atHead) this.caughtUp(page.cursor);
    else if (page.events > 0) this.hold(page.cursor, false);
  }

  /**
   * The feed read to its head: a line with the run's totals and the lag, once per arrival there; at once when it
   * is the first arrival or `now` (the end of a catch-up).
   */
  caughtUp(cursor: string, now = false): void {
    if (this.reportedCaughtUp) return;
    if (now) {
      this.pending = { cursor, caughtUp: true, lag: this.lagSeconds() };
      this.emit();
    } else this.hold(cursor, true);
  }

  /** Drops a line held back (the run ends with a line of its own). */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = undefined;
  }

  /** Seconds from the last event applied (its `at`) to now; undefined before any event. */
  lagSeconds(): number | undefined {
    if (!this.lastEventAt) return undefined;
    return Math.max(0, (this.now() - Date.parse(this.lastEventAt)) / 1000);
  }

  // A feed line: written now when the last line is `everyMs` old (or it is the first arrival at the head), else
  // held back and written when it is (a later one replaces it): one line every `everyMs` at most under a busy feed,
  // and the last state always said.
  private hold(cursor: string, caughtUp: boolean): void {
    // The lag as it is now, when the page was applied, even if the line is written later.
    this.pending = { cursor, caughtUp, lag: this.lagSeconds() };
    const wait = this.everyMs - (this.now() - this.lastLine);
    if (wait <= 0 || (caughtUp && this.arrivals === 0)) this.emit();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.emit(), wait);
      this.timer.unref?.();
    }
  }

  private emit(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const p = this.pending;
    this.pending = undefined;
    if (!p) return;
    this.flush(p.cursor, p.caughtUp, p.lag);
    if (p.caughtUp) {
      this.reportedCaughtUp = true;
      this.arrivals++;
    }
  }

  private flush(cursor: string, caughtUp: boolean, lag: number | undefined): void {
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
