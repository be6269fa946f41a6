// The client-side bound of node-postgres statements (db/client.ts StatementWatchdog): one timer per pool instead of
// node-postgres' query_timeout timer per statement. Time is injected; the frozen-server behaviour end to end is
// tests/db/timeouts.test.ts.
import { describe, expect, it } from "vitest";
import { StatementWatchdog, type PooledClient } from "@/db/drivers/statements";

type Callback = (err: Error | undefined, res: { rows: unknown[] }) => void;

// A client whose statements answer when the test says so.
function fakeClient(): PooledClient & { pending: Callback[] } {
  const pending: Callback[] = [];
  const query = (_config: unknown, callback?: unknown) => {
    if (typeof callback !== "function") return Promise.resolve({ rows: [] });
    pending.push(callback as Callback);
    return undefined;
  };
  return { pending, query: query as PooledClient["query"], release() {} };
}

describe("StatementWatchdog", () => {
  it("passes a statement's answer or error through while within its bound", async () => {
    let now = 1_000;
    const w = new StatementWatchdog(100, () => now);
    const c = fakeClient();
    const ok = w.query(c, { text: "select 1" }, 500);
    const bad = w.query(c, { text: "select x" }, 500);
    expect(w.inFlight).toBe(2);
    now += 499;
    w.check();
    c.pending[0]!(undefined, { rows: [{ a: 1 }] });
    c.pending[1]!(new Error("column x does not exist"), { rows: [] });
    await expect(ok).resolves.toEqual({ rows: [{ a: 1 }] });
    await expect(bad).rejects.toThrow("column x does not exist");
    expect(w.inFlight).toBe(0);
    w.close();
  });

  it("fails a statement past its bound with node-postgres' own error, and ignores its late answer", async () => {
    let now = 0;
    const w = new StatementWatchdog(100, () => now);
    const c = fakeClient();
    const slow = w.query(c, { text: "select pg_sleep(10)" }, 500);
    const other = w.query(c, { text: "select 2" }, 2_000);
    now = 500;
    w.check();
    await expect(slow).rejects.toThrow("Query read timeout");
    expect(w.inFlight).toBe(1);
    c.pending[0]!(undefined, { rows: [{ late: true }] }); // ignored
    c.pending[1]!(undefined, { rows: [] });
    await expect(other).resolves.toEqual({ rows: [] });
    w.close();
  });

  it("runs one timer for the pool, not one per statement, and none without a bound", async () => {
    const w = new StatementWatchdog(50);
    const c = fakeClient();
    const unbounded = await w.query(c, { text: "select 1" }, 0);
    expect(unbounded).toEqual({ rows: [] });
    expect(w.inFlight).toBe(0);
    const started = Date.now();
    const slow = w.query(c, { text: "select pg_sleep(10)" }, 120);
    const err = await slow.catch((e: Error) => e);
    expect((err as Error).message).toBe("Query read timeout");
    // Failed within a period after its bound.
    expect(Date.now() - started).toBeGreaterThanOrEqual(115);
    expect(Date.now() - started).toBeLessThan(120 + 50 + 100);
    w.close();
  });
});
