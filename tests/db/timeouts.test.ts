// A database that stops answering (frozen server, lock held by another session) gives 503 PUBLIC_API_UNAVAILABLE
// with Retry-After within 2 s, never a hang; when it answers again, so does the API (the pool is not left full of
// dead connections). Measured before the bounds: under a 12 s freeze at 20 req/s, requests on open connections
// waited the whole 12 s and the others 5.0-7.4 s.
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { openPg, type Database } from "@/db/client";
import { migrate } from "@/db/migrate";
import { seedDemo } from "@/db/seed";
import { displayPrefix, generateApiKey, hashApiKey } from "@/lib/keys/format";
import { READ_SCOPES } from "@/lib/keys/scopes";
import { loadConfig } from "@/lib/config";
import { newId } from "@/db/schema";
import { createRuntime } from "@/lib/runtime";
import { call, expectUnavailable, type ApiResponse, swapRuntime } from "../support/api";
import { startFreezableProxy, type FreezableProxy } from "../support/freezable-proxy";
import { createTestDatabase } from "../support/servers";

const POOL_SIZE = 4;
const CONNECT_TIMEOUT_MS = 500;
const STATEMENT_TIMEOUT_MS = 500;
const BOUND_MS = 2000; // DESIGN: every request answered within 2 s

let t: { url: string; drop: () => Promise<void> };
let setup: Database | undefined;
let app: Database | undefined;
let proxy: FreezableProxy | undefined;
let key: string;

beforeAll(async () => {
  t = await createTestDatabase("timeouts");
  setup = await openPg(t.url, 2);
  await migrate(setup);
  await seedDemo(setup);
  const [org] = await setup.query<{ id: string }>("select id from organizations where slug = 'acme'");
  key = generateApiKey();
  await setup.query(
    `insert into api_keys (id, org_id, name, prefix, key_hash, scopes) values ($1, $2, 'timeouts', $3, $4, $5)`,
    [newId("key"), org!.id, displayPrefix(key), hashApiKey(key), READ_SCOPES],
  );

  const target = new URL(t.url);
  proxy = await startFreezableProxy({ host: target.hostname, port: Number(target.port || 5432) });
  // The app's database goes through the relay, with the bounds under test.
  app = await openPg(proxy.urlFor(t.url), {
    max: POOL_SIZE,
    connectTimeoutMs: CONNECT_TIMEOUT_MS,
    statementTimeoutMs: STATEMENT_TIMEOUT_MS,
  });
  // No key cache: every request reads its key from the database, as an uncached key does.
  const config = loadConfig({
    PUBLIC_BASE_URL: "http://api.test",
    RATE_LIMIT_ENABLED: "false",
    KEY_CACHE_TTL_SECONDS: "0",
    // Every request reads its page from the database (a cached page would be answered while products is locked).
    PAGE_CACHE_MAX_ENTRIES: "0",
    // The same bounds as the pool's: a request waits for a shared count as long as for a connection and a statement.
    DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
    DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
  });
  await swapRuntime(createRuntime(config, app));
});

afterAll(async () => {
  await swapRuntime(undefined);
  proxy?.thaw();
  await app?.close().catch(() => undefined);
  await proxy?.close();
  await setup?.close();
  await t?.drop();
});

// What the pipeline logged for each 503 ("back end unavailable: <reason>"), kept out of the test output.
let logged: string[] = [];
beforeEach(() => {
  logged = [];
  vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
    logged.push(args.map(String).join(" "));
  });
});
afterEach(() => {
  vi.restoreAllMocks();
});

interface Shot {
  start: number;
  end: number;
  res: ApiResponse;
}

async function shot(): Promise<Shot> {
  const start = Date.now();
  const res = await call("/public/v1/products", { key });
  return { start, end: Date.now(), res };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Requests until one answers 200; fails after `withinMs`. */
async function until200(withinMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const s = await shot();
    if (s.res.status === 200) return Date.now() - started;
    expect(Date.now() - started, `no 200 within ${withinMs} ms (last: ${s.res.status})`).toBeLessThan(
      withinMs,
    );
    await sleep(50);
  }
}

