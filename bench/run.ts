// `npm run bench`: the catalog at scale (issue 5). Seeds (unless present) a `bench` organization with
// 1,000,000 products and four organizations with 100,000 each, builds and starts the production server twice (its
// own router for /public/ (issue 22), and with PCA_FAST_PATH=off through Next.js), the ceiling (a trivial Next.js route
// handler) and the floor (node:http + pg + the query layer), measures every scenario with autocannon on loopback,
// and writes bench/results/<date>.json, .md and -plans.md.
// Environment: BENCH_DATABASE_URL (else a Postgres server is started under bench/.work on port 55440),
// BENCH_DURATION (s, 10), BENCH_WARMUP (s, 2), BENCH_RATE (req/s, 200), BENCH_HIGH_RATE (req/s, 800: the second
// latency point, page 1 only), BENCH_CONNECTIONS (32),
// BENCH_POOL_SIZE (DB_POOL_SIZE of the servers, 10), BENCH_PRODUCTS (1000000), BENCH_OTHER_PRODUCTS (100000),
// BENCH_ROUNDS (3: saturation rounds per scenario, each paired with one of the ceiling), BENCH_SKIP_BUILD=1
// (reuse .next builds), BENCH_SEED_ONLY=1, BENCH_ONLY (comma-separated scenario names), BENCH_TAG (file suffix),
// BENCH_PAGE_CACHE=off (the servers without their page cache), BENCH_USAGE=off (without usage and the request log),
// BENCH_ROW_SECURITY=off|on (the servers' DB_ROW_SECURITY; default: theirs, off),
// BENCH_RECENT (2000: products given an updatedAt in
// the last hour for the updatedSince scenario), BENCH_MIX_KEYS (20), BENCH_MIX_RATE (req/s, 100: the mix's fixed load).
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { openPg, type Database } from "@/db/client";
import { migrate } from "@/db/migrate";
import { seedOrganization } from "@/db/seed";
import { generateApiKey } from "@/lib/keys/format";
import { loadMix, mixDrawer, type Mix, type MixShape } from "./mix";
import { oneAtATime } from "./one-at-a-time";
import { insertKeys } from "./support";
import { treeRssMb, whenQuiet } from "./process-rss";
import { openLoopProcess } from "./open-loop";
import { buildServerModules } from "../scripts/lib/build";
import { SERVER_NODE_FLAGS } from "../scripts/lib/server-process";

const require = createRequire(import.meta.url);
const autocannon = require("autocannon") as (opts: Record<string, unknown>) => Promise<AutocannonResult>;

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; max: number; average: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodeStats: Record<string, { count: number }>;
  duration: number;
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const WORK = path.join(ROOT, "bench/.work");
const RESULTS = path.join(ROOT, "bench/results");
// A multi-tenant mix as the open-loop generator's process reads it.
const mixFile = (shape: MixShape) => path.join(WORK, `mix-${shape}.json`);

const env = process.env;
// The big-catalog mix's writes: one product of the bench organization relabelled (to its own label) this often, so
// that requests keep meeting a catalog changed since their list was last read (BENCH_MIX_WRITE_MS; 0: none).
const MIX_WRITE_MS = Number(env.BENCH_MIX_WRITE_MS ?? 500);
const DURATION = Number(env.BENCH_DURATION ?? 10);
const WARMUP = Number(env.BENCH_WARMUP ?? 2);
const RATE = Number(env.BENCH_RATE ?? 200);
// Near the through-Next.js path's saturation on this machine: the latency the fast path keeps where the other queues.
const HIGH_RATE = Number(env.BENCH_HIGH_RATE ?? 800);
// Long enough for a stable p99 (6,000 requests): a major GC of the framework's heap (every few seconds under load,
// 10–30 ms of stall, the trivial ceiling included) lands in a 10 s window or not, and moves a 2,000-request p99.
const FIXED_DURATION = Number(env.BENCH_FIXED_DURATION ?? 30);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 32);
// The machine's speed drifts by several per cent within minutes (the floor shows it too): each saturation round
// of a scenario is paired with a round of the ceiling just before it, and the share of the ceiling is the median
// of the rounds' ratios.
const ROUNDS = Math.max(1, Number(env.BENCH_ROUNDS ?? 3));
const POOL = Number(env.BENCH_POOL_SIZE ?? 10);
const BENCH_PRODUCTS = Number(env.BENCH_PRODUCTS ?? 1_000_000);
const OTHER_PRODUCTS = Number(env.BENCH_OTHER_PRODUCTS ?? 100_000);
// app: `npm start`'s server (scripts/serve.mjs) with its fast path; appNext: the same with PCA_FAST_PATH=off, the API
// through Next.js as before issue 16.
// Products of the bench organization given an updatedAt in the last hour before the run (issue 15's scenario).
const RECENT = Number(env.BENCH_RECENT ?? 2_000);
const PORTS = { app: 3410, ceiling: 3411, floor: 3412, appNext: 3413 };
const ORGS = [
  { slug: "bench", name: "Bench", products: BENCH_PRODUCTS, flavour: "home" as const },
  { slug: "bench-b", name: "Bench B", products: OTHER_PRODUCTS, flavour: "fashion" as const },
  { slug: "bench-c", name: "Bench C", products: OTHER_PRODUCTS, flavour: "home" as const },
  { slug: "bench-d", name: "Bench D", products: OTHER_PRODUCTS, flavour: "fashion" as const },
  { slug: "bench-e", name: "Bench E", products: OTHER_PRODUCTS, flavour: "home" as const },
];
const ROTATING_KEYS = 500;
// Keys of each organization in the multi-tenant mix (BENCH_MIX_KEYS).
const MIX_KEYS = Number(env.BENCH_MIX_KEYS ?? 20);
// The mix's fixed load (req/s, BENCH_MIX_RATE): below its saturation on 2 cores (about 250 req/s in runs 16 and 17),
// so that its latency is the requests' and not a queue's.
const MIX_RATE = Number(env.BENCH_MIX_RATE ?? 100);
// Drawn requests checked on both paths and the floor before measuring.
const MIX_SAMPLE = 200;

