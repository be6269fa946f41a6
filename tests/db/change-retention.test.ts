// The change log's retention (migration 0017), on PGlite and on the Postgres server: events backdated with SQL are
// pruned in batches (a commit larger than a batch in part), each organization's floor rises to its last cursor
// pruned, only a first stretch of a log goes, a cursor below the floor is refused (expired) and one at or after it
// reads on; a commit's `at` is when it committed. On the server, pruning never waits for a writer nor makes one
// wait (time-bounded).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { migrate } from "@/db/migrate";
import { CursorError } from "@/lib/catalog/catalog-errors";
import { pruneChanges } from "@/lib/catalog/feed/change-retention";
import { readChanges } from "@/lib/catalog/feed/changes";
import { catalogContext } from "@/lib/catalog/context";
import { MIRRORED } from "@/lib/catalog/resources/items";
import { openEmptyDatabase, type Driver } from "../support/databases";

const A = "org_cr_a";
const B = "org_cr_b";

// Settles within `ms`, or fails saying what waited.
async function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} waited more than ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe.each(["pglite", "pg"] as const)("the change log's retention on %s", (driver: Driver) => {
  let db: Database;
  let close: () => Promise<void>;
  const ctx = () => catalogContext(db);
  const read = (org: string, after: string) =>
    readChanges(ctx(), { id: org, slug: org }, { after, types: MIRRORED, limit: 100 }, "http://api.test");
  const floor = async (org: string) =>
    (
      await db.query<{ floor: string }>(
        "select coalesce((select floor from catalog_change_floors where org_id = $1), 0)::text as floor",
        [org],
      )
    )[0]!.floor;
  const prune = async (batch: number) =>
    (await db.query<{ n: number }>("select catalog_changes_prune(interval '30 days', $1) as n", [batch]))[0]!
      .n;
  const backdate = (org: string, upto: number) =>
    db.query(
      "update catalog_change_commits set at = now() - interval '40 days' where org_id = $1 and last_cursor <= $2",
      [org, upto],
    );

  beforeAll(async () => {
    ({ db, close } = await openEmptyDatabase(driver, "change_retention", 4));
    await migrate(db);
    for (const org of [A, B]) {
      await db.query("insert into organizations (id, slug, name) values ($1, $1, $1)", [org]);
      // Cursors 1, 2, 3-5 (one commit of three), 6, 7: one transaction each.
      for (const sql of [
        `insert into channels (id, org_id, code, label) values ('${org}_c1', '${org}', 'c1', 'C1')`,
        `update channels set label = 'C1 bis' where id = '${org}_c1'`,
        `insert into channels (id, org_id, code, label)
           values ('${org}_c2', '${org}', 'c2', 'C2'), ('${org}_c3', '${org}', 'c3', 'C3'), ('${org}_c4', '${org}', 'c4', 'C4')`,
        `update channels set label = 'C2 bis' where id = '${org}_c2'`,
        `update channels set label = 'C3 bis' where id = '${org}_c3'`,
      ])
        await db.query(sql);
    }
  }, 120_000);
  afterAll(async () => {
    await close?.();
  });

  it("gives a commit the time it committed, not the time its transaction began", async () => {
    const began = await db.transaction(async (tx) => {
      const [row] = await tx.query<{ began: Date }>("select now() as began");
      await tx.query("update channels set locale = 'en_GB' where id = $1", [`${B}_c4`]);
      await tx.query("select pg_sleep(0.3)");
      return row!.began;
    });
    const [commit] = await db.query<{ at: Date }>(
      "select at from catalog_change_commits where org_id = $1 order by last_cursor desc limit 1",
      [B],
    );
    expect(new Date(commit!.at).getTime() - new Date(began).getTime()).toBeGreaterThanOrEqual(300);
  });

  it("prunes in batches, a large commit in part, and raises the floor to the last cursor pruned", async () => {
    await backdate(A, 5);
    expect(await prune(2)).toBe(2);
    expect(await floor(A)).toBe("2");
    // Two of the three events of the commit 3-5: it keeps cursor 5, its last event (channel c4).
    expect(await prune(2)).toBe(2);
    expect(await floor(A)).toBe("4");
    const page = await read(A, "4");
    expect(page.data.map((e) => [e.cursor, e.id])).toEqual([
      ["5", `${A}_c4`],
      ["6", `${A}_c2`],
      ["7", `${A}_c3`],
    ]);
    await expect(read(A, "3")).rejects.toMatchObject({ reason: "expired", bound: "4" });
    expect(await prune(2)).toBe(1);
    expect(await prune(2)).toBe(0);
    expect(await floor(A)).toBe("5");
    // The other organization's log is whole.
    expect(await floor(B)).toBe("0");
    expect((await read(B, "0")).data.length).toBeGreaterThan(0);
  });

  it("refuses a cursor below the floor (expired), reads on at or after it", async () => {
    const err = await read(A, "4").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CursorError);
    expect(err).toMatchObject({ reason: "expired", cursor: "4", bound: "5" });
    expect((await read(A, "5")).data.map((e) => e.cursor)).toEqual(["6", "7"]);
    expect((await read(A, "6")).data.map((e) => e.cursor)).toEqual(["7"]);
  });

  it("prunes only a first stretch of a log: an old commit after a kept one stays", async () => {
    await backdate(A, 7);
    await db.query("update catalog_change_commits set at = now() where org_id = $1 and last_cursor = 6", [A]);
    expect(await pruneChanges(db, 30)).toBe(0);
    expect(await floor(A)).toBe("5");
    expect((await read(A, "5")).data.map((e) => e.cursor)).toEqual(["6", "7"]);
  });

  if (driver === "pg") {
    it("never makes a writer wait: a write commits while a pruning transaction is open", async () => {
      await backdate(A, 7);
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let pruned!: (n: number) => void;
      const done = new Promise<number>((r) => (pruned = r));
      const pruning = db.transaction(async (tx) => {
        const [row] = await tx.query<{ n: number }>(
          "select catalog_changes_prune(interval '30 days', 1000) as n",
        );
        pruned(row!.n);
        await gate;
      });
      try {
        expect(await within(3_000, "the pruning", done)).toBe(2);
        // The writer locks A's head and adds a commit while the pruning holds its deletions and A's floor.
        await within(
          3_000,
          "a writer of the same organization",
          db.query("update channels set label = 'pendant la purge' where id = $1", [`${A}_c1`]),
        );
        // The reader is not held either: the pruning is not committed, the feed reads as it was.
        expect((await within(3_000, "a reader", read(A, "5"))).data.map((e) => e.cursor)).toEqual([
          "6",
          "7",
          "8",
        ]);
      } finally {
        release();
        await pruning;
      }
      expect(await floor(A)).toBe("7");
      expect((await read(A, "7")).data.map((e) => [e.cursor, e.id])).toEqual([["8", `${A}_c1`]]);
    });

    it("never waits for a writer: a pruning runs while a writer holds its organization's head", async () => {
      await backdate(A, 8);
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let locked!: () => void;
      const holding = new Promise<void>((r) => (locked = r));
      // SET CONSTRAINTS ALL IMMEDIATE: the commit trigger runs at once, and the head row stays locked until commit.
      const writer = db.transaction(async (tx) => {
        await tx.exec("set constraints all immediate");
        await tx.query("update channels set label = 'verrou' where id = $1", [`${A}_c2`]);
        locked();
        await gate;
      });
      try {
        await holding;
        expect(await within(3_000, "the pruning", pruneChanges(db, 30))).toBe(1);
      } finally {
        release();
        await writer;
      }
      expect(await floor(A)).toBe("8");
      expect((await read(A, "8")).data.map((e) => [e.cursor, e.id])).toEqual([["9", `${A}_c2`]]);
    });
  }
});
