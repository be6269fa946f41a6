// `npm run bench:faults`: the fault scenarios of tests/faults/postgres.test.ts (issue 27 item 4) with their figures, on
// a throw-away Postgres cluster of its own (tests/support/postgres-process.ts: initdb in a temporary folder, a free
// loopback port, fsync off; never a shared server) and the API served over HTTP by npm start's host of the router, in
// this process, with the production defaults but the page cache off (tests/support/fault-server.ts). Not a throughput
// measure: 14 clients (page 1 of products and families; a cached key and keys never seen) each request, pause 20 ms,
// and request again, through each fault:
//   - stop: Postgres stopped (fast shutdown), then started again;
//   - freeze: every process of the cluster stopped with SIGSTOP, then SIGCONT;
//   - lock: an ACCESS EXCLUSIVE lock on products held by another session, then released;
// each BENCH_ROUNDS times (3): the first 503 after the fault (ms), the slowest answer during it, the time from the
// recovery (Postgres accepting connections again, thawed, the lock released) to the first 200 and to the last answer
// that was not a 200, the answers by status. Then a creation cut by a stop and by a kill (its 503's time, the retry's
// status), and an export of BENCH_EXPORT_PRODUCTS (10,000) cut by a stop (when the client saw the cut, the resumed
// rest). Writes bench/results/<date>-faults[-BENCH_TAG].json and .md.
//
// Environment: BENCH_ROUNDS (3), BENCH_FAULT_MS (4000: how long each fault lasts), BENCH_EXPORT_PRODUCTS (10000),
// BENCH_TAG, BENCH_RESULTS (bench/results).
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { faultFigures, type Answer, type FaultFigures } from "../tests/support/fault-load";
import { runUnderFault, startFaultServer, until200, type FaultServer } from "../tests/support/fault-server";
import { creatableBody, round } from "./support";

const env = process.env;
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const ROUNDS = Math.max(1, Number(env.BENCH_ROUNDS ?? 3));
const FAULT_MS = Math.max(500, Number(env.BENCH_FAULT_MS ?? 4000));
const EXPORT_PRODUCTS = Math.max(3000, Number(env.BENCH_EXPORT_PRODUCTS ?? 10_000));
const RESULTS = path.resolve(env.BENCH_RESULTS ?? path.join(ROOT, "bench/results"));
const TIMING = { beforeMs: 1500, faultMs: FAULT_MS, afterMs: 6500 };

function log(msg: string): void {
  process.stdout.write(`[bench:faults ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
}

// One round of one fault: the run's figures, how long the recovery itself took, and the slowest answer by status.
interface FaultRound extends FaultFigures {
  fault: string;
  round: number;
  recoverMs: number;
  slowest503Ms: number;
  /** Answers that started during the fault, by status. */
  duringByStatus: Record<string, number>;
}

async function faultRound(
  fx: FaultServer,
  fault: string,
  round: number,
  inject: () => Promise<void> | void,
  recover: () => Promise<void> | void,
): Promise<FaultRound> {
  const { answers, faultAt, recoveredAt, recoverMs } = await runUnderFault(fx, TIMING, inject, recover);
  const duringByStatus: Record<string, number> = {};
  for (const a of answers.filter((x) => x.start >= faultAt && x.start < recoveredAt))
    duringByStatus[a.status] = (duringByStatus[a.status] ?? 0) + 1;
  const ms = (a: Answer) => a.end - a.start;
  const r: FaultRound = {
    fault,
    round,
    recoverMs,
    ...faultFigures(answers, faultAt, recoveredAt),
    slowest503Ms: Math.max(0, ...answers.filter((a) => a.status === 503).map(ms)),
    duringByStatus,
  };
  log(
    `${fault} #${round}: first 503 ${r.first503Ms ?? "-"} ms, slowest during ${r.slowestDuringMs} ms, ` +
      `first 200 ${r.first200AfterMs ?? "-"} ms after recovery, statuses ${JSON.stringify(r.byStatus)}`,
  );
  return r;
}

// A creation whose values wait for a lock when Postgres goes down (a fast shutdown or a kill), then its retry.
interface CreationCut {
  how: "fast shutdown" | "kill";
  cutStatus: number;
  cutMs: number;
  restartMs: number;
  retryStatus: number;
  retryMs: number;
  secondRetryReplayed: boolean;
  productsWithSku: number;
}