const children: ChildProcess[] = [];
let stopServices: (() => void) | undefined;

function log(msg: string): void {
  console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}`);
}

function loadAverage(): number[] {
  return os.loadavg().map((n) => Math.round(n * 100) / 100);
}

// The Postgres server: BENCH_DATABASE_URL, or one started under bench/.work (stopped at the end).
async function databaseUrl(): Promise<string> {
  if (env.BENCH_DATABASE_URL) return env.BENCH_DATABASE_URL;
  const dir = path.join(WORK, "services");
  execFileSync("bash", [path.join(ROOT, "scripts/services.sh"), "start", dir, "55440", "56390"], {
    stdio: "inherit",
  });
  stopServices = () =>
    execFileSync("bash", [path.join(ROOT, "scripts/services.sh"), "stop", dir, "55440", "56390"], {
      stdio: "inherit",
    });
  const admin = new pg.Client({ connectionString: "postgres://postgres@127.0.0.1:55440/postgres" });
  await admin.connect();
  const exists = await admin.query("select 1 from pg_database where datname = 'catalog_bench'");
  if (exists.rowCount === 0) await admin.query("create database catalog_bench");
  await admin.end();
  return "postgres://postgres@127.0.0.1:55440/catalog_bench";
}

// Seeds every bench organization that has no products yet; returns the seconds each seed took.
async function seed(db: Database, url: string): Promise<Record<string, number>> {
  const where = new URL(url);
  const timesFile = path.join(WORK, `seed-seconds-${where.port}-${where.pathname.slice(1)}.json`);
  const times: Record<string, number> = existsSync(timesFile)
    ? JSON.parse(readFileSync(timesFile, "utf8"))
    : {};
  for (const org of ORGS) {
    const [row] = await db.query<{ n: number }>(
      "select count(p.id)::int as n from organizations o left join products p on p.org_id = o.id where o.slug = $1",
      [org.slug],
    );
    if (row && row.n > 0) {
      log(`${org.slug}: ${row.n} products already there`);
      continue;
    }
    log(`seeding ${org.slug} with ${org.products} products …`);
    const t0 = performance.now();
    let last = "";
    await seedOrganization(db, {
      ...org,
      onProgress: (p) => {
        if (p.step !== last) log(`  ${org.slug}: ${p.step}`);
        last = p.step;
      },
    });
    times[org.slug] = Math.round((performance.now() - t0) / 100) / 10;
    log(`${org.slug} seeded in ${times[org.slug]} s`);
    writeFileSync(timesFile, JSON.stringify(times, null, 2));
  }
  log("vacuum analyze (visibility map for index-only scans) …");
  await db.exec("vacuum analyze");
  return times;
}

// Fresh keys of an organization, named `name` (those of an earlier run under that name are deleted).
// Fresh keys of the bench organization: one for the scenarios, ROTATING_KEYS for the rotation scenario.
function makeKeys(db: Database, orgId: string): Promise<string[]> {
  return insertKeys(db, orgId, "bench", ROTATING_KEYS + 1);
}

// The multi-tenant mix: MIX_KEYS fresh keys of every bench organization and what the draw needs of each, also
// written to MIX_FILE for the open-loop generator's process.
async function makeMix(db: Database, shape: MixShape): Promise<Mix> {
  const orgs = await db.query<{ id: string; slug: string }>(
    "select id, slug from organizations where slug = any($1::text[]) order by slug",
    [ORGS.map((o) => o.slug)],
  );
  const withKeys = [];
  for (const o of orgs)
    withKeys.push({ ...o, keys: await insertKeys(db, o.id, `bench-mix-${shape}`, MIX_KEYS) });
  const mix: Mix = { ...(await loadMix(db, withKeys)), shape };
  writeFileSync(mixFile(shape), JSON.stringify(mix));
  return mix;
}

interface Scenario {
  name: string;
  /** The multi-tenant mix: every request drawn afresh (path and key); `path` only names it. */
  mix?: Mix;
  /** Writes to the bench organization while measured (MIX_WRITE_MS): the ids relabelled in turn. */
  writes?: { orgId: string; ids: string[] };
  path: string;
  /** Keys to rotate through (default: the main key). */
  keys?: string[];
  /** Paths drawn in turn across all connections (`path` is the first): many distinct requests, each rarely asked
   * twice in a run (a cold read's cost, not the page cache's). */
  paths?: string[];
  /** Expected status (default 200). */
  status?: number;
  /** Page-1 scenario, judged against the ceiling. */
  pageOne: boolean;
  /** Conditional polls (issue 15): the page's current ETag is read first and sent as If-None-Match (a 304). */
  conditional?: boolean;
  /** Extra request headers (filled for conditional scenarios). */
  headers?: Record<string, string>;
}

// Page-cache answers seen during a measured run (the API's Server-Timing header: page-cache;desc=hit|miss).
const pageCache = { hit: 0, miss: 0 };
function countPageCache(headers: Record<string, string | undefined>): void {
  const t = headers["server-timing"];
  if (t?.includes("page-cache;desc=hit")) pageCache.hit++;
  else if (t?.includes("page-cache;desc=miss")) pageCache.miss++;
}

async function scenarios(db: Database, orgId: string, keys: string[]): Promise<Scenario[]> {
  const one = async <R>(sql: string): Promise<R> => (await db.query<R>(sql, [orgId]))[0]!;
  // Products changed in the last hour: BENCH_RECENT of them are given an updatedAt within it (a change like any
  // other: the catalog version moves, and the caches start cold).
  const recentSince = new Date(Date.now() - 3_600_000).toISOString();
  await db.query(
    `update products set updated_at = now() - random() * interval '50 minutes'
      where org_id = $1 and id in (select id from products where org_id = $1 order by id limit $2)`,
    [orgId, RECENT],
  );
  const fc = await one<{ family_id: string; category_id: string }>(
    `select family_id, category_id from products where org_id = $1 and family_id = (select family_id from products where org_id = $1 limit 1)
      group by 1, 2 order by count(*) desc limit 1`,
  );
  const channel = await one<{ id: string }>(
    "select id from channels where org_id = $1 order by code limit 1",
  );
  const parent = await one<{ parent_id: string }>(
    "select parent_id from categories where org_id = $1 and parent_id is not null group by 1 order by count(*) desc limit 1",
  );
  // A word of the catalog's labels that is neither rare nor everywhere.
  const label = await one<{ label: string }>(
    "select label from products where org_id = $1 order by id limit 1 offset 777",
  );
  const word =
    env.BENCH_Q ??
    label.label
      .split(/\s+/)
      .filter((w) => w.length >= 5)
      .sort((a, b) => b.length - a.length)[0] ??
    label.label.slice(0, 5);
  // A product with many values and media: the product read whole (preview `details`, issue 23).
  const detailed = await one<{ product_id: string }>(
    `select product_id from media_links where org_id = $1 and product_id is not null
      group by 1 order by count(*) desc, 1 limit 1`,
  );
  // 50,000 products spread over the catalog, each read whole once or so in a run: a detail read cold (its statement,
  // no page-cache hit).
  const many = await db.query<{ id: string }>(
    "select id from products where org_id = $1 order by md5(id) limit 50000",
    [orgId],
  );
  const invalid = generateApiKey();
  const all: Scenario[] = [
    { name: "products", path: "/public/v1/products", pageOne: true },
    {
      name: "products-q",
      path: `/public/v1/products?q=${encodeURIComponent(word.toLowerCase())}`,
      pageOne: true,
    },
    {
      name: "products-family-category",
      path: `/public/v1/products?familyId=${fc.family_id}&categoryId=${fc.category_id}`,
      pageOne: true,
    },
    { name: "products-sort-label", path: "/public/v1/products?sort=label.asc", pageOne: true },
    { name: "product-detail", path: `/public/v1/products/${detailed.product_id}`, pageOne: true },
    {
      name: "product-detail-many",
      path: `/public/v1/products/${many[0]!.id}`,
      paths: many.map((p) => `/public/v1/products/${p.id}`),
      pageOne: true,
    },
    { name: "products-channel", path: `/public/v1/products?channelId=${channel.id}`, pageOne: true },
    { name: "products-page-5000", path: "/public/v1/products?page=5000", pageOne: false },
    { name: "attributes-type", path: "/public/v1/attributes?type=SELECT", pageOne: true },
    { name: "categories-parent", path: `/public/v1/categories?parentId=${parent.parent_id}`, pageOne: true },
    { name: "media-orphans", path: "/public/v1/media?orphansOnly=true", pageOne: true },
    { name: "invalid-key", path: "/public/v1/products", keys: [invalid], status: 401, pageOne: false },
    { name: "keys-500-rotation", path: "/public/v1/products", keys: keys.slice(1), pageOne: true },
    // Issue 15: a polled first page answered 304 (its ETag sent), and the products changed in the last hour
    // (BENCH_RECENT rows were touched before the run; the plan is in the -plans file).
    { name: "products-304", path: "/public/v1/products", conditional: true, status: 304, pageOne: true },
    {
      name: "products-updated-since-1h",
      path: `/public/v1/products?updatedSince=${encodeURIComponent(recentSince)}`,
      pageOne: true,
    },
  ];
  const only = env.BENCH_ONLY?.split(",").filter(Boolean);
  // Issue 22: the multi-tenant mix, every request drawn afresh (judged against the ceiling and the floor).
  if (!only || only.includes("mix-multi-tenant")) {
    all.push({
      name: "mix-multi-tenant",
      path: "(drawn: 5 resources, filters, sorts, pages, 5 organizations)",
      mix: await makeMix(db, "spread"),
      pageOne: false,
    });
  }
  // Issue 39: the big catalog's shapes (deep pages in every sort, common and rare words, updatedSince windows), with
  // a write every MIX_WRITE_MS: each request may be the first after a write.
  if (!only || only.includes("mix-big-catalog")) {
    all.push({
      name: "mix-big-catalog",
      path: `(drawn: deep pages, searches, windows, other lists, 5 organizations; a write every ${MIX_WRITE_MS} ms)`,
      mix: await makeMix(db, "big-catalog"),
      writes: MIX_WRITE_MS > 0 ? { orgId, ids: many.slice(0, 1000).map((p) => p.id) } : undefined,
      pageOne: false,
    });
  }
  return only ? all.filter((s) => only.includes(s.name)) : all;
}

function start(name: string, cmd: string, args: string[], extraEnv: Record<string, string>): ChildProcess {
  const child = spawn(cmd, args, {
    cwd: ROOT,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...extraEnv },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const logFile = path.join(WORK, `${name}.log`);
  writeFileSync(logFile, "");
  const append = (b: Buffer) => writeFileSync(logFile, b, { flag: "a" });
  child.stdout!.on("data", append);
  child.stderr!.on("data", append);
  children.push(child);
  return child;
}

async function waitFor(
  url: string,
  headers: Record<string, string> = {},
  timeoutMs = 120_000,
): Promise<void> {
  const t0 = Date.now();
  for (;;) {
    try {
      const res = await fetch(url, { headers });
      await res.arrayBuffer();
      if (res.status < 500) return;
    } catch {
      // not listening yet
    }
    if (Date.now() - t0 > timeoutMs) throw new Error(`${url} did not answer within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

