// `npm run bench:webhooks`: webhooks (issue 25, preview feature `webhooks`) from a commit to a local receiver. The
// engine runs in this process as a server's would (lib/webhooks/engine.ts: its queue, the dispatcher woken by the
// feed's notifications, the worker), on the database at DATABASE_URL (a bench or scratch database: it is migrated,
// and a scratch organization is made and deleted) or, without it, on an in-memory PGlite. Two measures:
//   (a) latency: BENCH_CHANGES categories of the scratch organization created one transaction each at
//       BENCH_RATE/s (50); from the moment a commit returns to the moment the receiver holds its event (p50/p99),
//       which covers the notification, the dispatch (the feed read, the delivery queued), the worker's claim, the
//       signing and the POST;
//   (b) throughput: BENCH_BACKLOG changes (5,000) committed in transactions of 500 while the engine is stopped, then
//       the engine started: deliveries/s until the receiver has them all (a fast receiver: 200 at once);
//   (c) with BENCH_URL and BENCH_KEY (a server of the same database with the preview on, and a key of another
//       organization): the server's page 1 of products (autocannon, 10 connections, BENCH_PAGE_SECONDS each) while the
//       scratch organization changes at BENCH_RATE/s, in blocks without and with an endpoint of it enabled (then the
//       server's own engine delivers every change to this receiver), in the order off, on, on, off. The changes are
//       made in both (they cost the database and the server's feed alike): what differs is the deliveries.
// The receiver is a process of its own (bench/receiver.ts): in (c) it would otherwise share an event loop with the
// page-1 load generator, and its work would be charged to page 1. Each block also reports the CPU of this process.
// Writes results to bench/results/<date>-webhooks[-BENCH_TAG].json and .md.
//
// Environment: DATABASE_URL (optional), BENCH_CHANGES (500), BENCH_RATE (50), BENCH_BACKLOG (5000),
// BENCH_CONCURRENCY (workers) and BENCH_BATCH (attempts per worker at once): the engine's defaults unless set,
// BENCH_TAG (file suffix); for (c) BENCH_URL, BENCH_KEY, BENCH_PAGE_SECONDS (15), BENCH_PAGE_CONNECTIONS (10; 0: no
// page-1 load, what the deliveries alone cost), BENCH_ROUNDS (1: rounds of the blocks off, on, on, off; the median of
// the rounds' changes is reported), BENCH_SERVER_PID (the server's CPU a second in each block, beside Postgres'),
// BENCH_CONTROL=1 (control rounds interleaved, whose "on" blocks deliver nothing: the measure's own noise),
// BENCH_RECEIVER_NICE (19: the receiver stands in for an integrator's host, so on this machine it takes only the CPU
// nothing else wants; 0 as in runs up to 34).
import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import { mkdirSync, writeFileSync } from "node:fs";
import { fork } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { openPg, openPglite, type Database } from "@/db/client";
import { migrate } from "@/db/migrate";
import { AnchorCache } from "@/lib/catalog/list/page-anchors";
import { CountCache } from "@/lib/catalog/list/count-cache";
import { VersionReads } from "@/lib/catalog/list/version-reads";
import { loadConfig } from "@/lib/config";
import { WebhookEngine } from "@/lib/webhooks/engine";
import { createEndpoint, endpointInputSchema } from "@/lib/webhooks/endpoints";
import type { ReceiverMessage } from "./receiver";
import { commandCpuMs, cpuBetween, processCpuMs, treeCpuMs } from "./process-rss";
import { percentile, round, welch } from "./support";

