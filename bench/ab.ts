// `npm run bench:ab`: what a setting costs page 1, measured in one run. Two production servers of one build
// (scripts/serve.mjs, fast path) on one database differ only by the setting: "off" and "on". Their page 1 of products
// (200) and its 304 (If-None-Match with the page's ETag) are measured at saturation (autocannon, BENCH_CONNECTIONS
// connections, BENCH_DURATION s after BENCH_WARMUP s), one server at a time, in rounds of blocks off, on, on, off, so
// that the machine's drift within minutes weighs on both alike. A round's cost is 1 − (its two "on" blocks' mean ÷ its
// two "off" blocks' mean); the figure is the median of the rounds', each listed.
//
// Settings (BENCH_AB): `usage` (usage and the request log: USAGE_ENABLED and REQUEST_LOG_ENABLED), `rls` (Postgres
// row-level security: DB_ROW_SECURITY), `build` (two builds: "off" served from the checkout at BENCH_AB_BEFORE, with
// its own production build, "on" from this one), or BENCH_AB_OFF/BENCH_AB_ON given as `NAME=value NAME=value`
// (BENCH_AB then names the file).
// Environment: BENCH_DATABASE_URL (a migrated and seeded bench database: `npm run bench` with BENCH_SEED_ONLY=1),
// BENCH_KEY (a read key of an organization of it, by default the bench organization's first: made if missing),
// BENCH_ONLY (products,products-304: the scenarios), BENCH_ROUNDS (3), BENCH_DURATION (10), BENCH_WARMUP (2), BENCH_CONNECTIONS (32), BENCH_POOL_SIZE (10),
// BENCH_TAG (file suffix). Needs a production build (`npm run build`). Writes bench/results/<date>-ab-<BENCH_AB>.md
// and .json.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { openPg } from "@/db/client";
import { freePort, insertKeys, round, waitFor } from "./support";

const require = createRequire(import.meta.url);
const autocannon = require("autocannon") as (opts: Record<string, unknown>) => Promise<{
  requests: { average: number };
  latency: { p50: number; p99: number };
  statusCodeStats: Record<string, { count: number }>;
  errors: number;
  timeouts: number;
}>;

const env = process.env;
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const WORK = path.join(ROOT, "bench/.work");
const RESULTS = path.join(ROOT, "bench/results");
const ROUNDS = Math.max(1, Number(env.BENCH_ROUNDS ?? 3));
const DURATION = Number(env.BENCH_DURATION ?? 10);
const WARMUP = Number(env.BENCH_WARMUP ?? 2);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 32);
const POOL = Number(env.BENCH_POOL_SIZE ?? 10);

const PRESETS: Record<string, { off: Record<string, string>; on: Record<string, string>; what: string }> = {
  usage: {
    what: "usage and the request log (USAGE_ENABLED, REQUEST_LOG_ENABLED)",
    off: { USAGE_ENABLED: "false", REQUEST_LOG_ENABLED: "false" },
    on: { USAGE_ENABLED: "true", REQUEST_LOG_ENABLED: "true" },
  },
  rls: {
    what: "Postgres row-level security (DB_ROW_SECURITY)",
    off: { DB_ROW_SECURITY: "off" },
    on: { DB_ROW_SECURITY: "on" },
  },
  build: {
    what: "this build against the one at BENCH_AB_BEFORE",
    off: {},
    on: {},
  },
};

// `NAME=value NAME=value` as an environment.
function parseEnv(s: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (s ?? "").split(/\s+/).filter(Boolean)) {
    const eq = part.indexOf("=");
    if (eq > 0) out[part.slice(0, eq)] = part.slice(eq + 1);
  }
  return out;
}

function log(msg: string): void {
  console.log(`[ab ${new Date().toISOString().slice(11, 19)}] ${msg}`);
}

const median = (xs: number[]): number => {
  const a = [...xs].sort((x, y) => x - y);
  const m = a.length >> 1;
  return a.length % 2 ? a[m]! : (a[m - 1]! + a[m]!) / 2;
};

// A read key of the bench organization, made for this run when BENCH_KEY is not given.
async function benchKey(url: string): Promise<string> {
  if (env.BENCH_KEY) return env.BENCH_KEY;
  const db = await openPg(url, 1);
  try {
    const [org] = await db.query<{ id: string }>("select id from organizations where slug = 'bench'");
    if (!org)
      throw new Error("no organization 'bench': seed the database with `BENCH_SEED_ONLY=1 npm run bench`");
    const [key] = await insertKeys(db, org.id, "bench:ab", 1);
    return key!;
  } finally {
    await db.close();
  }
}