interface Measure {
  rps: number;
  p50: number;
  p99: number;
  max: number;
  non2xx: number;
  errors: number;
  unexpected: number;
  rssMb?: number;
  /** Open-loop runs: the generator's worst departure lag (ms). */
  lagMs?: number;
  /** Open-loop runs: requests sent again after the server closed their kept-alive socket (see bench/open-loop.ts). */
  resent?: number;
  /** Saturation runs: the share of 200 answers the page cache served (issue 15). */
  pageCacheHits?: number;
}

// The mix's seeds: each load run draws from the next one (1, 2, …), so that two benchmark runs measure the same
// sequences of requests (a mix's cost is heavy-tailed: seeds from the clock made two runs incomparable).
let mixSeed = 0;
const nextMixSeed = () => ++mixSeed;

// The path a scenario's load generators start from (the mix draws each request's own).
const urlPath = (s: Scenario) => (s.mix ? "/public/v1/products" : s.path);

// The requests of a run: one per key in rotation, each counting the page cache's answers.
function requestsFor(s: Scenario, mainKey: string) {
  if (s.mix) {
    const draw = mixDrawer(s.mix, nextMixSeed());
    return [
      {
        method: "GET",
        setupRequest: (req: { headers?: Record<string, string> }) => {
          const d = draw();
          return { ...req, path: d.path, headers: { ...req.headers, authorization: d.authorization } };
        },
        onResponse: (_status: number, _body: unknown, _ctx: unknown, headers: Record<string, string>) =>
          countPageCache(headers),
      },
    ];
  }
  if (s.paths) {
    const paths = s.paths;
    let next = 0;
    return [
      {
        method: "GET",
        setupRequest: (req: { headers?: Record<string, string> }) => ({
          ...req,
          path: paths[next++ % paths.length],
          headers: { ...req.headers, authorization: `Bearer ${mainKey}` },
        }),
        onResponse: (_status: number, _body: unknown, _ctx: unknown, headers: Record<string, string>) =>
          countPageCache(headers),
      },
    ];
  }
  return (s.keys ?? [mainKey]).map((k) => ({
    method: "GET",
    path: s.path,
    headers: { authorization: `Bearer ${k}`, ...s.headers },
    onResponse: (_status: number, _body: unknown, _ctx: unknown, headers: Record<string, string>) =>
      countPageCache(headers),
  }));
}

