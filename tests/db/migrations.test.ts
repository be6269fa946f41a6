import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPg, openPglite, openVercel, type Database } from "@/db/client";
import { listMigrations, migrate, migrationStatements } from "@/db/migrate";
import { createTestDatabase, serverDatabaseUrl } from "../support/servers";
import { startVercelRelay, type VercelRelay } from "../support/vercel-relay";

// The migration runner on each of the three drivers: PGlite in memory, node-postgres and
// @vercel/postgres (through a local WebSocket relay) on fresh databases of the test server.

type DriverName = Database["driver"];

let relay: VercelRelay | undefined;
const drops: Array<() => Promise<void>> = [];
const opened: Database[] = [];

async function relayFor(): Promise<VercelRelay> {
  relay ??= await startVercelRelay(serverDatabaseUrl());
  return relay;
}

async function freshUrl(driver: "pg" | "vercel"): Promise<{ url: string }> {
  const { url, drop } = await createTestDatabase(`mig_${driver}`);
  drops.push(drop);
  return { url };
}

// Opens a handle with a pool of `max` connections on a database of the test server, through the given driver.
async function openSized(driver: "pg" | "vercel", url: string, max: number): Promise<Database> {
  let db: Database;
  if (driver === "pg") db = await openPg(url, max);
  else {
    const r = await relayFor();
    db = await openVercel(r.connectionStringFor(url), max, {
      wsProxy: r.wsProxy,
      httpEndpoint: r.httpEndpoint,
    });
  }
  opened.push(db);
  return db;
}

// Opens a handle on a fresh database of the given driver; `again` opens another handle (another pool) on the same database.
async function freshDatabase(driver: DriverName): Promise<{ db: Database; again: () => Promise<Database> }> {
  if (driver === "pglite") {
    const db = await openPglite("memory://");
    opened.push(db);
    return { db, again: () => Promise.reject(new Error("PGlite in memory has one handle")) };
  }
  const { url } = await freshUrl(driver);
  return { db: await openSized(driver, url, 4), again: () => openSized(driver, url, 4) };
}

async function count(db: Database, sql: string): Promise<number | undefined> {
  return (await db.query<{ n: number }>(sql))[0]?.n;
}

async function schemaDump(db: Database) {
  const columns = await db.query(
    `select table_name, column_name, ordinal_position::int as position, data_type, udt_name, is_nullable,
            column_default, is_generated, generation_expression, collation_name
       from information_schema.columns
      where table_schema = 'public'
      order by table_name, ordinal_position`,
  );
  const indexes = await db.query(
    `select tablename, indexname, indexdef from pg_indexes where schemaname = 'public' order by tablename, indexname`,
  );
  const constraints = await db.query(
    `select conrelid::regclass::text as table_name, conname, pg_get_constraintdef(oid) as def
       from pg_constraint
      where connamespace = 'public'::regnamespace and contype <> 'n' -- Postgres 18 also lists NOT NULL here
      order by 1, 2`,
  );
  return { columns, indexes, constraints };
}

afterAll(async () => {
  await Promise.allSettled(opened.map((db) => db.close()));
  await relay?.close();
  await Promise.allSettled(drops.map((drop) => drop()));
});

const dumps = new Map<DriverName, Awaited<ReturnType<typeof schemaDump>>>();

