// The API served over HTTP on a Postgres cluster of its own, for the fault scenarios (tests/faults, bench/faults.ts):
// a throw-away cluster (postgres-process.ts) migrated and seeded with the demo (acme, globex) and, when asked, a larger
// organization for exports; a runtime with the production defaults (pg driver, DB_CONNECT_TIMEOUT_MS and
// DB_STATEMENT_TIMEOUT_MS of lib/config, the key cache; the page cache off) on it; and npm start's host of the API
// (lib/server/bundle-entry.ts publicApiHost) mounted on node:http on loopback, so that requests go through the real
// router, pipeline and node adapter.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { openDatabase, openPg, type Database } from "@/db/client";
import { newId } from "@/db/schema";
import { migrate } from "@/db/migrate";
import { seedDemo, seedOrganization } from "@/db/seed";
import { loadConfig, type Config } from "@/lib/config";
import { displayPrefix, generateApiKey, hashApiKey } from "@/lib/keys/format";
import { READ_SCOPES, WRITE_SCOPE } from "@/lib/keys/scopes";
import { createRuntime, setRuntime, type Runtime } from "@/lib/runtime";
import { publicApiHost } from "@/lib/server/bundle-entry";
import { startLoad, type Answer, type LoadClient } from "./fault-load";
import { startPostgres, type PostgresProcess } from "./postgres-process";

export interface FaultServer {
  pg: PostgresProcess;
  /** A handle without bounds, for setting up and inspecting (not the API's). */
  admin: Database;
  /** The API's database handle, opened from the configuration as npm start's runtime opens it. */
  db: Database;
  config: Config;
  runtime: Runtime;
  /** http://127.0.0.1:<port> */
  base: string;
  acmeId: string;
  /** The export's organization (`big`), when seeded. */
  bigId?: string;
  /** A key of acme with every read scope and products:write. */
  key: string;
  /** A key of `big` with every read scope. */
  bigKey?: string;
  /** Inserts `n` new keys of acme (every read scope): keys the runtime has never looked up. */
  freshKeys(n: number): Promise<string[]>;
  close(): Promise<void>;
}

// Inserts keys of an organization in one statement; returns their secrets.
export async function insertKeys(
  db: Database,
  orgId: string,
  n: number,
  scopes: readonly string[] = READ_SCOPES,
): Promise<string[]> {
  const keys = Array.from({ length: n }, () => generateApiKey());
  await db.query(
    `insert into api_keys (id, org_id, name, prefix, key_hash, scopes)
     select t.id, $1, 'faults', t.prefix, t.hash, $5 from unnest($2::text[], $3::text[], $4::text[]) as t(id, prefix, hash)`,
    [orgId, keys.map(() => newId("key")), keys.map(displayPrefix), keys.map(hashApiKey), scopes],
  );
  return keys;
}

// Starts the cluster, seeds it, and serves the API on it. `bigProducts`: an organization `big` with that many
// products (for the export). `env`: settings laid over the defaults.
export async function startFaultServer(
  opts: { bigProducts?: number; env?: Record<string, string> } = {},
): Promise<FaultServer> {
  const pg = await startPostgres();
  const admin = await openPg(pg.url, 2);
  await migrate(admin);
  await seedDemo(admin);
  const [acme] = await admin.query<{ id: string }>("select id from organizations where slug = 'acme'");
  const acmeId = acme!.id;
  const [key] = await insertKeys(admin, acmeId, 1, [...READ_SCOPES, WRITE_SCOPE]);
  let bigId: string | undefined;
  let bigKey: string | undefined;
  if (opts.bigProducts) {
    bigId = (await seedOrganization(admin, { slug: "big", name: "Big", products: opts.bigProducts })).orgId;
    [bigKey] = await insertKeys(admin, bigId, 1);
  }
  const config = loadConfig({
    DATABASE_URL: pg.url,
    PUBLIC_BASE_URL: "http://api.test",
    // The scenarios count answers, not quotas: the in-process limiter never refuses them.
    RATE_LIMIT_REQUESTS: "1000000",
    AUTH_FAILURE_LIMIT: "1000000",
    // Every page is read from the database: a page the page cache holds is answered without reading products (only
    // the resource's version), so a lock held on products would not be felt.
    PAGE_CACHE_MAX_ENTRIES: "0",
    PUBLIC_API_PREVIEW: "writes,export",
    ...opts.env,
  });
  const db = await openDatabase(config);
  const runtime = createRuntime(config, db);
  setRuntime(runtime);
  const host = publicApiHost();
  const server = http.createServer((req, res) => host(req, res, req.url!));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    pg,
    admin,
    db,
    config,
    runtime,
    base,
    acmeId,
    bigId,
    key: key!,
    bigKey,
    freshKeys: (n) => insertKeys(admin, acmeId, n),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      setRuntime(undefined);
      if (pg.frozen) pg.thaw();
      if (!pg.running) await pg.start().catch(() => undefined);
      await runtime.close().catch(() => undefined);
      await db.close().catch(() => undefined);
      await admin.close().catch(() => undefined);
      await pg.close();
    },
  };
}

// The clients of the scenarios: page 1 of products and of families, each with the server's cached key (4 clients per
// path) and with keys never used before (3 per path): 14 in all, more than the pool's 10 connections, so that requests
// also wait for one.
export async function pageClients(fx: FaultServer): Promise<LoadClient[]> {
  const fresh = await fx.freshKeys(2000);
  let next = 0;
  const freshKey = () => fresh[next++ % fresh.length]!;
  const cached = () => fx.key;
  const c: LoadClient[] = [];
  for (const path of ["/public/v1/products", "/public/v1/families"]) {
    for (let i = 0; i < 4; i++) c.push({ path, keyKind: "cached", key: cached });
    for (let i = 0; i < 3; i++) c.push({ path, keyKind: "fresh", key: freshKey });
  }
  return c;
}

// Waits until page 1 answers 200 with the cached key (the pool warmed up, the key cached).
export async function until200(fx: FaultServer, path: string, withinMs = 10_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const res = await fetch(fx.base + path, { headers: { authorization: `Bearer ${fx.key}` } });
    await res.arrayBuffer();
    if (res.status === 200) return;
    if (Date.now() > deadline) throw new Error(`${path}: still ${res.status} after ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// The timing of a scenario: healthy before the fault, the fault, then after the recovery (ms).
export interface FaultTiming {
  beforeMs: number;
  faultMs: number;
  afterMs: number;
}

// Runs the page clients through one fault: `beforeMs` healthy, `inject`, `faultMs`, `recover`, `afterMs`; returns every
// answer, when the fault was injected (`faultAt`: before inject() is called) and when the back end was back
// (`recoveredAt`: once recover() has resolved, e.g. Postgres accepting connections again).
export async function runUnderFault(
  fx: FaultServer,
  timing: FaultTiming,
  inject: () => Promise<void> | void,
  recover: () => Promise<void> | void,
): Promise<{ answers: Answer[]; faultAt: number; recoveredAt: number; recoverMs: number }> {
  await until200(fx, "/public/v1/products");
  await until200(fx, "/public/v1/families");
  const load = startLoad(fx.base, await pageClients(fx));
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  await sleep(timing.beforeMs);
  const faultAt = Date.now();
  await inject();
  await sleep(timing.faultMs);
  const recovering = Date.now();
  await recover();
  const recoveredAt = Date.now();
  await sleep(timing.afterMs);
  return { answers: await load.stop(), faultAt, recoveredAt, recoverMs: recoveredAt - recovering };
}