const env = process.env;
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const RESULTS = path.join(ROOT, "bench/results");
const CHANGES = Number(env.BENCH_CHANGES ?? 500);
const RATE = Number(env.BENCH_RATE ?? 50);
const BACKLOG = Number(env.BENCH_BACKLOG ?? 5000);
const CONCURRENCY = env.BENCH_CONCURRENCY ? Number(env.BENCH_CONCURRENCY) : undefined;
const BATCH = env.BENCH_BATCH ? Number(env.BENCH_BATCH) : undefined;
const PAGE_SECONDS = Number(env.BENCH_PAGE_SECONDS ?? 15);
const PAGE_CONNECTIONS = Number(env.BENCH_PAGE_CONNECTIONS ?? 10);
const ROUNDS = Math.max(1, Number(env.BENCH_ROUNDS ?? 1));
// (c) with control rounds (BENCH_CONTROL=1): as many rounds again, interleaved with the real ones (real, control;
// control, real; ...), whose "on" blocks leave the endpoint off: their changes are what the same blocks differ by
// when nothing differs, the noise the real rounds are judged against, under the same drift.
const CONTROL = env.BENCH_CONTROL === "1";
const RECEIVER_NICE = Number(env.BENCH_RECEIVER_NICE ?? 19);
const SERVER_PID = env.BENCH_SERVER_PID ? Number(env.BENCH_SERVER_PID) : undefined;
// The measures to take (BENCH_PARTS, e.g. "a,b"): (a) and (b) by default, (c) alone with BENCH_URL and BENCH_KEY (a
// server on the same database runs an engine of its own, which would take a share of (a)'s and (b)'s deliveries).
const PARTS = new Set(
  (env.BENCH_PARTS ?? (env.BENCH_URL && env.BENCH_KEY ? "c" : "a,b")).split(",").map((p) => p.trim()),
);

const require = createRequire(import.meta.url);
const autocannon = require("autocannon") as (opts: Record<string, unknown>) => Promise<{
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
}>;

// Now on the timeline the receiver's arrivals are on (ms, the wall clock's high resolution).
const now = () => performance.timeOrigin + performance.now();