async function creationCut(fx: FaultServer, how: CreationCut["how"]): Promise<CreationCut> {
  await until200(fx, "/public/v1/products");
  const body = (await creatableBody(fx.admin, fx.acmeId, `BENCH-FAULT-${how === "kill" ? "KILL" : "STOP"}`))(
    1,
  ) as {
    values: { sku: string };
  };
  const idem = `bench-faults-${how === "kill" ? "kill" : "stop"}-${Date.now()}`;
  const post = async () => {
    const started = Date.now();
    const res = await fetch(`${fx.base}/public/v1/products`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${fx.key}`,
        "content-type": "application/json",
        "idempotency-key": idem,
      },
      body: JSON.stringify(body),
    });
    await res.arrayBuffer();
    return { status: res.status, ms: Date.now() - started, replayed: res.headers.get("idempotent-replayed") };
  };
  const holder = new pg.Client({ connectionString: fx.pg.url });
  holder.on("error", () => {});
  await holder.connect();
  await holder.query("begin");
  await holder.query("lock table product_values in share mode");
  const answer = post();
  for (;;) {
    const { rows } = await holder.query<{ n: number }>(
      `select count(*)::int as n from pg_locks
        where relation = 'product_values'::regclass and mode = 'RowExclusiveLock' and not granted`,
    );
    if (rows[0]!.n > 0) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  if (how === "kill") await fx.pg.kill();
  else await fx.pg.stop("fast");
  const cut = await answer;
  await holder.end().catch(() => undefined);
  const restarting = Date.now();
  await fx.pg.start();
  const restartMs = Date.now() - restarting;
  const retry = await post();
  const again = await post();
  const [row] = await fx.admin.query<{ n: number }>(
    "select count(*)::int as n from products where org_id = $1 and identifier = $2",
    [fx.acmeId, body.values.sku],
  );
  const r: CreationCut = {
    how,
    cutStatus: cut.status,
    cutMs: cut.ms,
    restartMs,
    retryStatus: retry.status,
    retryMs: retry.ms,
    secondRetryReplayed: again.replayed === "true",
    productsWithSku: row!.n,
  };
  log(`creation cut by a ${how}: ${JSON.stringify(r)}`);
  return r;
}

// An export cut by a fast shutdown after its first 1,000 lines, then resumed with after=.
interface ExportCut {
  linesBeforeCut: number;
  /** From the stop's signal to the client seeing its stream fail (ms). */
  cutSeenMs: number;
  endLineInCut: boolean;
  restartMs: number;
  resumedLines: number;
  resumeMs: number;
  unionEqualsFresh: boolean;
}

async function readExport(fx: FaultServer, query: string, onLines?: (n: number) => Promise<void>) {
  const res = await fetch(`${fx.base}/public/v1/export/products${query}`, {
    headers: { authorization: `Bearer ${fx.bigKey}` },
  });
  const lines: string[] = [];
  let end = false;
  let failedAt: number | undefined;
  let rest = "";
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const parts = (rest + value).split("\n");
      rest = parts.pop()!;
      for (const line of parts) {
        if ((JSON.parse(line) as { end?: true }).end === true) end = true;
        else lines.push(line);
      }
      await onLines?.(lines.length);
    }
  } catch {
    failedAt = Date.now();
  }
  return { status: res.status, lines, end, failedAt };
}

async function exportCut(fx: FaultServer): Promise<ExportCut> {
  let stoppedAt = 0;
  const cut = await readExport(fx, "", async (n) => {
    if (!stoppedAt && n >= 1000) {
      stoppedAt = Date.now();
      await fx.pg.stop("fast");
    }
  });
  const restarting = Date.now();
  await fx.pg.start();
  const restartMs = Date.now() - restarting;
  const lastId = (JSON.parse(cut.lines[cut.lines.length - 1]!) as { id: string }).id;
  const resuming = Date.now();
  const resumed = await readExport(fx, `?after=${encodeURIComponent(lastId)}`);
  const resumeMs = Date.now() - resuming;
  const fresh = await readExport(fx, "");
  const union = [...cut.lines, ...resumed.lines];
  const r: ExportCut = {
    linesBeforeCut: cut.lines.length,
    cutSeenMs: cut.failedAt ? cut.failedAt - stoppedAt : -1,
    endLineInCut: cut.end,
    restartMs,
    resumedLines: resumed.lines.length,
    resumeMs,
    unionEqualsFresh:
      resumed.end && union.length === fresh.lines.length && union.every((l, i) => l === fresh.lines[i]),
  };
  log(`export cut: ${JSON.stringify(r)}`);
  return r;
}

const fmt = (v: number | undefined) => (v === undefined ? "–" : String(round(v, 0)));
const statuses = (s: Record<string, number>) =>
  Object.entries(s)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([k, n]) => `${k}: ${n}`)
    .join(", ");

function markdown(
  date: string,
  conditions: Record<string, string | number>,
  rounds: FaultRound[],
  creations: CreationCut[],
  exp: ExportCut,
): string {
  const out = [
    `# Faults while requests run (issue 27 item 4): ${date}`,
    "",
    "`npm run bench:faults` (bench/faults.ts). Conditions:",
    "",
    ...Object.entries(conditions).map(([k, v]) => `- ${k}: ${v}`),
    "",
    "Times in ms. *First 503*: from the fault to the end of the first 503. *Slowest during*: the slowest answer under",
    "way at any moment of the fault. *Recovery*: how long the recovery itself took (Postgres started and accepting",
    "connections, SIGCONT, ROLLBACK of the lock). *First 200 / last non-200 after*: from the end of the recovery to",
    "the end of the first 200 that started after it, and to the start of the last answer that was not a 200.",
    "",
    "| fault | round | first 503 | slowest during | slowest 503 | slowest overall | recovery | first 200 after | last non-200 after | during the fault | all answers |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
    ...rounds.map(
      (r) =>
        `| ${r.fault} | ${r.round} | ${fmt(r.first503Ms)} | ${r.slowestDuringMs} | ${r.slowest503Ms} | ${r.slowestMs} | ${r.recoverMs} | ${fmt(r.first200AfterMs)} | ${r.lastFailureAfterMs} | ${statuses(r.duringByStatus)} | ${statuses(r.byStatus)} |`,
    ),
    "",
    "## A creation cut while its values wait for a lock",
    "",
    "| Postgres | cut answer | its time | restart | retry | its time | second retry replayed | products with the SKU |",
    "|---|---|---|---|---|---|---|---|",
    ...creations.map(
      (c) =>
        `| ${c.how} | ${c.cutStatus} | ${c.cutMs} | ${c.restartMs} | ${c.retryStatus} | ${c.retryMs} | ${c.secondRetryReplayed} | ${c.productsWithSku} |`,
    ),
    "",
    `## An export of ${EXPORT_PRODUCTS} products cut by a fast shutdown after 1,000 lines`,
    "",
    "| lines before the cut | cut seen after the stop | end line in the cut stream | restart | resumed lines | resume time | cut + resumed = a fresh export |",
    "|---|---|---|---|---|---|---|",
    `| ${exp.linesBeforeCut} | ${exp.cutSeenMs} | ${exp.endLineInCut} | ${exp.restartMs} | ${exp.resumedLines} | ${exp.resumeMs} | ${exp.unionEqualsFresh} |`,
    "",
  ];
  return out.join("\n");
}

async function main(): Promise<void> {
  // The pipeline logs each 503's cause and the pool its lost connections: counted, not printed.
  let logged = 0;
  console.error = () => void logged++;
  console.warn = () => void logged++;
  log(`starting a cluster, seeding the demo and ${EXPORT_PRODUCTS} products`);
  const fx = await startFaultServer({ bigProducts: EXPORT_PRODUCTS });
  try {
    const rounds: FaultRound[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      rounds.push(
        await faultRound(
          fx,
          "stop",
          round,
          () => fx.pg.stop("fast"),
          () => fx.pg.start(),
        ),
      );
      rounds.push(
        await faultRound(
          fx,
          "freeze",
          round,
          () => fx.pg.freeze(),
          () => fx.pg.thaw(),
        ),
      );
      const holder = new pg.Client({ connectionString: fx.pg.url });
      await holder.connect();
      rounds.push(
        await faultRound(
          fx,
          "lock",
          round,
          async () => {
            await holder.query("begin");
            await holder.query("lock table products in access exclusive mode");
          },
          async () => {
            await holder.query("rollback");
          },
        ),
      );
      await holder.end();
    }
    const creations = [await creationCut(fx, "fast shutdown"), await creationCut(fx, "kill")];
    const exp = await exportCut(fx);

    const date = new Date().toISOString().slice(0, 10);
    const conditions = {
      machine: `${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? "?"}), load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")} at the end`,
      node: process.version,
      postgres: `${(await fx.admin.query<{ v: string }>("select current_setting('server_version') as v"))[0]!.v}, fsync=off, synchronous_commit on, shared_buffers 64MB, loopback`,
      "API settings": `pg driver, DB_POOL_SIZE ${fx.config.DB_POOL_SIZE}, DB_CONNECT_TIMEOUT_MS ${fx.config.DB_CONNECT_TIMEOUT_MS}, DB_STATEMENT_TIMEOUT_MS ${fx.config.DB_STATEMENT_TIMEOUT_MS}, KEY_CACHE_TTL_SECONDS ${fx.config.KEY_CACHE_TTL_SECONDS}, page cache off, in-process rate limiter (no quota reached)`,
      clients:
        "14 closed-loop clients over HTTP (node:http host of the router, in the bench's process): page 1 of products and of families, 4 each with a cached key, 3 each with a key never used before; a 20 ms pause between requests",
      timing: `${TIMING.beforeMs} ms healthy, the fault for ${TIMING.faultMs} ms, ${TIMING.afterMs} ms after the recovery; ${ROUNDS} rounds`,
      "lines logged by the API (503 causes, lost connections)": logged,
    };
    const result = { date, conditions, rounds, creations, export: exp };
    mkdirSync(RESULTS, { recursive: true });
    const name = `${date}-faults${env.BENCH_TAG ? `-${env.BENCH_TAG}` : ""}`;
    writeFileSync(path.join(RESULTS, `${name}.json`), `${JSON.stringify(result, null, 2)}\n`);
    writeFileSync(path.join(RESULTS, `${name}.md`), markdown(date, conditions, rounds, creations, exp));
    log(`wrote ${path.relative(ROOT, path.join(RESULTS, name))}.json and .md`);
  } finally {
    await fx.close();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${String((err as Error)?.stack ?? err)}\n`);
    process.exit(1);
  },
);
