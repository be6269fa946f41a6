// One run of the mirror: the target opened, the server probed, the catalog loaded from the export when the target
// holds no mirror yet (or its cursor is past the feed's retention), then the change feed applied page after page
// from the stored cursor: to its head (catch up and return), or until stopped (follow).
import { CatalogClient, type ChangesPage } from "@/clients/typescript/src/index";
import { displayPrefix } from "@/lib/keys/format";
import type { Database } from "@/db/database";
import { abortable } from "./abortable";
import { applyPage } from "./apply";
import { describeFailure, explainServerFailure, isStatus, MirrorError, MirrorStopped } from "./failures";
import { loadMirror, readSmallExport, type MirrorIdentity } from "./load";
import { Progress } from "./progress";
import { MirrorTables, type MirrorState } from "./tables";
import { openTarget } from "./target";

// What a run is asked to do.
export interface MirrorOptions {
  baseUrl: string;
  key: string;
  /** A Postgres URL, or a folder for an embedded PGlite. */
  to: string;
  schema: string;
  /** Follow the feed until stopped (long polling), rather than catch up and return. */
  follow: boolean;
  /** Stops the run: a load under way is rolled back, a page being applied is committed first. */
  signal: AbortSignal;
  progress?: Progress;
  /** The long poll's wait in seconds while following (default 30). */
  waitSeconds?: number;
  /** Events per page (default 1000). */
  limit?: number;
  fetch?: typeof fetch;
}

// How a run ended: caught up with the feed's head, or stopped.
export type MirrorOutcome = "caught-up" | "stopped";

// Runs the mirror; throws a MirrorError for what the user can act on (key refused, server or database unreachable,
// preview off, a mirror of another server).
export async function runMirror(o: MirrorOptions): Promise<MirrorOutcome> {
  const progress = o.progress ?? new Progress();
  const baseUrl = o.baseUrl.replace(/\/+$/, "");
  const target = await openTarget(o.to);
  try {
    return await new MirrorRun(o, baseUrl, target.db, progress, target.describe).run();
  } finally {
    progress.close();
    await target.db.close();
  }
}

class MirrorRun {
  private readonly tables: MirrorTables;
  private readonly identity: MirrorIdentity;
  /** Fails fast (few, short retries): the first requests, which prove the server and the key. */
  private readonly probe: CatalogClient;
  /** Retries as the client does by default: the load and the feed, which outlive a server's restart. */
  private readonly client: CatalogClient;
  private readonly limit: number;

  constructor(
    private readonly o: MirrorOptions,
    private readonly baseUrl: string,
    private readonly db: Database,
    private readonly progress: Progress,
    private readonly where: string,
  ) {
    this.tables = new MirrorTables(o.schema);
    this.identity = { baseUrl, keyPrefix: displayPrefix(o.key) };
    this.limit = o.limit ?? 1000;
    const base = { baseUrl, key: o.key, fetch: o.fetch };
    this.probe = new CatalogClient({ ...base, maxRetries: 2, maxRetryDelaySeconds: 2 });
    this.client = new CatalogClient({
      ...base,
      onRetry: (r) =>
        progress.say(
          `${r.path}: ${r.status ?? describeFailure(r.error)}, retry ${r.attempt} in ${r.delaySeconds} s`,
        ),
    });
  }

  async run(): Promise<MirrorOutcome> {
    try {
      const state = await this.tables.state(this.db);
      let cursor: string;
      if (state) {
        await this.checkIdentity(state);
        cursor = state.cursor;
        this.progress.say(
          `resuming ${this.baseUrl} into ${this.where} (schema ${this.o.schema}) from cursor ${cursor}`,
        );
        cursor = (await this.probeFeed(cursor)) ?? (await this.reload(cursor));
      } else {
        this.progress.say(`loading ${this.baseUrl} into ${this.where} (schema ${this.o.schema})`);
        cursor = await this.load(this.probe, true);
      }
      return await this.feed(cursor);
    } catch (err) {
      if (err instanceof MirrorStopped || (this.o.signal.aborted && !(err instanceof MirrorError))) {
        this.progress.say("stopped: the load under way was rolled back, nothing of it was written");
        return "stopped";
      }
      throw explainServerFailure(err, this.baseUrl);
    }
  }

  // The export of every resource into the tables, in one transaction; returns the cursor to follow from. The
  // channels' export comes first, outside it: a refused key or a server without the preview fails it before
  // anything is created. `probing`: with the fast-failing client, and the feed checked too.
  private async load(client: CatalogClient, probing: boolean): Promise<string> {
    const first = await readSmallExport(client, "channels", this.o.signal);
    if (probing) await client.changes({ after: first.cursor, limit: 1, wait: 0 });
    const started = Date.now();
    const counts = await loadMirror({
      db: this.db,
      client: this.client,
      tables: this.tables,
      identity: this.identity,
      first,
      signal: this.o.signal,
      progress: this.progress,
    });
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    this.progress.say(
      `loaded ${total.toLocaleString("en-US")} items in ${((Date.now() - started) / 1000).toFixed(1)} s ` +
        `(one transaction); following the feed from cursor ${first.cursor}`,
    );
    return first.cursor;
  }