async function cannon(
  base: string,
  s: Scenario,
  mainKey: string,
  opts: Record<string, unknown>,
): Promise<AutocannonResult> {
  return autocannon({
    url: `${base}${urlPath(s)}`,
    headers: { authorization: `Bearer ${mainKey}`, ...s.headers },
    requests: requestsFor(s, mainKey),
    ...opts,
  });
}

function summarize(r: AutocannonResult, expected: number): Measure {
  const ok = r.statusCodeStats[String(expected)]?.count ?? 0;
  const sent = Object.values(r.statusCodeStats).reduce((a, b) => a + b.count, 0);
  return {
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    max: r.latency.max,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    unexpected: sent - ok,
  };
}

// Throughput at saturation: CONNECTIONS for DURATION after WARMUP, with the server's RSS sampled.
async function saturate(base: string, s: Scenario, mainKey: string, pid: number): Promise<Measure> {
  await cannon(base, s, mainKey, { connections: CONNECTIONS, duration: WARMUP });
  let rss = 0;
  const sampler = setInterval(() => (rss = Math.max(rss, treeRssMb(pid))), 500);
  pageCache.hit = pageCache.miss = 0;
  const sat = summarize(
    await cannon(base, s, mainKey, { connections: CONNECTIONS, duration: DURATION }),
    s.status ?? 200,
  );
  clearInterval(sampler);
  sat.rssMb = Math.max(rss, treeRssMb(pid));
  const answered = pageCache.hit + pageCache.miss;
  if (answered > 0) sat.pageCacheHits = pageCache.hit / answered;
  return sat;
}

// Latency at RATE req/s, open loop (see bench/open-loop.ts for why not autocannon's overallRate), after a pause
// so that it does not begin in the aftermath of a saturation run (sockets, GC).
async function fixedLoad(
  base: string,
  s: Scenario,
  mainKey: string,
  rate = s.mix ? MIX_RATE : RATE,
): Promise<Measure> {
  await new Promise((r) => setTimeout(r, 2_000));
  const r = await openLoopProcess({
    url: `${base}${urlPath(s)}`,
    ...(s.mix ? { mixFile: mixFile(s.mix.shape ?? "spread"), seed: nextMixSeed() } : {}),
    authorizations: (s.keys ?? [mainKey]).map((k) => `Bearer ${k}`),
    headers: s.headers,
    rate,
    durationSeconds: FIXED_DURATION,
  });
  const ok = r.statuses[String(s.status ?? 200)] ?? 0;
  return {
    rps: rate,
    p50: r.p50,
    p99: r.p99,
    max: r.max,
    non2xx: r.sent - (r.statuses["200"] ?? 0) - r.errors,
    errors: r.errors,
    unexpected: r.sent - ok,
    lagMs: r.maxLag,
    resent: r.resent,
  };
}

// Writes while a scenario is measured (Scenario.writes): a product relabelled to its own label every MIX_WRITE_MS, on a
// connection of its own. Returns the stop, which resolves with the writes made.
function startWriter(url: string, writes: { orgId: string; ids: string[] }): () => Promise<number> {
  const client = new pg.Client({ connectionString: url });
  const connected = client.connect();
  let made = 0;
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void connected
      .then(() =>
        client.query("update products set label = label where org_id = $1 and id = $2", [
          writes.orgId,
          writes.ids[made % writes.ids.length],
        ]),
      )
      .then(() => made++)
      .finally(() => (busy = false));
  }, MIX_WRITE_MS);
  return async () => {
    clearInterval(timer);
    await connected;
    await client.end();
    return made;
  };
}

async function measure(
  base: string,
  s: Scenario,
  mainKey: string,
  pid: number,
): Promise<{ sat: Measure; fixed: Measure }> {
  const sat = await saturate(base, s, mainKey, pid);
  return { sat, fixed: await fixedLoad(base, s, mainKey) };
}

