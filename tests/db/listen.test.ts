// Database.listen (the change feed's notifications) on PGlite and on the Postgres server: a NOTIFY committed on
// another connection reaches the subscriber, nothing after it unsubscribes; on the server, a listening connection
// that is lost is said so and opened again, and notifications come through once more.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { openEmptyDatabase, type Driver } from "../support/databases";

// Resolves once `done` holds (checked every 10 ms), or fails after 5 s.
async function until(done: () => boolean): Promise<void> {
  for (const started = Date.now(); !done(); await new Promise((r) => setTimeout(r, 10))) {
    if (Date.now() - started > 5_000) throw new Error("it never came");
  }
}

describe.each(["pglite", "pg"] as const)("listen on %s", (driver: Driver) => {
  let db: Database;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await openEmptyDatabase(driver, "listen", 3));
  });
  afterAll(async () => {
    await close?.();
  });
  // A subscription to feed_test: the payloads and the statuses it got, and its unsubscribe.
  const subscribe = async () => {
    const got: string[] = [];
    const statuses: boolean[] = [];
    const unsubscribe = await db.listen!(
      "feed_test",
      (p) => got.push(p),
      (s) => statuses.push(s),
    );
    return { got, statuses, unsubscribe };
  };

  it("gets each notification of its channel until it unsubscribes", async () => {
    const { got, statuses, unsubscribe } = await subscribe();
    expect(statuses).toContain(true);
    await db.query("select pg_notify('feed_test', 'one')");
    await db.query("select pg_notify('other_channel', 'not mine')");
    await db.transaction(async (tx) => {
      await tx.query("select pg_notify('feed_test', 'two')");
    });
    await until(() => got.includes("two"));
    expect(got).toEqual(["one", "two"]);
    await unsubscribe();
    await db.query("select pg_notify('feed_test', 'three')");
    await new Promise((r) => setTimeout(r, 100));
    expect(got).toEqual(["one", "two"]);
  });

  if (driver === "pg")
    it("says when its connection is lost, opens it again, and notifications come through again", async () => {
      const { got, statuses, unsubscribe } = await subscribe();
      const killed = await db.query(
        `select pg_terminate_backend(pid) from pg_stat_activity
          where datname = current_database() and query ilike 'listen%' and pid <> pg_backend_pid()`,
      );
      expect(killed).toHaveLength(1);
      // Lost, then listening again.
      await until(() => statuses.includes(false) && statuses.lastIndexOf(true) > statuses.indexOf(false));
      // Notifications until one arrives (the connection may be reopened a moment after the status said so).
      for (let i = 0; i < 50 && !got.includes("back"); i++) {
        await db.query("select pg_notify('feed_test', 'back')");
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(got).toContain("back");
      await unsubscribe();
    });
});
