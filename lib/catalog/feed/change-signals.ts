import "server-only";
import type { Database } from "@/db/client";

// The channel migration 0016 notifies at each commit, its payload the organization whose feed moved.
export const CHANGES_CHANNEL = "catalog_changes";

// How often waiting requests read their organizations' heads while notifications are not received (a driver that
// cannot listen, a listening connection lost): one statement for every organization waited on.
export const POLL_MS = 500;

// After a failed subscription, the next request that waits tries again once this long has passed.
const RESUBSCRIBE_MS = 30_000;

// What the signals read: notifications (when the driver has them) and, else, the heads.
export type SignalSource = Pick<Database, "query" | "listen">;

// One request following an organization's feed (ChangeSignals.watch): made before its first read, so that a change
// committed while it reads is not missed.
export interface ChangeWatch {
  /**
   * Waits for the organization's feed to move past `cursor` (the one the request's last read ended at): true when it
   * may have (a notification since the last call, or a head read past it), false at `until` (ms since the epoch) or
   * when `abort` fires (the client went away).
   */
  next(cursor: string, until: number, abort?: AbortSignal): Promise<boolean>;
  /** The request is done: forget it. */
  close(): void;
}

// A watch's request waiting in next(): the cursor it read up to, and how to end its wait.
interface Pending {
  cursor: bigint;
  finish: (moved: boolean) => void;
}

interface Watch {
  orgId: string;
  /** A notification came while the request was not waiting (reading): its next wait ends at once. */
  signalled: boolean;
  pending?: Pending;
}

// Wakes the requests that wait for an organization's feed to move (GET /public/v1/changes?wait=…), one object per
// database handle, held by the runtime. Notifications (LISTEN on CHANGES_CHANNEL, one subscription for the process)
// wake the watches of their organization; while there are none to be had (the driver cannot listen, the connection
// is lost, the subscription failed), the waiting requests' organizations have their heads read every POLL_MS in one
// statement, and those past a request's cursor wake it. Waking is only a hint: the request reads the feed again,
// and waits again when nothing of its own came.
export class ChangeSignals {
  private readonly watches = new Map<string, Set<Watch>>();
  private listening = false;
  private subscription: Promise<(() => Promise<void>) | undefined> | undefined;
  private failedAt = -Infinity;
  private poller: ReturnType<typeof setInterval> | undefined;
  private polling = false;
  private pollFailing = false;
  private closed = false;

  constructor(
    private readonly source: SignalSource,
    private readonly opts: { pollMs?: number; now?: () => number } = {},
  ) {}

  /** Whether notifications are received now (else waiting requests poll). */
  get receiving(): boolean {
    return this.listening;
  }

  /** Starts following an organization's feed for one request. */
  watch(orgId: string): ChangeWatch {
    this.subscribe();
    const w: Watch = { orgId, signalled: false };
    let set = this.watches.get(orgId);
    if (!set) this.watches.set(orgId, (set = new Set()));
    set.add(w);
    return {
      next: (cursor, until, abort) => this.next(w, BigInt(cursor), until, abort),
      close: () => {
        w.pending?.finish(false);
        set.delete(w);
        if (set.size === 0 && this.watches.get(orgId) === set) this.watches.delete(orgId);
      },
    };
  }

  /** Ends every wait and the subscription. */
  async close(): Promise<void> {
    this.closed = true;
    for (const set of this.watches.values()) for (const w of set) w.pending?.finish(false);
    this.stopPolling();
    const unsubscribe = await this.subscription?.catch(() => undefined);
    this.subscription = undefined;
    await unsubscribe?.().catch(() => undefined);
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  private next(w: Watch, cursor: bigint, until: number, abort?: AbortSignal): Promise<boolean> {
    if (w.signalled) {
      w.signalled = false;
      return Promise.resolve(true);
    }
    const left = until - this.now();
    if (this.closed || left <= 0 || abort?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish(false), left);
      const onAbort = () => finish(false);
      const finish = (moved: boolean) => {
        if (w.pending !== pending) return;
        w.pending = undefined;
        clearTimeout(timer);
        abort?.removeEventListener("abort", onAbort);
        resolve(moved);
      };
      const pending: Pending = { cursor, finish };
      w.pending = pending;
      abort?.addEventListener("abort", onAbort, { once: true });
      if (!this.listening) this.startPolling();
    });
  }

  // Subscribes once for the process (again after a failure, at most every RESUBSCRIBE_MS).
  private subscribe(): void {
    if (this.closed || this.subscription || !this.source.listen) return;
    if (this.now() - this.failedAt < RESUBSCRIBE_MS) return;
    this.subscription = this.source
      .listen(
        CHANGES_CHANNEL,
        (orgId) => this.notified(orgId),
        (listening) => this.status(listening),
      )
      .catch((err: unknown) => {
        console.error(
          "[changes] could not listen for changes; waiting requests poll:",
          (err as Error).message,
        );
        this.failedAt = this.now();
        this.subscription = undefined;
        this.status(false);
        return undefined;
      });
  }

  // A commit of the organization: its waiting requests read again, the others will as soon as they wait.
  private notified(orgId: string): void {
    for (const w of this.watches.get(orgId) ?? []) {
      if (w.pending) w.pending.finish(true);
      else w.signalled = true;
    }
  }

  // Notifications received or not. Once they are (again), every request reads again: a change notified while they
  // were not may have been missed.
  private status(listening: boolean): void {
    if (this.closed) return;
    this.listening = listening;
    if (!listening) {
      if (this.anyPending()) this.startPolling();
      return;
    }
    this.stopPolling();
    for (const orgId of this.watches.keys()) this.notified(orgId);
  }

  private anyPending(): boolean {
    for (const set of this.watches.values()) for (const w of set) if (w.pending) return true;
    return false;
  }

  private startPolling(): void {
    if (this.poller || this.closed) return;
    this.poller = setInterval(() => void this.poll(), this.opts.pollMs ?? POLL_MS);
    this.poller.unref();
  }

  private stopPolling(): void {
    clearInterval(this.poller);
    this.poller = undefined;
  }

  // Reads the heads of the organizations waited on and wakes the requests they passed; stops when none waits or
  // notifications are back.
  private async poll(): Promise<void> {
    if (this.polling) return;
    const orgs = [...this.watches]
      .filter(([, set]) => [...set].some((w) => w.pending))
      .map(([orgId]) => orgId);
    if (this.listening || orgs.length === 0) {
      this.stopPolling();
      return;
    }
    this.polling = true;
    try {
      const rows = await this.source.query<{ org_id: string; head: string }>(
        "select org_id, head::text as head from catalog_change_heads where org_id = any($1::text[])",
        [orgs],
      );
      this.pollFailing = false;
      for (const { org_id, head } of rows) {
        for (const w of this.watches.get(org_id) ?? []) {
          if (w.pending && BigInt(head) > w.pending.cursor) w.pending.finish(true);
        }
      }
    } catch (err) {
      // The requests wait on to their deadline, then read the feed themselves. Said once per run of failures.
      if (!this.pollFailing)
        console.error("[changes] could not read the heads of waiting requests:", (err as Error).message);
      this.pollFailing = true;
    } finally {
      this.polling = false;
    }
  }
}
