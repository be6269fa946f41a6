// The dispatcher: turns each organization's change feed into deliveries, one per (endpoint, event), queued in the
// transaction that moves the endpoint's feed position. Woken by each commit of the feed (its notification) of an
// organization with an enabled endpoint, and every dispatchIntervalMs; at most one pass per dispatchGapMs.
import type { Database } from "@/db/client";
import { CursorError } from "@/lib/catalog/catalog-errors";
import { CHANGES_CHANNEL } from "@/lib/catalog/feed/change-signals";
import { readChanges } from "@/lib/catalog/feed/changes";
import type { CatalogContext } from "@/lib/catalog/context";
import { MIRRORED } from "@/lib/catalog/resources/items";
import { queueDeliveries } from "@/lib/webhooks/queue";

// Events read from a feed per endpoint per pass.
const DISPATCH_PAGE = 200;

// What the dispatcher reads with, and whom it tells that deliveries were queued.
export interface DispatcherDeps {
  db(): Promise<Database>;
  catalog(): Promise<CatalogContext>;
  baseUrl: string;
  /** Called after a transaction queued deliveries (this instance's worker claims them at once). */
  queued(): void;
}

export interface DispatcherOptions {
  dispatchIntervalMs: number;
  dispatchGapMs: number;
}

export class Dispatcher {
  private timer?: NodeJS.Timeout;
  private unlisten?: () => Promise<void>;
  private dispatching?: Promise<number>;
  private again = false;
  /** When the last pass started (ms since the epoch), and the timer of a wake held back by dispatchGapMs. */
  private lastPass = 0;
  private held?: NodeJS.Timeout;
  /**
   * The organizations with an enabled endpoint, as read at the last tick (undefined: not known, every commit wakes
   * the dispatcher). A commit of another organization costs no pass. An endpoint enabled since the tick is
   * dispatched at the next one.
   */
  private hooked?: ReadonlySet<string>;
  private running = false;
  /** Passes run (for tests). */
  passes = 0;

  constructor(
    private readonly deps: DispatcherDeps,
    private readonly opts: DispatcherOptions,
  ) {}

  // Listens to the feed's commits, starts the timer, and runs a first pass.
  async start(): Promise<void> {
    this.running = true;
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

  // Stops waking; resolves once the pass under way ends.
  async stop(): Promise<void> {
    this.running = false;
    clearInterval(this.timer);
    this.timer = undefined;
    clearTimeout(this.held);
    this.held = undefined;
    await this.unlisten?.().catch(() => undefined);
    this.unlisten = undefined;
    await this.dispatching?.catch(() => undefined);
  }

  // Reads which organizations have an enabled endpoint (a failure forgets it: every commit wakes until the next).
  private async readHooked(): Promise<void> {
    try {
      const rows = await (
        await this.deps.db()
      ).query<{ org_id: string }>("select distinct org_id from webhook_endpoints where enabled");
      this.hooked = new Set(rows.map((r) => r.org_id));
    } catch {
      this.hooked = undefined;
    }
  }

  // Runs a pass now, or once more after the one under way, and at most one per dispatchGapMs: the first commit
  // after a quiet spell is dispatched at once, those that follow it closely wait for the gap's end and go together,
  // so that a busy feed costs a pass per gap rather than one per commit (bench/README.md#webhooks).
  wake(): void {
    if (!this.running) return;
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
    let queued = 0;
    let more = false;
    for (const e of behind) {
      let page;
      try {
        page = await readChanges(
          ctx,
          { id: e.org_id, slug: e.slug },
          { after: e.position, types: MIRRORED, limit: DISPATCH_PAGE },
          this.deps.baseUrl,
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
        const ids = await queueDeliveries(
          tx,
          { id: e.id, orgId: e.org_id, generation: e.generation },
          events,
        );
        await tx.query(`update webhook_endpoints set position = $2 where id = $1`, [e.id, page.cursor]);
        return ids.length;
      });
      if (n > 0) this.deps.queued();
      if (n >= 0) queued += n;
      if (page.hasMore) more = true;
    }
    return { queued, more };
  }
}