const median = (xs: number[]): number => {
  const a = [...xs].sort((x, y) => x - y);
  const m = a.length >> 1;
  return a.length % 2 ? a[m]! : (a[m - 1]! + a[m]!) / 2;
};

// One figure for several saturation rounds: medians of rates and latencies, worst maximum and memory, all statuses.
function mergeRounds(rounds: Measure[]): Measure {
  return {
    rps: Math.round(median(rounds.map((r) => r.rps))),
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    max: Math.max(...rounds.map((r) => r.max)),
    non2xx: rounds.reduce((n, r) => n + r.non2xx, 0),
    pageCacheHits: rounds.some((r) => r.pageCacheHits !== undefined)
      ? median(rounds.map((r) => r.pageCacheHits ?? 0))
      : undefined,
    errors: rounds.reduce((n, r) => n + r.errors, 0),
    unexpected: rounds.reduce((n, r) => n + r.unexpected, 0),
    rssMb: Math.max(...rounds.map((r) => r.rssMb ?? 0)),
  };
}

function table(results: ResultFile): string {
  const pct = (a: number, b: number) => (b > 0 ? `${Math.round((100 * a) / b)}%` : "–");
  const times = (x: number) => `${x.toFixed(2)}×`;
  const ceiling = results.ceiling.sat.rps;
  const shareCell = (rounds: Rounds | undefined, rps: number) =>
    rounds
      ? `${times(rounds.share)} (${Math.round(median(rounds.ceiling))})`
      : times(rps / Math.max(1, ceiling));
  const lines = [
    `Run ${results.date} · ${results.machine.cpus} CPUs · load before ${results.machine.loadBefore.join(" / ")}, after ${results.machine.loadAfter.join(" / ")} · ` +
      `${CONNECTIONS} connections × ${DURATION} s (after ${WARMUP} s warm-up), ${results.settings.rounds ?? 1} rounds each paired with a round of the ceiling · fixed load ${RATE} req/s × ${FIXED_DURATION} s (open loop) · DB_POOL_SIZE=${results.settings.poolSize} · DB_ROW_SECURITY=${String(results.settings.rowSecurity ?? "off")}`,
    "",
    `Ceiling (trivial Next.js route handler): **${ceiling} req/s** at the start (${results.ceiling.sat.rpsMin ?? ceiling}–${results.ceiling.sat.rpsMax ?? ceiling} over the run's rounds), p50 ${results.ceiling.fixed.p50} ms, p99 ${results.ceiling.fixed.p99} ms at ${RATE} req/s, RSS ${results.ceiling.sat.rssMb} MB.`,
    "",
    "Two paths of the same production server (`npm start`: scripts/serve.mjs): **fast**, /public/ answered by the API's own router on node:http (lib/server/api-host.ts, issue 22); **Next**, the same build with `PCA_FAST_PATH=off`, the API through Next.js' routing as before. " +
      "req/s: median of the rounds; × ceiling: median of each round's ratio to the ceiling's round just before it (in parentheses: the median of those ceiling rounds, req/s); fast ÷ Next: the ratio of the two medians.",
    "",
    "| scenario | fast req/s | × ceiling | Next req/s | × ceiling | fast ÷ Next | floor req/s | fast % of floor | p50 ms @200 fast | p99 ms @200 fast | p99 ms @200 Next | max ms @200 fast | floor p99 @200 | RSS MB fast | page-cache hits fast | unexpected status |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const r of results.scenarios) {
    const n = r.next;
    // The fixed load's rate, when it is not the column's (the mix runs at BENCH_MIX_RATE).
    const at = r.app.fixed.rps === RATE ? "" : ` (@${r.app.fixed.rps})`;
    lines.push(
      `| ${r.name}${at} | ${r.app.sat.rps} | ${shareCell(r.rounds, r.app.sat.rps)} | ${n ? n.sat.rps : "–"} | ${n ? shareCell(n.rounds, n.sat.rps) : "–"} | ` +
        `${n ? times(r.app.sat.rps / Math.max(1, n.sat.rps)) : "–"} | ${r.floor.sat.rps} | ${pct(r.app.sat.rps, r.floor.sat.rps)} | ` +
        `${r.app.fixed.p50} | ${r.app.fixed.p99} | ${n ? n.fixed.p99 : "–"} | ${r.app.fixed.max} | ${r.floor.fixed.p99} | ${r.app.sat.rssMb} | ` +
        `${r.app.sat.pageCacheHits === undefined ? "–" : pct(r.app.sat.pageCacheHits, 1)} | ` +
        `${r.app.sat.unexpected + r.app.fixed.unexpected + (n ? n.sat.unexpected + n.fixed.unexpected : 0)} |`,
    );
  }
  if (results.highRate) {
    const h = results.highRate;
    lines.push(
      "",
      `Latency at ${h.rate} req/s (open loop, ${FIXED_DURATION} s), \`${h.scenario}\`:`,
      "",
      "| path | p50 ms | p99 ms | max ms | unexpected status | generator lag ms |",
      "|---|---:|---:|---:|---:|---:|",
      ...(
        [
          ["fast", h.app],
          ["Next", h.next],
          ["ceiling (`/ping`)", h.ceiling],
        ] as const
      ).map(
        ([name, m]) => `| ${name} | ${m.p50} | ${m.p99} | ${m.max} | ${m.unexpected} | ${m.lagMs ?? "–"} |`,
      ),
    );
  }
  lines.push(
    "",
    `Seeding (s): ${
      Object.entries(results.seedSeconds)
        .map(([k, v]) => `${k} ${v}`)
        .join(" · ") || "–"
    }`,
  );
  return lines.join("\n");
}

/** Saturation rounds: a path's and the paired ceiling's req/s, and the median of their ratios. */
interface Rounds {
  app: number[];
  ceiling: number[];
  share: number;
}

