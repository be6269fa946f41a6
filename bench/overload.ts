// `npm run bench:overload`: overload (issue 27 item 5) against a running server. Three phases on one URL (page 1 of
// products by default):
//   (a) saturation: closed loop (autocannon) at increasing connections (BENCH_SATURATION_CONNECTIONS, each for
//       BENCH_SATURATION_SECONDS): the best rate of 200s is the server's saturation;
//   (b) overload: BENCH_OVERLOAD_FACTOR (2) × that rate offered open loop (bench/open-loop.ts: requests leave on a
//       schedule whatever the answers) for BENCH_OVERLOAD_SECONDS (60), split across BENCH_OVERLOAD_CLIENTS generator
//       processes with up to BENCH_OVERLOAD_SOCKETS sockets each (enough that the excess reaches the server rather
//       than waiting in the generator's own agent); each answer timed from its scheduled departure;
//   (c) right after: closed loop again for BENCH_AFTER_SECONDS (10) at the connections of the saturation.
// What it reports: the answers by status, p50/p99/max latency, answers slower than 2 s, 503s without Retry-After,
// errors (no answer within 10 s, a socket refused), the server's RSS at the start, its peak and at the end (with
// BENCH_SERVER_PID: the process and its children, every 250 ms), whether the server stayed up, and the rate of 200s
// right after against the saturation's. The target: the process up, RSS under BENCH_RSS_BOUND_MB (512), every answer
// within 2 s as a 200 or a 503 with Retry-After, the rate right after as before. Writes
// bench/results/<date>-overload[-BENCH_TAG].json and .md.
//
// Environment: BENCH_URL (the server, e.g. http://127.0.0.1:3000), BENCH_KEY (a key with products:read; rate limiting
// should be off on the server, RATE_LIMIT_ENABLED=false, or its 429s are what is measured), BENCH_PATH
// (/public/v1/products), BENCH_SERVER_PID, BENCH_SATURATION_CONNECTIONS (8,16,32,64), BENCH_SATURATION_SECONDS (10),
// BENCH_OVERLOAD_FACTOR (2), BENCH_OVERLOAD_SECONDS (60), BENCH_OVERLOAD_CLIENTS (2), BENCH_OVERLOAD_SOCKETS (512),
// BENCH_AFTER_SECONDS (10), BENCH_RSS_BOUND_MB (512), BENCH_OVERLOAD_RATE (skips (a): the rate to offer), BENCH_TAG,
// BENCH_RESULTS (bench/results).
import { createRequire } from "node:module";
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { openLoopProcess, type OpenLoopResult, type Phase } from "./open-loop";
import { treeRssMb } from "./process-rss";
import { round } from "./support";

