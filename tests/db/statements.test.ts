import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StatementNames, openPg, type Database } from "@/db/client";
import { createTestDatabase } from "../support/servers";

// Named (prepared) statements on the Postgres server driver: one name per statement text, and a statement is
// parsed once per connection, then only bound and executed.

describe("StatementNames", () => {
  it("gives one stable name per text, distinct names to distinct texts, and none past its bound", () => {
    const names = new StatementNames(2);
    const a = names.nameOf("select 1");
    expect(a).toBeDefined();
    expect(names.nameOf("select 1")).toBe(a);
    const b = names.nameOf("select 2");
    expect(b).toBeDefined();
    expect(b).not.toBe(a);
    expect(names.nameOf("select 3")).toBeUndefined();
    expect(names.nameOf("select 1")).toBe(a);
  });
});

describe("prepared statements on the Postgres server", () => {
  let db: Database;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const t = await createTestDatabase("prepared");
    drop = t.drop;
    db = await openPg(t.url, 1);
  });
  afterAll(async () => {
    await db?.close();
    await drop?.();
  });

  it("prepares a parameterised statement once on a connection and reuses it with other values", async () => {
    const text = "select $1::int + 1 as n";
    for (const v of [1, 2, 3]) expect(await db.query<{ n: number }>(text, [v])).toEqual([{ n: v + 1 }]);
    const prepared = await db.query<{ statement: string }>(
      "select statement from pg_prepared_statements where statement = $1",
      [text],
    );
    expect(prepared).toHaveLength(1);
  });

  it("runs statements without parameters, scripts of several included, unprepared", async () => {
    await db.exec("create table t (n int); insert into t values (1), (2);");
    await db.query("insert into t values (3); insert into t values (4)");
    expect(await db.query("select count(*)::int as c from t")).toEqual([{ c: 4 }]);
    const prepared = await db.query<{ n: number }>(
      "select count(*)::int as n from pg_prepared_statements where statement like $1",
      ["%from t%"],
    );
    expect(prepared).toEqual([{ n: 0 }]);
  });
});