describe.each<DriverName>(["pglite", "pg", "vercel"])("migrate() on %s", (driver) => {
  let db: Database;
  const shipped = listMigrations();

  beforeAll(async () => {
    ({ db } = await freshDatabase(driver));
  });

  it("applies every shipped migration and records each in schema_migrations", async () => {
    expect(shipped.map((m) => m.version)).toContain("0001");
    expect(await migrate(db)).toEqual(shipped.map((m) => m.version));
    const rows = await db.query("select version, name, checksum from schema_migrations order by version");
    expect(rows).toEqual(shipped.map(({ version, name, checksum }) => ({ version, name, checksum })));
    const tables = await db.query<{ table_name: string }>(
      `select table_name from information_schema.tables where table_schema = 'public' order by 1`,
    );
    expect(tables.map((t) => t.table_name)).toEqual(
      expect.arrayContaining([
        "organizations",
        "products",
        "product_values",
        "api_keys",
        "schema_migrations",
      ]),
    );
    // @vercel/postgres reached the server only through the relay's WebSocket.
    if (driver === "vercel") expect(relay?.stats.wsConnections).toBeGreaterThan(0);
  });

  it("applies nothing the second time and leaves the schema unchanged", async () => {
    const before = await schemaDump(db);
    expect(before.columns.length).toBeGreaterThan(50);
    expect(before.indexes.length).toBeGreaterThan(20);
    expect(await migrate(db)).toEqual([]);
    expect(await schemaDump(db)).toEqual(before);
    expect(await count(db, "select count(*)::int as n from schema_migrations")).toBe(shipped.length);
    dumps.set(driver, before);
  });

  const statementsChecksum = (sql: string) =>
    createHash("sha256").update(migrationStatements(sql)).digest("hex");

  it("refuses a migration whose statements changed after it was applied, and stays usable", async () => {
    const first = shipped[0]!;
    const sql = `${first.sql}\nselect 1;\n`;
    const tampered = [{ ...first, sql, checksum: statementsChecksum(sql) }, ...shipped.slice(1)];
    await expect(migrate(db, tampered)).rejects.toThrow(
      `Migration ${first.version}_${first.name} was changed after it was applied; add a new migration instead.`,
    );
    // The same when the recorded checksum is the one that differs.
    await db.query("update schema_migrations set checksum = 'tampered' where version = $1", [first.version]);
    await expect(migrate(db)).rejects.toThrow(/was changed after it was applied/);
    await db.query("update schema_migrations set checksum = $1 where version = $2", [
      first.checksum,
      first.version,
    ]);
    // The failed runs released the advisory lock: a new run finishes (and applies nothing).
    expect(await migrate(db)).toEqual([]);
  });

  it("accepts a migration whose comments were reworded after it was applied", async () => {
    const first = shipped[0]!;
    const sql = `-- reworded after release\n${first.sql.replace(/\n/g, "\n\n")}\n/* and a block comment */\n`;
    const reworded = [{ ...first, sql, checksum: statementsChecksum(sql) }, ...shipped.slice(1)];
    expect(reworded[0]!.checksum).toBe(first.checksum);
    expect(await migrate(db, reworded)).toEqual([]);
  });

  it("brings a checksum recorded in its earlier form (the whole text's hash) up to date", async () => {
    // A migration unchanged since a database recorded its whole text's hash, and one whose comments were reworded
    // since (its earlier hash listed in db/migrations/earlier-checksums.json).
    const unchanged = shipped.find((m) => m.version === "0001")!;
    const reworded = shipped.find((m) => m.version === "0011")!;
    const earlier = JSON.parse(
      readFileSync(path.join(import.meta.dirname, "../../db/migrations/earlier-checksums.json"), "utf8"),
    ) as Record<string, string>;
    expect(earlier["0011"]).toMatch(/^[0-9a-f]{64}$/);
    await db.query("update schema_migrations set checksum = $1 where version = $2", [
      createHash("sha256").update(unchanged.sql).digest("hex"),
      unchanged.version,
    ]);
    await db.query("update schema_migrations set checksum = $1 where version = $2", [
      earlier["0011"],
      reworded.version,
    ]);
    expect(await migrate(db)).toEqual([]);
    const rows = await db.query<{ version: string; checksum: string }>(
      "select version, checksum from schema_migrations where version in ('0001', '0011') order by version",
    );
    expect(rows).toEqual([
      { version: "0001", checksum: unchanged.checksum },
      { version: "0011", checksum: reworded.checksum },
    ]);
  });

  it("applies a new migration after the shipped ones, once", async () => {
    const extra = {
      version: "9001",
      name: "test_extra",
      sql: "create table test_extra (id int primary key); insert into test_extra values (1), (2);",
      checksum: createHash("sha256").update("9001").digest("hex"),
    };
    expect(await migrate(db, [...shipped, extra])).toEqual(["9001"]);
    expect(await migrate(db, [...shipped, extra])).toEqual([]);
    expect(await count(db, "select count(*)::int as n from test_extra")).toBe(2);
  });

  it("rolls back a migration that fails half-way and records nothing for it", async () => {
    const broken = {
      version: "9002",
      name: "test_broken",
      sql: "create table test_broken (id int); insert into test_broken values ('not a number');",
      checksum: createHash("sha256").update("9002").digest("hex"),
    };
    await expect(migrate(db, [...shipped, broken])).rejects.toThrow(/integer/);
    const left = await db.query("select 1 from information_schema.tables where table_name = 'test_broken'");
    expect(left).toEqual([]);
    expect(await db.query("select 1 from schema_migrations where version = '9002'")).toEqual([]);
  });
});

describe("the schema after migrate()", () => {
  it("is the same on PGlite (Postgres 18) as on the Postgres server, and the same through both server drivers", () => {
    const pglite = dumps.get("pglite");
    const pg = dumps.get("pg");
    const vercel = dumps.get("vercel");
    expect(pglite && pg && vercel).toBeTruthy();
    expect(vercel).toEqual(pg);
    expect(pglite!.columns).toEqual(pg!.columns);
    expect(pglite!.indexes).toEqual(pg!.indexes);
    expect(pglite!.constraints).toEqual(pg!.constraints);
  });
});

describe.each<"pg" | "vercel">(["pg", "vercel"])("concurrent migrate() on %s", (driver) => {
  it("serialises runs from several processes with the advisory lock: one applies, the others find nothing to do", async () => {
    const { db, again } = await freshDatabase(driver);
    const handles = [db, await again(), await again()];
    const results = await Promise.all(handles.map((h) => migrate(h)));
    const versions = listMigrations().map((m) => m.version);
    expect(results.filter((r) => r.length > 0)).toEqual([versions]);
    expect(results.filter((r) => r.length === 0)).toHaveLength(handles.length - 1);
    expect(await count(db, "select count(*)::int as n from schema_migrations")).toBe(versions.length);
  });

  // A session-level advisory lock taken through a pool could land on another connection than the work (and is
  // re-entrant): migrate() runs in one transaction holding pg_advisory_xact_lock, so callers sharing a pool serialise.
  it("serialises concurrent runs sharing one small pool (several callers in one process)", async () => {
    const { url } = await freshUrl(driver);
    const db = await openSized(driver, url, 1);
    const results = await Promise.race([
      Promise.all([migrate(db), migrate(db), migrate(db)]),
      new Promise<never>((_, reject) =>
        setTimeout(
          () => reject(new Error("concurrent migrate() calls on one pool did not finish in 30 s")),
          30_000,
        ),
      ),
    ]);
    expect(results.flat()).toEqual(listMigrations().map((m) => m.version));
  });
});