// The receiver process (bench/receiver.ts) at RECEIVER_NICE, listening; take() reads the arrivals since the last take.
async function startReceiver(): Promise<{
  pid: number;
  port: number;
  take(): Promise<{ received: number; arrivals: [string, number][] }>;
  stop(): void;
}> {
  const child = fork(path.join(ROOT, "bench/receiver.ts"), [], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  os.setPriority(child.pid!, RECEIVER_NICE);
  const waiting: ((m: ReceiverMessage) => void)[] = [];
  child.on("message", (m) => waiting.shift()?.(m as ReceiverMessage));
  const next = () => new Promise<ReceiverMessage>((resolve) => waiting.push(resolve));
  const first = await next();
  if (!("port" in first)) throw new Error("the receiver did not say its port");
  return {
    pid: child.pid!,
    port: first.port,
    take: async () => {
      const answer = next();
      child.send("take");
      const m = await answer;
      if (!("arrivals" in m)) throw new Error("the receiver answered a take with its port");
      return m;
    },
    stop: () => {
      if (child.connected) child.send("stop");
    },
  };
}

function log(msg: string): void {
  console.log(`[bench:webhooks] ${msg}`);
}

async function main(): Promise<void> {
  const url = env.DATABASE_URL;
  const db: Database = url ? await openPg(url, 6) : await openPglite("memory://");
  await migrate(db);
  const orgId = `org_bench_hooks_${randomBytes(4).toString("hex")}`;
  await db.query(`insert into organizations (id, slug, name) values ($1, $1, 'Bench webhooks')`, [orgId]);
  // The receiver, a process of its own (bench/receiver.ts): fast, answers at once; the arrival of each category's
  // event is read from it (take) on the timeline both processes share.
  const arrived = new Map<string, number>();
  let received = 0;
  const receiver = await startReceiver();
  const take = async () => {
    const got = await receiver.take();
    received = got.received;
    for (const [id, at] of got.arrivals) if (!arrived.has(id)) arrived.set(id, at);
  };
  const receiverUrl = `http://127.0.0.1:${receiver.port}/hook`;
  const config = loadConfig({
    PUBLIC_BASE_URL: "http://bench.test",
    PUBLIC_API_PREVIEW: "webhooks",
    WEBHOOKS_ALLOW_PRIVATE_URLS: "true",
    ...(url ? { DATABASE_URL: url } : {}),
  });
  const ctx = {
    db,
    counting: db,
    counts: new CountCache(),
    anchors: new AnchorCache(),
    versions: new VersionReads(),
  };
  const engineOpts = {
    ...(CONCURRENCY ? { concurrency: CONCURRENCY } : {}),
    ...(BATCH ? { batchSize: BATCH } : {}),
    dispatchIntervalMs: 1000,
  };
  let engine = new WebhookEngine({ config, db: async () => db, catalog: async () => ctx }, engineOpts);
  const { endpoint } = await createEndpoint(
    db,
    orgId,
    endpointInputSchema.parse({ url: receiverUrl, types: ["categories"] }),
  );
  // Numbered across the run (3 random bytes alone collided once in the 6,000 creations of (c): bench run 24).
  let made = 0;
  const create = async (n: number, tag: string) => {
    const ids = Array.from({ length: n }, () => `cat_${tag}_${made++}_${randomBytes(3).toString("hex")}`);
    await db.transaction(async (tx) => {
      for (const id of ids)
        await tx.query(`insert into categories (id, org_id, slug, label) values ($1, $2, $3, $3)`, [
          id,
          orgId,
          id.toLowerCase(),
        ]);
    });
    return ids;
  };
  const waitAll = async (ids: string[], timeoutMs: number) => {
    const end = Date.now() + timeoutMs;
    for (;;) {
      await take();
      if (Date.now() >= end || ids.every((id) => arrived.has(id))) return;
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  try {
    let latency: Record<string, number> | undefined;
    if (PARTS.has("a")) {
      // (a) latency at RATE changes/s.
      await engine.start();
      log(`latency: ${CHANGES} changes at ${RATE}/s on ${db.driver}`);
      const committed = new Map<string, number>();
      const started = performance.now();
      for (let i = 0; i < CHANGES; i++) {
        const due = started + (i * 1000) / RATE;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const [id] = await create(1, "lat");
        committed.set(id!, now());
      }
      await waitAll([...committed.keys()], 60_000);
      const latencies = [...committed]
        .filter(([id]) => arrived.has(id))
        .map(([id, at]) => arrived.get(id)! - at);
      latency = {
        changes: CHANGES,
        rate: RATE,
        delivered: latencies.length,
        p50Ms: round(percentile(latencies, 50)),
        p90Ms: round(percentile(latencies, 90)),
        p99Ms: round(percentile(latencies, 99)),
        maxMs: round(Math.max(...latencies)),
      };
      log(`latency: ${JSON.stringify(latency)}`);
    }
    let throughput: Record<string, number> | undefined;
    if (PARTS.has("b")) {
      // (b) throughput: a backlog delivered from a cold start of the engine.
      await engine.stop();
      log(`throughput: a backlog of ${BACKLOG} changes`);
      const backlog: string[] = [];
      for (let done = 0; done < BACKLOG; done += 500)
        backlog.push(...(await create(Math.min(500, BACKLOG - done), "tp")));
      await take();
      const before = received;
      engine = new WebhookEngine({ config, db: async () => db, catalog: async () => ctx }, engineOpts);
      const t0 = performance.now();
      await engine.start();
      await waitAll(backlog, 600_000);
      const seconds = (performance.now() - t0) / 1000;
      const got = backlog.filter((id) => arrived.has(id)).length;
      throughput = {
        backlog: BACKLOG,
        delivered: got,
        requests: received - before,
        seconds: round(seconds, 2),
        deliveriesPerSecond: round(got / seconds),
        workers: engine.opts.concurrency,
        batchSize: engine.opts.batchSize,
      };
      log(`throughput: ${JSON.stringify(throughput)}`);
    }
    // (c) the server's page 1 while its engine delivers (or not) the scratch organization's changes.
    await engine.stop();
    let pageOne: PageOneResult | undefined;
    if (PARTS.has("c")) {
      pageOne = await pageOneWhileDelivering(
        db,
        orgId,
        endpoint.id,
        create,
        async () => (await take(), received),
        (id) => arrived.get(id),
        receiver.pid,
      );
      log(`page 1: ${JSON.stringify(pageOne)}`);
    }

    const result = {
      at: new Date().toISOString(),
      driver: db.driver,
      host: { cpus: os.cpus().length, node: process.version },
      latency,
      throughput,
      pageOne,
    };
    mkdirSync(RESULTS, { recursive: true });
    const name = `${result.at.slice(0, 10)}-webhooks${env.BENCH_TAG ? `-${env.BENCH_TAG}` : ""}`;
    writeFileSync(path.join(RESULTS, `${name}.json`), `${JSON.stringify(result, null, 2)}\n`);
    writeFileSync(
      path.join(RESULTS, `${name}.md`),
      [
        `# Webhooks bench (${result.at}, ${db.driver}, ${os.cpus().length} CPUs)`,
        "",
        ...(latency
          ? [
              `Commit → delivered to a local receiver, ${CHANGES} changes at ${RATE}/s: p50 ${latency.p50Ms} ms, p90 ${latency.p90Ms} ms, p99 ${latency.p99Ms} ms, max ${latency.maxMs} ms (${latency.delivered}/${CHANGES} delivered).`,
              "",
            ]
          : []),
        ...(throughput
          ? [
              `Sustained deliveries to a fast receiver, a backlog of ${BACKLOG} from a cold engine, ${throughput.workers} workers × ${throughput.batchSize} attempts at once: ${throughput.deliveriesPerSecond}/s (${throughput.delivered} in ${throughput.seconds} s).`,
              "",
            ]
          : []),
        ...(pageOne ? pageOneMarkdown(pageOne) : []),
      ].join("\n"),
    );
    log(`wrote bench/results/${name}.json and .md`);
  } finally {
    await engine.stop();
    await db.query(`delete from organizations where id = $1`, [orgId]);
    receiver.stop();
    await db.close();
  }
}

// One block of (c): page 1's figures, and the deliveries the receiver got meanwhile.
interface PageOneBlock {
  deliveries: boolean;
  /** A control round's block: its endpoint stays off even in an "on" block. */
  control: boolean;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  changes: number;
  delivered: number;
  /** With deliveries: from each change's commit to its event at the receiver (ms), of those delivered within the
   * block and 2 s after it; `late`, the block's changes not delivered by then. */
  deliveryP50Ms?: number;
  deliveryP99Ms?: number;
  late?: number;
  /** CPU used a second during the block (ms/s): the server's process alone (BENCH_SERVER_PID; until run 34 this
   * figure counted its children too), its children (the webhooks' worker process), every Postgres process, the
   * receiver's process, this process (the load generator and the writer). */
  serverCpu?: number;
  workerCpu?: number;
  postgresCpu?: number;
  receiverCpu?: number;
  benchCpu?: number;
}
interface PageOneResult {
  url: string;
  rate: number;
  seconds: number;
  blocks: PageOneBlock[];
  /** Each round's change of page 1 with the deliveries (%), and their median. */
  rounds: number[];
  median: string;
  /** With BENCH_CONTROL: the control rounds' changes, and the real rounds' mean change less the control rounds'
   * (percentage points) with its 95 % interval (Welch). */
  controlRounds?: number[];
  difference?: { mean: number; low: number; high: number };
  offRps: number;
  onRps: number;
  change: string;
}

// CPU time so far (ms): the server's process and its children (BENCH_SERVER_PID), Postgres', the receiver's, this
// process's.
function cpuNow(receiverPid: number) {
  const own = process.cpuUsage();
  return {
    server: SERVER_PID ? processCpuMs(SERVER_PID) : undefined,
    tree: SERVER_PID ? treeCpuMs(SERVER_PID) : undefined,
    postgres: commandCpuMs("postgres"),
    receiver: processCpuMs(receiverPid),
    bench: (own.user + own.system) / 1000,
  };
}
function cpuPerSecond(a: ReturnType<typeof cpuNow>, b: ReturnType<typeof cpuNow>, ms: number) {
  const perSecond = (before: number, after: number) => Math.round(((after - before) * 1000) / ms);
  return {
    serverCpu: a.server === undefined ? undefined : perSecond(a.server, b.server!),
    workerCpu: a.tree === undefined ? undefined : perSecond(a.tree - a.server!, b.tree! - b.server!),
    postgresCpu: Math.round((cpuBetween(a.postgres, b.postgres) * 1000) / ms),
    receiverCpu: perSecond(a.receiver, b.receiver),
    benchCpu: perSecond(a.bench, b.bench),
  };
}

// A block without page-1 load (BENCH_PAGE_CONNECTIONS=0: what the deliveries alone cost).
async function idle(seconds: number) {
  await new Promise((r) => setTimeout(r, seconds * 1000));
  return { requests: { average: 0 }, latency: { p50: 0, p99: 0 }, non2xx: 0, errors: 0 };
}

// (c): blocks off, on, on, off of page-1 load on the server while the scratch organization changes at RATE/s; "on"
// enables its endpoint at the feed's head (nothing from before the block is owed), "off" disables it.
async function pageOneWhileDelivering(
  db: Database,
  orgId: string,
  endpointId: string,
  create: (n: number, tag: string) => Promise<string[]>,
  received: () => Promise<number>,
  arrivedAt: (id: string) => number | undefined,
  receiverPid: number,
): Promise<PageOneResult> {
  const url = `${env.BENCH_URL!.replace(/\/$/, "")}/public/v1/products`;
  const headers = { authorization: `Bearer ${env.BENCH_KEY}` };
  const probe = await fetch(url, { headers });
  if (probe.status !== 200) throw new Error(`page 1 at ${url} answered ${probe.status}`);
  // Warm-up: the server's first seconds (its caches, the optimizer) weigh on no block.
  await autocannon({ url, headers, connections: 10, duration: 5 });
  const blocks: PageOneBlock[] = [];
  const kinds = Array.from({ length: ROUNDS }, (_, i) =>
    !CONTROL ? [false] : i % 2 === 0 ? [false, true] : [true, false],
  ).flat();
  const order = kinds.flatMap((control) =>
    [false, true, true, false].map((deliveries) => ({ control, deliveries })),
  );
  for (const { control, deliveries } of order) {
    await db.query(
      `update webhook_endpoints
          set enabled = $2, position = coalesce((select head from catalog_change_heads where org_id = $3), 0)
        where id = $1`,
      [endpointId, deliveries && !control, orgId],
    );
    let writing = true;
    let changes = 0;
    const committed = new Map<string, number>();
    const before = await received();
    const writer = (async () => {
      const started = performance.now();
      while (writing) {
        const wait = started + (changes * 1000) / RATE - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        if (!writing) break;
        const [id] = await create(1, "p1");
        committed.set(id!, now());
        changes++;
      }
    })();
    // The writer's first second before the load: the deliveries (if any) are flowing when it starts.
    await new Promise((r) => setTimeout(r, 1000));
    const cpuBefore = cpuNow(receiverPid);
    const t0 = performance.now();
    const r =
      PAGE_CONNECTIONS > 0
        ? await autocannon({ url, headers, connections: PAGE_CONNECTIONS, duration: PAGE_SECONDS })
        : await idle(PAGE_SECONDS);
    const cpu = cpuPerSecond(cpuBefore, cpuNow(receiverPid), performance.now() - t0);
    writing = false;
    await writer;
    await new Promise((r) => setTimeout(r, 2000));
    const delivered = (await received()) - before;
    const latencies = [...committed]
      .filter(([id]) => arrivedAt(id) !== undefined)
      .map(([id, at]) => arrivedAt(id)! - at);
    const block = {
      deliveries,
      control,
      rps: Math.round(r.requests.average),
      p50Ms: r.latency.p50,
      p99Ms: r.latency.p99,
      non2xx: r.non2xx + r.errors,
      changes,
      delivered,
      ...(deliveries && !control
        ? {
            deliveryP50Ms: round(percentile(latencies, 50)),
            deliveryP99Ms: round(percentile(latencies, 99)),
            late: committed.size - latencies.length,
          }
        : {}),
      ...cpu,
    };
    log(`page 1 block: ${JSON.stringify(block)}`);
    blocks.push(block);
  }
  await db.query(`update webhook_endpoints set enabled = false where id = $1`, [endpointId]);
  const real = blocks.filter((b) => !b.control);
  const mean = (on: boolean) => {
    const xs = real.filter((b) => b.deliveries === on).map((b) => b.rps);
    return Math.round(xs.reduce((a, b) => a + b, 0) / xs.length);
  };
  const offRps = mean(false);
  const onRps = mean(true);
  // Each round's change (its blocks off, on, on, off: the machine's drift weighs on both), and their median.
  const changes = (control: boolean) => {
    const of = blocks.filter((b) => b.control === control);
    return Array.from({ length: of.length / 4 }, (_, i) => {
      const [a, b, c, d] = of.slice(i * 4, i * 4 + 4).map((x) => x.rps);
      return round((100 * ((b! + c!) / 2 - (a! + d!) / 2)) / ((a! + d!) / 2), 1);
    });
  };
  const rounds = changes(false);
  const median = [...rounds].sort((x, y) => x - y)[Math.floor(rounds.length / 2)]!;
  const controlRounds = CONTROL ? changes(true) : undefined;
  return {
    url,
    rate: RATE,
    seconds: PAGE_SECONDS,
    rounds,
    median: `${median}%`,
    ...(controlRounds ? { controlRounds, difference: welch(rounds, controlRounds) } : {}),
    blocks,
    offRps,
    onRps,
    change: `${round((100 * (onRps - offRps)) / offRps, 1)}%`,
  };
}

function pageOneMarkdown(p: PageOneResult): string[] {
  return [
    ...(p.controlRounds && p.difference
      ? [
          `With control rounds (BENCH_CONTROL=1), interleaved with the real ones, whose "on" blocks deliver nothing (the measure's own noise): control rounds ${p.controlRounds.map((r) => `${r}%`).join(", ")}; the real rounds' mean change less the control rounds': **${p.difference.mean} points, 95 % interval ${p.difference.low} to ${p.difference.high}** (Welch).`,
          "",
        ]
      : []),
    `Page 1 of products on the server (${p.url}, 10 connections, ${p.seconds} s a block) while another organization changes at ${p.rate}/s, without and with its changes delivered by the server's engine (blocks off, on, on, off, ${p.rounds.length} round(s)): ${p.offRps} req/s without, ${p.onRps} req/s with (${p.change}); each round ${p.rounds.map((r) => `${r}%`).join(", ")}, median ${p.median}.`,
    "",
    "Delivery p50/p99: from a change's commit to its event at the receiver, of the block's changes delivered by 2 s after it; late: those not delivered by then.",
    "",
    `CPU a second of the block (ms/s): the server's process alone, its worker process, Postgres, the receiver (at nice ${RECEIVER_NICE}), this bench (the load generator and the writer).`,
    "",
    "| block | deliveries | page 1 req/s | p50 ms | p99 ms | errors | changes | delivered | delivery p50 / p99 ms | late | server | worker | Postgres | receiver | bench |",
    "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...p.blocks.map(
      (b, i) =>
        `| ${i + 1} | ${b.deliveries ? (b.control ? "on (control: off)" : "on") : "off"} | ${b.rps} | ${b.p50Ms} | ${b.p99Ms} | ${b.non2xx} | ${b.changes} | ${b.delivered} | ${b.deliveryP50Ms !== undefined ? `${b.deliveryP50Ms} / ${b.deliveryP99Ms}` : "—"} | ${b.late ?? "—"} | ${b.serverCpu ?? "—"} | ${b.workerCpu ?? "—"} | ${b.postgresCpu} | ${b.receiverCpu ?? "—"} | ${b.benchCpu ?? "—"} |`,
    ),
    "",
  ];
}

await main();