describe("database timeouts (Postgres server behind a relay)", () => {
  it("a frozen server: every request answered within 2 s, 503 while frozen, 200 again after", async () => {
    await until200(5000);
    const t0 = Date.now();
    const freezeAt = t0 + 1000;
    const thawAt = t0 + 4000;
    const stopAt = t0 + 6500;
    const shots: Promise<Shot>[] = [];
    const frozenTimer = setTimeout(() => proxy!.freeze(), freezeAt - Date.now());
    const thawTimer = setTimeout(() => proxy!.thaw(), thawAt - Date.now());
    try {
      // An open loop at 20 requests per second: a slow answer does not slow the next request down.
      for (let next = t0; next < stopAt; next += 50) {
        await sleep(Math.max(0, next - Date.now()));
        shots.push(shot());
      }
      const done = await Promise.all(shots);
      const slow = done.filter((s) => s.end - s.start >= BOUND_MS);
      expect(
        slow.map((s) => `${s.start - t0} ms: ${s.res.status} after ${s.end - s.start} ms`),
        "answers slower than 2 s",
      ).toEqual([]);

      // Wholly before the freeze: 200. Wholly inside it: 503 with Retry-After and the contract's body.
      const before = done.filter((s) => s.end < freezeAt);
      expect(before.length).toBeGreaterThan(5);
      for (const s of before) expect(s.res.status).toBe(200);
      const frozen = done.filter((s) => s.start >= freezeAt && s.end < thawAt);
      expect(frozen.length).toBeGreaterThan(30);
      for (const s of frozen) expectUnavailable(s.res);

      // A second after the thaw, every request is answered 200 again.
      const after = done.filter((s) => s.start >= thawAt + 1000);
      expect(after.length).toBeGreaterThan(20);
      expect(after.filter((s) => s.res.status !== 200).map((s) => s.res.status)).toEqual([]);
      // Both bounds were needed: statements on open connections (query_timeout), and connections that could
      // not be taken from the pool or opened (connectionTimeoutMillis).
      expect(logged.some((m) => m.includes("Query read timeout"))).toBe(true);
      expect(logged.some((m) => /timeout exceeded when trying to connect|connection timeout/.test(m))).toBe(
        true,
      );
    } finally {
      clearTimeout(frozenTimer);
      clearTimeout(thawTimer);
      proxy!.thaw();
    }
    // The pool was freed: the connections that timed out were closed, not kept, and twice the pool's size of
    // requests in a row all get a connection.
    for (let i = 0; i < 2 * POOL_SIZE; i++) expect((await shot()).res.status).toBe(200);
    expect(proxy!.connections).toBeLessThanOrEqual(POOL_SIZE);
  }, 30_000);

  it("a lock held by another session: 503 within 2 s (the server cancels the statement), 200 once released", async () => {
    await until200(5000);
    const holder = new pg.Client({ connectionString: t.url });
    await holder.connect();
    try {
      await holder.query("begin");
      await holder.query("lock table products in access exclusive mode");
      // Bounded here too, so that a hang fails the test at once and the lock is released.
      let timer: NodeJS.Timeout | undefined;
      const shots = await Promise.race([
        Promise.all(Array.from({ length: 6 }, () => shot())),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error("requests still unanswered after 3 s")), 3000);
        }),
      ]).finally(() => clearTimeout(timer));
      for (const s of shots) {
        expect(s.end - s.start).toBeLessThan(BOUND_MS);
        expectUnavailable(s.res);
      }
      // The server cancelled the waiting statements itself (statement_timeout): none still waits for the lock.
      // A client that only dropped its connection would leave them waiting until the lock is released.
      await sleep(200);
      const [waiting] = await holder
        .query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid() and wait_event_type = 'Lock'`,
        )
        .then((r) => r.rows);
      expect(waiting!.n).toBe(0);
      expect(logged.some((m) => m.includes("canceling statement due to statement timeout"))).toBe(true);
    } finally {
      await holder.query("rollback").catch(() => undefined);
      await holder.end();
    }
    expect(await until200(2000)).toBeLessThan(2000);
  }, 30_000);

  it("withStatementTimeout: its handle runs one statement past the pool's bound (shared counts), the pool's own statements do not", async () => {
    const direct = await openPg(t.url, { max: 1, connectTimeoutMs: 1000, statementTimeoutMs: 200 });
    try {
      await expect(direct.query("select pg_sleep(0.5)")).rejects.toThrow(/statement timeout/);
      await expect(
        direct.withStatementTimeout(2000).query("select pg_sleep(0.5), 1 as one"),
      ).resolves.toEqual([{ pg_sleep: "", one: 1 }]);
      await expect(direct.withStatementTimeout(300).query("select pg_sleep(0.6)")).rejects.toThrow(
        /statement timeout/,
      );
      // The pool's bound applies again after a statement of that handle (SET LOCAL ended with its transaction).
      await expect(direct.query("select pg_sleep(0.5)")).rejects.toThrow(/statement timeout/);
    } finally {
      await direct.close();
    }
  });
  it("a transaction with its own statement bound (a refresher's, an export's): its statements run past the pool's, up to its own", async () => {
    const direct = await openPg(t.url, { max: 1, connectTimeoutMs: 1000, statementTimeoutMs: 200 });
    try {
      await expect(direct.transaction((tx) => tx.query("select pg_sleep(0.5), 1 as one"))).rejects.toThrow(
        /statement timeout/,
      );
      await expect(
        direct.transaction(
          async (tx) => [
            ...(await tx.query("select pg_sleep(0.5), 1 as one")),
            ...(await tx.query("select pg_sleep(0.4), 2 as one")),
          ],
          { statementTimeoutMs: 2000 },
        ),
      ).resolves.toEqual([
        { pg_sleep: "", one: 1 },
        { pg_sleep: "", one: 2 },
      ]);
      await expect(
        direct.transaction((tx) => tx.query("select pg_sleep(0.6)"), { statementTimeoutMs: 300 }),
      ).rejects.toThrow(/statement timeout/);
      // The pool's bound again after it (SET LOCAL ended with its transaction).
      await expect(direct.query("select pg_sleep(0.5)")).rejects.toThrow(/statement timeout/);
    } finally {
      await direct.close();
    }
  });
});