const children: ChildProcess[] = [];

function serve(
  name: string,
  root: string,
  port: number,
  url: string,
  extra: Record<string, string>,
): ChildProcess {
  const child = spawn(process.execPath, ["scripts/serve.mjs"], {
    cwd: root,
    env: {
      ...process.env,
      NEXT_TELEMETRY_DISABLED: "1",
      NODE_ENV: "production",
      DATABASE_URL: url,
      DB_POOL_SIZE: String(POOL),
      RATE_LIMIT_ENABLED: "false",
      DEMO_SEED: "never",
      PUBLIC_API_PREVIEW: "details",
      AUTH_SECRET: "bench-ab-secret-bench-ab-secret-0123456789",
      PORT: String(port),
      HOSTNAME: "127.0.0.1",
      // One base URL for both: it is part of an answer's ETag (its links), and the 304 scenario sends both servers
      // the tag read from one of them.
      PUBLIC_BASE_URL: "http://127.0.0.1:3000",
      ...extra,
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const logFile = path.join(WORK, `ab-${name}.log`);
  writeFileSync(logFile, "");
  const append = (b: Buffer) => writeFileSync(logFile, b, { flag: "a" });
  child.stdout!.on("data", append);
  child.stderr!.on("data", append);
  children.push(child);
  return child;
}

interface Block {
  variant: "off" | "on";
  rps: number;
  p50: number;
  p99: number;
  unexpected: number;
}

async function block(
  variant: "off" | "on",
  url: string,
  headers: Record<string, string>,
  expected: number,
): Promise<Block> {
  await autocannon({ url, headers, connections: CONNECTIONS, duration: WARMUP });
  const r = await autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION });
  const sent = Object.values(r.statusCodeStats).reduce((a, b) => a + b.count, 0);
  const ok = r.statusCodeStats[String(expected)]?.count ?? 0;
  return {
    variant,
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    unexpected: sent - ok + r.errors + r.timeouts,
  };
}

async function main(): Promise<void> {
  const name = env.BENCH_AB ?? "usage";
  const preset = PRESETS[name];
  const off = env.BENCH_AB_OFF !== undefined ? parseEnv(env.BENCH_AB_OFF) : preset?.off;
  const on = env.BENCH_AB_ON !== undefined ? parseEnv(env.BENCH_AB_ON) : preset?.on;
  if (!off || !on) throw new Error(`BENCH_AB=${name}: no preset; give BENCH_AB_OFF and BENCH_AB_ON`);
  const url = env.BENCH_DATABASE_URL;
  if (!url) throw new Error("BENCH_DATABASE_URL: a seeded bench database (BENCH_SEED_ONLY=1 npm run bench)");
  // The checkout each side serves: this one, or for "off" the one at BENCH_AB_BEFORE (BENCH_AB=build).
  const roots = { off: name === "build" ? path.resolve(env.BENCH_AB_BEFORE ?? "") : ROOT, on: ROOT };
  if (name === "build" && !env.BENCH_AB_BEFORE)
    throw new Error("BENCH_AB=build: BENCH_AB_BEFORE names the checkout to compare with");
  for (const root of Object.values(roots))
    if (!existsSync(path.join(root, ".next", "server-bundle", "server.mjs")))
      throw new Error(`no production build in ${root}: run \`npm run build\` there first`);
  mkdirSync(WORK, { recursive: true });
  mkdirSync(RESULTS, { recursive: true });
  const key = await benchKey(url);
  const ports = { off: await freePort(), on: await freePort() };
  const servers = {
    off: serve("off", roots.off, ports.off, url, off),
    on: serve("on", roots.on, ports.on, url, on),
  };
  const auth = { authorization: `Bearer ${key}` };
  const page = (v: "off" | "on") => `http://127.0.0.1:${ports[v]}/public/v1/products`;
  await Promise.all(
    (["off", "on"] as const).map((v) => waitFor(page(v), { headers: auth, child: servers[v] })),
  );
  const etag = (await fetch(page("off"), { headers: auth })).headers.get("etag");
  if (!etag) throw new Error("page 1 has no ETag");
  const other = (await fetch(page("on"), { headers: auth })).headers.get("etag");
  if (other !== etag)
    throw new Error(`the servers tag page 1 differently (${etag}, ${other}): the 304s would be 200s`);
  const loadBefore = os.loadavg().map((n) => round(n, 2));
  log(`servers up (off :${ports.off}, on :${ports.on}); load ${loadBefore.join(" / ")}`);
  // JIT and first use of both servers.
  for (const v of ["off", "on"] as const)
    await autocannon({ url: page(v), headers: auth, connections: CONNECTIONS, duration: 5 });

  const only = env.BENCH_ONLY?.split(",").filter(Boolean);
  const scenarios = [
    { name: "products", headers: auth, status: 200 },
    { name: "products-304", headers: { ...auth, "if-none-match": etag }, status: 304 },
  ].filter((s) => !only || only.includes(s.name));
  const results: { scenario: string; rounds: { blocks: Block[]; cost: number }[]; cost: number }[] = [];
  for (const s of scenarios) {
    const rounds: { blocks: Block[]; cost: number }[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const blocks: Block[] = [];
      for (const v of ["off", "on", "on", "off"] as const)
        blocks.push(await block(v, page(v), s.headers, s.status));
      const mean = (v: "off" | "on") =>
        blocks.filter((b) => b.variant === v).reduce((a, b) => a + b.rps, 0) / 2;
      const cost = 1 - mean("on") / mean("off");
      rounds.push({ blocks, cost });
      log(
        `${s.name} round ${r + 1}: ${blocks.map((b) => `${b.variant} ${b.rps}`).join(", ")} → ${round(cost * 100)} %`,
      );
    }
    results.push({ scenario: s.name, rounds, cost: median(rounds.map((x) => x.cost)) });
  }
  const loadAfter = os.loadavg().map((n) => round(n, 2));

  const stamp = new Date().toISOString().replace(/[:.]/g, "-").slice(0, 19) + "Z";
  const base = path.join(
    RESULTS,
    `${stamp.slice(0, 10)}-ab-${name}${env.BENCH_TAG ? `-${env.BENCH_TAG}` : ""}`,
  );
  const fmt = (e: Record<string, string>) =>
    Object.entries(e)
      .map(([k, v]) => `${k}=${v}`)
      .join(" ") || "(defaults)";
  writeFileSync(
    `${base}.json`,
    JSON.stringify({ stamp, name, off, on, loadBefore, loadAfter, results }, null, 2),
  );
  const md = [
    `# What ${preset?.what ?? name} costs page 1 (${stamp})`,
    "",
    `${os.cpus().length} CPUs · load before ${loadBefore.join(" / ")}, after ${loadAfter.join(" / ")} · ` +
      `${CONNECTIONS} connections × ${DURATION} s (after ${WARMUP} s warm-up) per block · ${ROUNDS} rounds of ` +
      `blocks off, on, on, off · DB_POOL_SIZE=${POOL} · ` +
      (name === "build" ? `two builds: off ${roots.off}, on ${roots.on}` : "two servers of one build") +
      " (scripts/serve.mjs, fast path), one measured at a time",
    "",
    `off: \`${fmt(off)}\` · on: \`${fmt(on)}\``,
    "",
    "| scenario | cost (median of rounds) | rounds: off / on / on / off req/s → cost | p50 ms off / on | unexpected status |",
    "|---|---:|---|---|---:|",
    ...results.map((r) => {
      const blocks = r.rounds.flatMap((x) => x.blocks);
      const p50 = (v: "off" | "on") => median(blocks.filter((b) => b.variant === v).map((b) => b.p50));
      return (
        `| ${r.scenario} | **${round(r.cost * 100)} %** | ` +
        r.rounds
          .map((x) => `${x.blocks.map((b) => b.rps).join(" / ")} → ${round(x.cost * 100)} %`)
          .join("; ") +
        ` | ${p50("off")} / ${p50("on")} | ${blocks.reduce((a, b) => a + b.unexpected, 0)} |`
      );
    }),
    "",
  ].join("\n");
  writeFileSync(`${base}.md`, md);
  console.log(md);
}

function cleanup(): void {
  for (const c of children) {
    try {
      if (c.pid) process.kill(-c.pid, "SIGTERM");
    } catch {
      // already gone
    }
  }
}

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