  // 410: the stored cursor is past the feed's retention; the tables are loaded again from a new export.
  private async reload(cursor: string): Promise<string> {
    this.progress.say(
      `the stored cursor ${cursor} is past the change feed's retention (410 PUBLIC_API_CURSOR_EXPIRED): ` +
        "exporting the catalog again",
    );
    return this.load(this.client, false);
  }

  // The first page after a stored cursor, with the fast-failing client: the server, the key and the feed proven;
  // undefined on 410 (the cursor expired). A cursor the feed has not reached (400) is another server's or
  // organization's.
  private async probeFeed(cursor: string): Promise<string | undefined> {
    try {
      await this.probe.changes({ after: cursor, limit: 1, wait: 0 });
      return cursor;
    } catch (err) {
      if (isStatus(err, 410)) return undefined;
      if (isStatus(err, 400))
        throw new MirrorError(
          `The stored cursor ${cursor} is not one of this organization's feed (${describeFailure(err)}): the ` +
            `mirror in schema ${this.o.schema} was made from another server or organization. Use another --schema, ` +
            `or drop this one (drop schema ${this.o.schema} cascade) to load it again.`,
        );
      throw err;
    }
  }

  // A mirror of another server is refused; with another key, its organization must be the one mirrored (a channel
  // in common, as channels' ids are the organization's own).
  private async checkIdentity(state: MirrorState): Promise<void> {
    const refuse = (what: string) =>
      new MirrorError(
        `The schema ${this.o.schema} of ${this.where} mirrors ${what}. Use another --schema for this one, or drop ` +
          `it (drop schema ${this.o.schema} cascade) to mirror ${this.baseUrl} there.`,
      );
    if (state.baseUrl !== this.baseUrl) throw refuse(state.baseUrl);
    if (state.keyPrefix === this.identity.keyPrefix) return;
    const server = await readSmallExport(this.probe, "channels", this.o.signal);
    const ids = new Set(server.items.map((text) => (JSON.parse(text) as { id: string }).id));
    const mine = await this.db.query<{ id: string }>(`select id from ${this.tables.table("channels")}`);
    if (mine.length > 0 && !mine.some((r) => ids.has(r.id)))
      throw refuse(`another organization of ${state.baseUrl} (read with the key ${state.keyPrefix}…)`);
  }

  // The feed applied from `cursor`: to its head, or until stopped while following. A 410 on the way loads again.
  private async feed(cursor: string): Promise<MirrorOutcome> {
    for (;;) {
      try {
        return this.o.follow ? await this.followFrom(cursor) : await this.catchUpFrom(cursor);
      } catch (err) {
        if (!isStatus(err, 410) || this.o.signal.aborted) throw err;
        cursor = await this.reload(this.lastCursor ?? cursor);
      }
    }
  }

  private lastCursor: string | undefined;

  // One page applied, when it has events or moves the cursor; returns the cursor to go on from.
  private async apply(page: ChangesPage, cursor: string): Promise<string> {
    if (page.data.length === 0 && page.cursor === cursor) {
      if (!page.hasMore) this.progress.caughtUp(cursor);
      return cursor;
    }
    const applied = await applyPage(this.db, this.tables, page, this.identity.keyPrefix);
    this.lastCursor = page.cursor;
    this.progress.applied({ ...applied, cursor: page.cursor }, !page.hasMore);
    return page.cursor;
  }

  private async catchUpFrom(cursor: string): Promise<MirrorOutcome> {
    for (;;) {
      if (this.o.signal.aborted) return this.stopped(cursor);
      const page = await this.client.changes({ after: cursor, limit: this.limit, wait: 0 });
      cursor = await this.apply(page, cursor);
      if (!page.hasMore) {
        this.progress.caughtUp(cursor, true);
        return "caught-up";
      }
    }
  }

  private async followFrom(cursor: string): Promise<MirrorOutcome> {
    const pages = this.client.follow({
      after: cursor,
      limit: this.limit,
      wait: this.o.waitSeconds ?? 30,
      signal: this.o.signal,
    });
    try {
      for await (const page of abortable(pages, this.o.signal)) {
        cursor = await this.apply(page, cursor);
        if (this.o.signal.aborted) break;
      }
    } catch (err) {
      if (!this.o.signal.aborted) throw err;
    }
    return this.stopped(cursor);
  }

  private stopped(cursor: string): MirrorOutcome {
    this.progress.close();
    this.progress.say(
      `stopped at cursor ${cursor} (${this.progress.total.events} events applied in this run); run again to resume`,
    );
    return "stopped";
  }
}