interface ResultFile {
  date: string;
  oneAtATime?: Awaited<ReturnType<typeof oneAtATime>> & { appRssMb: number };
  machine: { cpus: number; loadBefore: number[]; loadAfter: number[]; node: string };
  settings: Record<string, unknown> & { poolSize: number; rounds?: number };
  seedSeconds: Record<string, number>;
  ceiling: { sat: Measure & { rpsMin?: number; rpsMax?: number }; fixed: Measure };
  scenarios: {
    name: string;
    path: string;
    /** The fast path's rounds. */
    rounds?: Rounds;
    /** The fast path (npm start's server). */
    app: { sat: Measure; fixed: Measure };
    /** The same server with PCA_FAST_PATH=off (page-1 scenarios). */
    next?: { sat: Measure; fixed: Measure; rounds: Rounds };
    floor: { sat: Measure; fixed: Measure };
  }[];
  /** The second latency point: page 1 at HIGH_RATE on both paths and the ceiling. */
  highRate?: { scenario: string; rate: number; app: Measure; next: Measure; ceiling: Measure };
}

async function main(): Promise<void> {
  mkdirSync(WORK, { recursive: true });
  mkdirSync(RESULTS, { recursive: true });
  const url = await databaseUrl();
  log(`database ${url.replace(/:\/\/[^@]*@/, "://")}`);
  const db = await openPg(url, 4);
  await migrate(db);
  const seedSeconds = await seed(db, url);
  if (env.BENCH_SEED_ONLY === "1") {
    await db.close();
    return;
  }
  const [org] = await db.query<{ id: string }>("select id from organizations where slug = 'bench'");
  const keys = await makeKeys(db, org!.id);
  const list = await scenarios(db, org!.id, keys);
  await db.close();

  const next = path.join(ROOT, "node_modules/.bin/next");
  if (env.BENCH_SKIP_BUILD !== "1") {
    log("next build (project) …");
    execFileSync(next, ["build"], {
      cwd: ROOT,
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...env, NEXT_TELEMETRY_DISABLED: "1" },
    });
    await buildServerModules(ROOT); // .next/server-bundle/server.mjs: the front door and the fast path of serve.mjs
    log("next build (ceiling) …");
    execFileSync(next, ["build", "bench/ceiling"], {
      cwd: ROOT,
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...env, NEXT_TELEMETRY_DISABLED: "1" },
    });
  }
  const serverEnv = {
    NODE_ENV: "production",
    DATABASE_URL: url,
    DB_POOL_SIZE: String(POOL),
    RATE_LIMIT_ENABLED: "false",
    DEMO_SEED: "never",
    // The preview feature `details` on (the product-detail scenario); V1's answers are the same with it.
    PUBLIC_API_PREVIEW: "details",
    // BENCH_PAGE_CACHE=off: every list answer read from the database (the scenarios repeat one URL, so with the
    // cache on a page is read once per catalog version and the rest are hits: see the hits column).
    ...(env.BENCH_PAGE_CACHE === "off" ? { PAGE_CACHE_MAX_ENTRIES: "0" } : {}),
    // BENCH_USAGE=off: the servers without usage and the request log (issue 26), to measure what they cost on page 1
    // (on by default, as in production; the log keeps at most REQUEST_LOG_MAX_PER_SECOND entries a second).
    ...(env.BENCH_USAGE === "off" ? { USAGE_ENABLED: "false", REQUEST_LOG_ENABLED: "false" } : {}),
    // BENCH_ROW_SECURITY=off|on: the servers' catalog reads without or with row security (issue 27 item 8), to
    // measure what it costs page 1 (each statement in a transaction of its own as catalog_reader).
    ...(env.BENCH_ROW_SECURITY ? { DB_ROW_SECURITY: env.BENCH_ROW_SECURITY } : {}),
  };
  // The production server twice: with its fast path, and with the API through Next.js (PCA_FAST_PATH=off).
  const serve = (name: string, port: number, extra: Record<string, string>) =>
    start(name, process.execPath, [...SERVER_NODE_FLAGS, "scripts/serve.mjs"], {
      ...serverEnv,
      PORT: String(port),
      HOSTNAME: "127.0.0.1",
      PUBLIC_BASE_URL: `http://127.0.0.1:${PORTS.app}`,
      ...extra,
    });
  const app = serve("app", PORTS.app, {});
  const appNext = serve("app-next", PORTS.appNext, { PCA_FAST_PATH: "off" });
  const ceiling = start(
    "ceiling",
    next,
    ["start", "bench/ceiling", "-H", "127.0.0.1", "-p", String(PORTS.ceiling)],
    {
      NODE_ENV: "production",
    },
  );
  const floor = start(
    "floor",
    process.execPath,
    ["--conditions=react-server", "--import", "tsx", "bench/floor/server.ts"],
    {
      ...serverEnv,
      PORT: String(PORTS.floor),
      PUBLIC_BASE_URL: `http://127.0.0.1:${PORTS.app}`,
    },
  );
  const auth = { authorization: `Bearer ${keys[0]}` };
  await Promise.all([
    waitFor(`http://127.0.0.1:${PORTS.app}/public/v1/products`, auth),
    waitFor(`http://127.0.0.1:${PORTS.appNext}/public/v1/products`, auth),
    waitFor(`http://127.0.0.1:${PORTS.ceiling}/ping`),
    waitFor(`http://127.0.0.1:${PORTS.floor}/public/v1/products`, auth),
  ]);
  log("servers up");
  // JIT and first-use warm-up of each server (module loading, pools), beyond each scenario's own warm-up.
  const first = list[0]!;
  await cannon(
    `http://127.0.0.1:${PORTS.ceiling}`,
    { name: "ceiling", path: "/ping", pageOne: false },
    keys[0]!,
    {
      connections: CONNECTIONS,
      duration: 5,
    },
  );
  for (const port of [PORTS.app, PORTS.appNext, PORTS.floor]) {
    await cannon(`http://127.0.0.1:${port}`, first, keys[0]!, { connections: CONNECTIONS, duration: 5 });
  }

  // Sanity: both paths of the app and the floor answer the same page.
  for (const s of list.filter((x) => !x.keys && !x.mix)) {
    const get = async (port: number) => {
      const res = await fetch(`http://127.0.0.1:${port}${s.path}`, { headers: auth });
      return { status: res.status, body: (await res.json()) as { data?: unknown[]; pagination?: unknown } };
    };
    const [a, n, f] = await Promise.all([get(PORTS.app), get(PORTS.appNext), get(PORTS.floor)]);
    // A list's page (its total is the floor's own count), or an item whole.
    const payload = (b: { data?: unknown[] }) => JSON.stringify(b.data ?? b);
    if (a.status !== 200 || payload(a.body) !== payload(f.body)) {
      throw new Error(`${s.name}: the app (${a.status}) and the floor (${f.status}) disagree`);
    }
    if (n.status !== 200 || JSON.stringify(a.body) !== JSON.stringify(n.body)) {
      throw new Error(
        `${s.name}: the fast path (${a.status}) and the path through Next.js (${n.status}) disagree`,
      );
    }
    log(`${s.name}: ${a.body.pagination ? JSON.stringify(a.body.pagination) : "an item"}`);
  }
  // The app's work at start (its biggest organizations' products being read into memory, lib/catalog/memory) ends
  // before anything is checked or measured (while it runs, a deep page read by SQL may wait past its timeout).
  log(
    `app quiet after ${await whenQuiet(app.pid!)} ms, the path through Next.js after ${await whenQuiet(appNext.pid!)} ms`,
  );
  // The mix: a sample of drawn requests answered alike by both paths of the app and the floor.
  for (const s of list.filter((x) => x.mix)) {
    const draw = mixDrawer(s.mix!, 1);
    const failures: string[] = [];
    for (let i = 0; i < MIX_SAMPLE; i++) {
      const d = draw();
      const get = async (port: number) => {
        const res = await fetch(`http://127.0.0.1:${port}${d.path}`, {
          headers: { authorization: d.authorization },
        });
        return { status: res.status, body: await res.text() };
      };
      const [a, n, f] = await Promise.all([get(PORTS.app), get(PORTS.appNext), get(PORTS.floor)]);
      const data = (body: string) => JSON.stringify((JSON.parse(body) as { data: unknown }).data);
      if (a.status !== 200 || a.body !== n.body || f.status !== 200) {
        failures.push(`${d.path}: app ${a.status}, Next ${n.status}, floor ${f.status}`);
      } else if (data(a.body) !== data(f.body)) failures.push(`${d.path}: the app and the floor disagree`);
    }
    if (failures.length) throw new Error(`${s.name}:\n  ${failures.join("\n  ")}`);
    log(`${s.name}: ${MIX_SAMPLE} drawn requests answered alike by both paths and the floor`);
  }

  const loadBefore = loadAverage();
  const date = new Date()
    .toISOString()
    .replace(/\.\d+Z$/, "Z")
    .replace(/:/g, "-");
  const stem = `${date.slice(0, 10)}${env.BENCH_TAG ? `-${env.BENCH_TAG}` : ""}`;

  // EXPLAIN (ANALYZE, BUFFERS) of every scenario's statements, saved beside the results.
  const plans: string[] = [`# EXPLAIN (ANALYZE, BUFFERS) of each scenario's queries (${date})`, ""];
  for (const s of list.filter((x) => !x.keys && !x.mix)) {
    const res = await fetch(`http://127.0.0.1:${PORTS.floor}/__explain?path=${encodeURIComponent(s.path)}`, {
      headers: auth,
    });
    plans.push(`# ${s.name}: \`GET ${s.path}\``, "", await res.text(), "");
  }
  writeFileSync(path.join(RESULTS, `${stem}-plans.md`), plans.join("\n"));
  log("plans written");

  log("ceiling …");
  const ceilingScenario: Scenario = { name: "ceiling", path: "/ping", pageOne: false };
  const ceilingResult = await measure(
    `http://127.0.0.1:${PORTS.ceiling}`,
    ceilingScenario,
    keys[0]!,
    ceiling.pid!,
  );
  log(`ceiling: ${ceilingResult.sat.rps} req/s, p99 ${ceilingResult.fixed.p99} ms`);
  const out: ResultFile["scenarios"] = [];
  const allCeilingRounds = [ceilingResult.sat.rps];
  // Saturation rounds of a server on a scenario, each right after a round of the ceiling.
  const rounds = async (
    port: number,
    pid: number,
    s: Scenario,
  ): Promise<{ merged: Measure; rounds: Rounds }> => {
    const appRounds: Measure[] = [];
    const ceilingRounds: Measure[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      ceilingRounds.push(
        await saturate(`http://127.0.0.1:${PORTS.ceiling}`, ceilingScenario, keys[0]!, ceiling.pid!),
      );
      appRounds.push(await saturate(`http://127.0.0.1:${port}`, s, keys[0]!, pid));
    }
    allCeilingRounds.push(...ceilingRounds.map((r) => r.rps));
    return {
      merged: mergeRounds(appRounds),
      rounds: {
        app: appRounds.map((r) => r.rps),
        ceiling: ceilingRounds.map((r) => r.rps),
        share: median(appRounds.map((r, i) => r.rps / Math.max(1, ceilingRounds[i]!.rps))),
      },
    };
  };
  const unexpected = (m: { sat: Measure; fixed: Measure }) => m.sat.unexpected + m.fixed.unexpected;
  for (const s of list) {
    if (s.conditional) {
      // The page's tag now (both paths share it: one database, one catalog version), sent on every request.
      const res = await fetch(`http://127.0.0.1:${PORTS.app}${s.path}`, { headers: auth });
      s.headers = { "if-none-match": res.headers.get("etag") ?? "" };
    }
    const stopWriter = s.writes ? startWriter(url, s.writes) : undefined;
    const fastRounds = await rounds(PORTS.app, app.pid!, s);
    const a = {
      sat: fastRounds.merged,
      fixed: await fixedLoad(`http://127.0.0.1:${PORTS.app}`, s, keys[0]!),
    };
    // The path through Next.js, side by side, on the page-1 scenarios.
    let n: ResultFile["scenarios"][number]["next"];
    if (s.pageOne) {
      const nextRounds = await rounds(PORTS.appNext, appNext.pid!, s);
      n = {
        sat: nextRounds.merged,
        fixed: await fixedLoad(`http://127.0.0.1:${PORTS.appNext}`, s, keys[0]!),
        rounds: nextRounds.rounds,
      };
    }
    const f = await measure(`http://127.0.0.1:${PORTS.floor}`, s, keys[0]!, floor.pid!);
    if (stopWriter) log(`${s.name}: ${await stopWriter()} writes while measured`);
    const r = fastRounds.rounds;
    log(
      `${s.name}: fast ${a.sat.rps} req/s (${r.app.join(", ")}; ceiling ${r.ceiling.join(", ")}: ${r.share.toFixed(2)}×; p99@${RATE} ${a.fixed.p99} ms, RSS ${a.sat.rssMb} MB)` +
        (n
          ? `, Next ${n.sat.rps} req/s (${n.rounds.app.join(", ")}: ${n.rounds.share.toFixed(2)}×; p99@${RATE} ${n.fixed.p99} ms)`
          : "") +
        `, floor ${f.sat.rps} req/s (p99 ${f.fixed.p99} ms)` +
        (unexpected(a) + (n ? unexpected(n) : 0) > 0
          ? ` — ${unexpected(a) + (n ? unexpected(n) : 0)} unexpected statuses`
          : ""),
    );
    out.push({ name: s.name, path: s.path, rounds: r, app: a, next: n, floor: f });
  }

  // The second latency point, page 1 at HIGH_RATE: both paths and the ceiling.
  let highRate: ResultFile["highRate"];
  const pageOne = list.find((s) => s.name === "products");
  if (pageOne && HIGH_RATE > 0) {
    highRate = {
      scenario: pageOne.path,
      rate: HIGH_RATE,
      app: await fixedLoad(`http://127.0.0.1:${PORTS.app}`, pageOne, keys[0]!, HIGH_RATE),
      next: await fixedLoad(`http://127.0.0.1:${PORTS.appNext}`, pageOne, keys[0]!, HIGH_RATE),
      ceiling: await fixedLoad(`http://127.0.0.1:${PORTS.ceiling}`, ceilingScenario, keys[0]!, HIGH_RATE),
    };
    log(
      `${pageOne.name} at ${HIGH_RATE} req/s: fast p99 ${highRate.app.p99} ms, Next p99 ${highRate.next.p99} ms, ceiling p99 ${highRate.ceiling.p99} ms`,
    );
  }
  // The request classes of the million one at a time (no contention), on the fast path, with the server's RSS after.
  log("one at a time …");
  const single = await oneAtATime({
    baseUrl: `http://127.0.0.1:${PORTS.app}`,
    key: keys[0]!,
    databaseUrl: url,
    orgSlug: "bench",
    log,
  });
  const results: ResultFile = {
    date,
    machine: { cpus: os.cpus().length, loadBefore, loadAfter: loadAverage(), node: process.version },
    settings: {
      connections: CONNECTIONS,
      durationSeconds: DURATION,
      warmupSeconds: WARMUP,
      fixedRate: RATE,
      highRate: HIGH_RATE,
      fixedDurationSeconds: FIXED_DURATION,
      poolSize: POOL,
      rounds: ROUNDS,
      rowSecurity: env.BENCH_ROW_SECURITY ?? "off",
    },
    seedSeconds,
    ceiling: {
      sat: {
        ...ceilingResult.sat,
        rpsMin: Math.min(...allCeilingRounds),
        rpsMax: Math.max(...allCeilingRounds),
      },
      fixed: ceilingResult.fixed,
    },
    scenarios: out,
    highRate,
    oneAtATime: { ...single, appRssMb: treeRssMb(app.pid!) },
  };
  writeFileSync(path.join(RESULTS, `${stem}.json`), `${JSON.stringify(results, null, 2)}\n`);
  const classes = [
    `| one at a time, ${BENCH_PRODUCTS.toLocaleString("en-US")} products | requests | p50 ms | p90 ms | max ms | not 200 |`,
    "|---|---:|---:|---:|---:|---:|",
    ...single.classes.map(
      (c) => `| ${c.name} | ${c.requests} | ${c.p50} | ${c.p90} | ${c.max} | ${c.failed} |`,
    ),
  ].join("\n");
  const md = `# Benchmark ${date}\n\n${table(results)}\n\n${classes}\n\nWords: ${JSON.stringify(single.words)}; the app's RSS after: ${results.oneAtATime!.appRssMb} MB.\n\nPlans: [${stem}-plans.md](./${stem}-plans.md)\n`;
  writeFileSync(path.join(RESULTS, `${stem}.md`), md);
  console.log(`\n${table(results)}\n`);
  log(`results: bench/results/${stem}.json, .md, -plans.md`);
}

function cleanup(): void {
  for (const c of children) {
    try {
      if (c.pid && c.exitCode === null) process.kill(-c.pid, "SIGTERM");
    } catch {
      // already gone
    }
  }
  try {
    stopServices?.();
  } catch {
    // best effort
  }
}

process.on("SIGINT", () => {
  cleanup();
  process.exit(130);
});
main()
  .then(() => {
    cleanup();
    process.exit(0);
  })
  .catch((err: unknown) => {
    console.error(err);
    cleanup();
    process.exit(1);
  });
