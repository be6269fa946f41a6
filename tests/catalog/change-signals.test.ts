// ChangeSignals (the change feed's long polls): a notification wakes the requests of its organization only, one that
// comes while a request reads is not lost, a wait ends at its deadline or when the client goes away; without
// notifications (no LISTEN, a lost connection, a failed subscription) the waiting requests' heads are read every
// poll period and those past a request's cursor wake it; notifications back, every request reads again.
import { afterEach, describe, expect, it } from "vitest";
import type { ListenStatus } from "@/db/client";
import { ChangeSignals, type SignalSource } from "@/lib/catalog/feed/change-signals";

const POLL_MS = 20;

// A source whose notifications and heads the test drives; `queries` records the organizations each poll read.
function source(opts: { listen?: boolean | "fails" } = {}) {
  const heads = new Map<string, number>();
  const queries: string[][] = [];
  let notify: ((orgId: string) => void) | undefined;
  let status: ListenStatus | undefined;
  let unsubscribed = false;
  const src: SignalSource = {
    query: async <R>(_sql: string, params?: readonly unknown[]) => {
      const orgs = params![0] as string[];
      queries.push(orgs);
      return orgs.filter((o) => heads.has(o)).map((o) => ({ org_id: o, head: String(heads.get(o)) })) as R[];
    },
    listen:
      opts.listen === false
        ? undefined
        : async (_channel, onPayload, onStatus) => {
            if (opts.listen === "fails") throw new Error("no listening here");
            notify = onPayload;
            status = onStatus;
            onStatus?.(true);
            return async () => {
              unsubscribed = true;
            };
          },
  };
  return {
    src,
    heads,
    queries,
    notify: (orgId: string) => notify!(orgId),
    status: (listening: boolean) => status!(listening),
    get unsubscribed() {
      return unsubscribed;
    },
  };
}

const soon = (ms = 2_000) => Date.now() + ms;
const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

describe("ChangeSignals", () => {
  let signals: ChangeSignals | undefined;
  afterEach(async () => {
    await signals?.close();
  });

  it("a notification wakes the waiting requests of its organization only", async () => {
    const s = source();
    signals = new ChangeSignals(s.src, { pollMs: POLL_MS });
    const a = signals.watch("a");
    const b = signals.watch("b");
    await tick();
    expect(signals.receiving).toBe(true);
    const waitA = a.next("5", soon());
    const waitB = b.next("5", soon(300));
    s.notify("a");
    expect(await waitA).toBe(true);
    expect(await waitB).toBe(false);
    expect(s.queries).toEqual([]);
  });

  it("a notification that comes while the request reads ends its next wait at once", async () => {
    const s = source();
    signals = new ChangeSignals(s.src);
    const w = signals.watch("a");
    await tick();
    s.notify("a");
    expect(await w.next("5", soon())).toBe(true);
    // Only once: the next wait waits.
    expect(await w.next("5", Date.now() + 50)).toBe(false);
  });

  it("a wait ends at its deadline, or when the client goes away", async () => {
    signals = new ChangeSignals(source().src);
    const w = signals.watch("a");
    expect(await w.next("5", Date.now() - 1)).toBe(false);
    const abort = new AbortController();
    const waiting = w.next("5", soon(10_000), abort.signal);
    setTimeout(() => abort.abort(), 20);
    expect(await waiting).toBe(false);
    expect(await w.next("5", soon(), AbortSignal.abort())).toBe(false);
  });

  it("without LISTEN, polls the heads of the organizations waited on, and wakes those past the cursor", async () => {
    const s = source({ listen: false });
    signals = new ChangeSignals(s.src, { pollMs: POLL_MS });
    s.heads.set("a", 5);
    const a = signals.watch("a");
    signals.watch("idle");
    const waiting = a.next("5", soon());
    await tick(POLL_MS * 3);
    expect(s.queries.length).toBeGreaterThan(0);
    expect(s.queries.every((orgs) => orgs.join() === "a")).toBe(true);
    s.heads.set("a", 6);
    expect(await waiting).toBe(true);
    expect(signals.receiving).toBe(false);
    // Nobody waits: the polling stops.
    await tick(POLL_MS * 3);
    const n = s.queries.length;
    await tick(POLL_MS * 3);
    expect(s.queries.length).toBe(n);
  });

  it("polls while the listening connection is lost; once it is back, every waiting request reads again", async () => {
    const s = source();
    signals = new ChangeSignals(s.src, { pollMs: POLL_MS });
    const a = signals.watch("a");
    await tick();
    s.heads.set("a", 5);
    s.status(false);
    const waiting = a.next("5", soon());
    await tick(POLL_MS * 3);
    expect(s.queries.length).toBeGreaterThan(0);
    s.status(true);
    expect(await waiting).toBe(true);
    const n = s.queries.length;
    await tick(POLL_MS * 3);
    expect(s.queries.length).toBe(n);
  });

  it("polls when the subscription fails", async () => {
    const s = source({ listen: "fails" });
    signals = new ChangeSignals(s.src, { pollMs: POLL_MS });
    s.heads.set("a", 9);
    const w = signals.watch("a");
    expect(await w.next("8", soon())).toBe(true);
  });

  it("close ends every wait and unsubscribes", async () => {
    const s = source();
    const own = new ChangeSignals(s.src);
    const w = own.watch("a");
    await tick();
    const waiting = w.next("5", soon(10_000));
    await own.close();
    expect(await waiting).toBe(false);
    expect(s.unsubscribed).toBe(true);
  });
});