const require = createRequire(import.meta.url);
const autocannon = require("autocannon") as (opts: Record<string, unknown>) => Promise<{
  requests: { average: number };
  latency: { p50: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  duration: number;
  "2xx": number;
}>;

const env = process.env;
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const RESULTS = path.resolve(env.BENCH_RESULTS ?? path.join(ROOT, "bench/results"));
const BASE = (env.BENCH_URL ?? "").replace(/\/+$/, "");
const KEY = env.BENCH_KEY ?? "";
const PATH = env.BENCH_PATH ?? "/public/v1/products";
const SERVER_PID = env.BENCH_SERVER_PID ? Number(env.BENCH_SERVER_PID) : undefined;
const SATURATION_CONNECTIONS = (env.BENCH_SATURATION_CONNECTIONS ?? "8,16,32,64")
  .split(",")
  .map((c) => Number(c.trim()))
  .filter((c) => c > 0);
const SATURATION_SECONDS = Number(env.BENCH_SATURATION_SECONDS ?? 10);
const FACTOR = Number(env.BENCH_OVERLOAD_FACTOR ?? 2);
const OVERLOAD_SECONDS = Number(env.BENCH_OVERLOAD_SECONDS ?? 60);
const CLIENTS = Math.max(1, Number(env.BENCH_OVERLOAD_CLIENTS ?? 2));
const SOCKETS = Number(env.BENCH_OVERLOAD_SOCKETS ?? 512);
const AFTER_SECONDS = Number(env.BENCH_AFTER_SECONDS ?? 10);
const RSS_BOUND_MB = Number(env.BENCH_RSS_BOUND_MB ?? 512);
const GIVEN_RATE = env.BENCH_OVERLOAD_RATE ? Number(env.BENCH_OVERLOAD_RATE) : undefined;
// The issue's bound on every answer.
const SLOW_MS = 2000;
const RSS_EVERY_MS = 250;

// Counts by second as text.
function seconds(counts: Record<number, number>): string {
  const entries = Object.entries(counts);
  return entries.length === 0 ? "none" : entries.map(([s, n]) => `${s}: ${n}`).join(", ");
}

// Counts by phase as text.
function where(counts: Record<Phase, number>): string {
  return `queued ${counts.queued}, connect ${counts.connect}, server ${counts.server}`;
}

function log(msg: string): void {
  console.log(`[bench:overload ${new Date().toISOString().slice(11, 19)}] ${msg}`);
}

const URL_ = `${BASE}${PATH}`;
const HEADERS = { authorization: `Bearer ${KEY}` };

// A closed-loop run: the rate of 200s, latency, and what was not a 200.
interface ClosedLoop {
  connections: number;
  seconds: number;
  okPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  non2xx: number;
  errors: number;
}

async function closedLoop(connections: number, seconds: number): Promise<ClosedLoop> {
  const r = await autocannon({ url: URL_, headers: HEADERS, connections, duration: seconds });
  return {
    connections,
    seconds,
    okPerSecond: Math.round(r["2xx"] / (r.duration || seconds)),
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    maxMs: r.latency.max,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
  };
}

// Whether the server's process is still there (no BENCH_SERVER_PID: unknown).
function alive(): boolean | undefined {
  if (SERVER_PID === undefined) return undefined;
  try {
    process.kill(SERVER_PID, 0);
    return true;
  } catch {
    return false;
  }
}

// The server's RSS sampled while `run` runs: at the start, the peak, and whether it stayed up.
async function sampled<T>(
  run: () => Promise<T>,
): Promise<{ value: T; startMb?: number; peakMb?: number; down: boolean }> {
  if (SERVER_PID === undefined) return { value: await run(), down: false };
  const startMb = treeRssMb(SERVER_PID);
  let peakMb = startMb;
  let down = false;
  const timer = setInterval(() => {
    if (!alive()) down = true;
    else peakMb = Math.max(peakMb, treeRssMb(SERVER_PID));
  }, RSS_EVERY_MS);
  try {
    const value = await run();
    return { value, startMb, peakMb, down };
  } finally {
    clearInterval(timer);
  }
}

// The offered load: RATE split across CLIENTS generator processes; their results summed (percentiles: the worst of
// the clients', each of which saw the same schedule's share).
async function overload(rate: number): Promise<OpenLoopResult & { clients: number; rate: number }> {
  const parts = await Promise.all(
    Array.from({ length: CLIENTS }, () =>
      openLoopProcess({
        url: URL_,
        authorizations: [HEADERS.authorization],
        rate: rate / CLIENTS,
        durationSeconds: OVERLOAD_SECONDS,
        maxSockets: SOCKETS,
        timeoutMs: 10_000,
        slowMs: SLOW_MS,
      }),
    ),
  );
  const statuses: Record<string, number> = {};
  for (const p of parts)
    for (const [s, n] of Object.entries(p.statuses)) statuses[s] = (statuses[s] ?? 0) + n;
  const sum = (f: (p: OpenLoopResult) => number) => parts.reduce((a, p) => a + f(p), 0);
  const worst = (f: (p: OpenLoopResult) => number) => Math.max(...parts.map(f));
  return {
    clients: CLIENTS,
    rate,
    sent: sum((p) => p.sent),
    statuses,
    errors: sum((p) => p.errors),
    resent: sum((p) => p.resent),
    p50: worst((p) => p.p50),
    p99: worst((p) => p.p99),
    max: worst((p) => p.max),
    maxLag: worst((p) => p.maxLag),
    slow: sum((p) => p.slow),
    noRetryAfter: sum((p) => p.noRetryAfter),
    slowWhere: phases(parts.map((p) => p.slowWhere)),
    errorWhere: phases(parts.map((p) => p.errorWhere)),
    slowBySecond: bySecond(parts.map((p) => p.slowBySecond)),
    errorsBySecond: bySecond(parts.map((p) => p.errorsBySecond)),
  };
}

// The generators' counts by second of the run, summed.
function bySecond(all: Record<number, number>[]): Record<number, number> {
  const total: Record<number, number> = {};
  for (const one of all)
    for (const [s, n] of Object.entries(one)) total[Number(s)] = (total[Number(s)] ?? 0) + n;
  return total;
}

// The generators' counts by phase, summed.
function phases(all: Record<Phase, number>[]): Record<Phase, number> {
  const total: Record<Phase, number> = { queued: 0, connect: 0, server: 0 };
  for (const one of all) for (const k of Object.keys(total) as Phase[]) total[k] += one[k];
  return total;
}

async function main(): Promise<void> {
  if (!BASE || !KEY)
    throw new Error("BENCH_URL and BENCH_KEY are required (a running server and a key of it)");
  const probe = await fetch(URL_, { headers: HEADERS });
  await probe.arrayBuffer();
  if (probe.status !== 200) throw new Error(`${URL_} answered ${probe.status}`);
  log(`server ${BASE}${SERVER_PID ? ` (pid ${SERVER_PID})` : " (no BENCH_SERVER_PID: no RSS)"}, ${PATH}`);
  const loadBefore = os.loadavg().map((n) => round(n, 2));

  // (a) Saturation.
  const saturation: ClosedLoop[] = [];
  let best: ClosedLoop | undefined;
  if (GIVEN_RATE === undefined) {
    log("warm-up, 5 s …");
    await closedLoop(SATURATION_CONNECTIONS[0] ?? 8, 5);
    for (const c of SATURATION_CONNECTIONS) {
      const r = await closedLoop(c, SATURATION_SECONDS);
      saturation.push(r);
      log(`closed loop, ${c} connections: ${r.okPerSecond} 200s/s (p99 ${r.p99Ms} ms, ${r.non2xx} non-2xx)`);
      if (!best || r.okPerSecond > best.okPerSecond) best = r;
    }
  }
  const rate = GIVEN_RATE ?? Math.round((best?.okPerSecond ?? 0) * FACTOR);
  if (!(rate > 0)) throw new Error("no rate to offer: the saturation measured nothing");
  const afterConnections = best?.connections ?? 32;

  // (b) Overload.
  log(
    `offering ${rate} req/s open loop for ${OVERLOAD_SECONDS} s (${CLIENTS} generators × ${SOCKETS} sockets) …`,
  );
  const during = await sampled(() => overload(rate));
  const o = during.value;
  log(
    `overload: ${JSON.stringify(o.statuses)}, p50 ${o.p50} ms, p99 ${o.p99} ms, max ${o.max} ms, ${o.slow} over 2 s, ` +
      `${o.errors} errors, ${o.noRetryAfter} 503s without Retry-After`,
  );

  // (c) Right after.
  const after = await closedLoop(afterConnections, AFTER_SECONDS);
  log(`right after, ${afterConnections} connections: ${after.okPerSecond} 200s/s`);
  const rssEndMb = SERVER_PID !== undefined && alive() ? treeRssMb(SERVER_PID) : undefined;
  const upAfter = await fetch(URL_, { headers: HEADERS }).then(
    async (r) => (await r.arrayBuffer(), r.status === 200),
    () => false,
  );

  const answered = Object.values(o.statuses).reduce((a, n) => a + n, 0);
  const okOr503 = (o.statuses["200"] ?? 0) + (o.statuses["503"] ?? 0);
  const checks = {
    stayedUp: !during.down && upAfter && alive() !== false,
    rssUnderBound: during.peakMb === undefined ? undefined : during.peakMb <= RSS_BOUND_MB,
    everyAnswerWithin2s: o.slow === 0 && o.errors === 0,
    only200or503: okOr503 === answered && o.errors === 0,
    every503HasRetryAfter: o.noRetryAfter === 0,
    throughputAfter: best ? round(after.okPerSecond / best.okPerSecond, 2) : undefined,
  };
  const date = new Date()
    .toISOString()
    .replace(/:/g, "-")
    .replace(/\.\d+Z$/, "Z");
  const stem = `${date.slice(0, 10)}-overload${env.BENCH_TAG ? `-${env.BENCH_TAG}` : ""}`;
  const results = {
    date,
    server: BASE,
    path: PATH,
    machine: {
      cpus: os.cpus().length,
      loadBefore,
      loadAfter: os.loadavg().map((n) => round(n, 2)),
      node: process.version,
    },
    settings: {
      saturationConnections: SATURATION_CONNECTIONS,
      saturationSeconds: SATURATION_SECONDS,
      factor: FACTOR,
      overloadSeconds: OVERLOAD_SECONDS,
      clients: CLIENTS,
      sockets: SOCKETS,
      afterSeconds: AFTER_SECONDS,
      rssBoundMb: RSS_BOUND_MB,
    },
    saturation,
    saturationOkPerSecond: best?.okPerSecond,
    overload: { ...o, rssStartMb: during.startMb, rssPeakMb: during.peakMb },
    after: { ...after, rssEndMb },
    checks,
  };
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(path.join(RESULTS, `${stem}.json`), `${JSON.stringify(results, null, 2)}\n`);
  const yes = (v: boolean | undefined) => (v === undefined ? "—" : v ? "yes" : "**no**");
  const md = [
    `# Overload bench (${date}, ${os.cpus().length} CPUs)`,
    "",
    `Server ${BASE}, \`GET ${PATH}\`; load average before ${loadBefore.join(" ")}, after ${results.machine.loadAfter.join(" ")}.`,
    "",
    "## Saturation (closed loop)",
    "",
    saturation.length
      ? [
          "| connections | 200s/s | p50 ms | p99 ms | max ms | non-2xx | errors |",
          "|---:|---:|---:|---:|---:|---:|---:|",
          ...saturation.map(
            (s) =>
              `| ${s.connections} | ${s.okPerSecond} | ${s.p50Ms} | ${s.p99Ms} | ${s.maxMs} | ${s.non2xx} | ${s.errors} |`,
          ),
        ].join("\n")
      : `Not measured: BENCH_OVERLOAD_RATE=${GIVEN_RATE}.`,
    "",
    `## Overload: ${rate} req/s offered open loop for ${OVERLOAD_SECONDS} s (${FACTOR}× the saturation)`,
    "",
    `${CLIENTS} generator processes × ${SOCKETS} sockets; each answer timed from its scheduled departure (their worst lag ${o.maxLag} ms).`,
    "",
    "| sent | answers by status | errors | p50 ms | p99 ms | max ms | over 2 s | 503 without Retry-After |",
    "|---:|---|---:|---:|---:|---:|---:|---:|",
    `| ${o.sent} | ${Object.entries(o.statuses)
      .map(([s, n]) => `${s}: ${n}`)
      .join(", ")} | ${o.errors} | ${o.p50} | ${o.p99} | ${o.max} | ${o.slow} | ${o.noRetryAfter} |`,
    "",
    `Where the answers over 2 s spent most of their time: ${where(o.slowWhere)}; the errors: ${where(o.errorWhere)} ` +
      "(queued: in the generator, waiting for a free socket; connect: opening a connection; server: from the " +
      "request written to its answer).",
    "",
    `The seconds of the run they left in (second: count): over 2 s ${seconds(o.slowBySecond)}; errors ` +
      `${seconds(o.errorsBySecond)}.`,
    "",
    `Server RSS (MB): start ${during.startMb ?? "—"}, peak ${during.peakMb ?? "—"}, end ${rssEndMb ?? "—"} (bound ${RSS_BOUND_MB}).`,
    "",
    `## Right after (closed loop, ${afterConnections} connections, ${AFTER_SECONDS} s)`,
    "",
    `${after.okPerSecond} 200s/s (p99 ${after.p99Ms} ms, ${after.non2xx} non-2xx, ${after.errors} errors)` +
      (best ? `: ${checks.throughputAfter}× the saturation's ${best.okPerSecond}.` : "."),
    "",
    "## Checks",
    "",
    `- the server stayed up: ${yes(checks.stayedUp)}`,
    `- RSS peak under ${RSS_BOUND_MB} MB: ${yes(checks.rssUnderBound)}`,
    `- every answer within 2 s: ${yes(checks.everyAnswerWithin2s)}`,
    `- every answer a 200 or a 503: ${yes(checks.only200or503)}`,
    `- every 503 with Retry-After: ${yes(checks.every503HasRetryAfter)}`,
    `- 200s/s right after / at saturation: ${checks.throughputAfter ?? "—"}`,
    "",
  ].join("\n");
  writeFileSync(path.join(RESULTS, `${stem}.md`), md);
  log(`written ${path.relative(ROOT, path.join(RESULTS, `${stem}.md`))}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
