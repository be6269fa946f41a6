// `npm run bench:webhooks`: webhooks (issue 25, preview feature `webhooks`) from a commit to a local receiver. The
// engine runs in this process as a server's would (lib/webhooks/engine.ts: pg-boss, the dispatcher woken by the
// feed's notifications, the worker), on the database at DATABASE_URL (a bench or scratch database: it is migrated,
// and a scratch organization is made and deleted) or, without it, on an in-memory PGlite. Two measures:
//   (a) latency: BENCH_CHANGES categories of the scratch organization created one transaction each at
//       BENCH_RATE/s (50); from the moment a commit returns to the moment the receiver holds its event (p50/p99),
//       which covers the notification, the dispatch (the feed read, the delivery and its job queued), the job's
//       fetch, the signing and the POST;
//   (b) throughput: BENCH_BACKLOG changes (5,000) committed in transactions of 500 while the engine is stopped, then
//       the engine started: deliveries/s until the receiver has them all (a fast receiver: 200 at once).
// Writes results to bench/results/<date>-webhooks[-BENCH_TAG].json and .md.
//
// Environment: DATABASE_URL (optional), BENCH_CHANGES (500), BENCH_RATE (50), BENCH_BACKLOG (5000),
// BENCH_CONCURRENCY (workers, 4) and BENCH_BATCH (attempts per worker at once, 8): the engine's defaults,
// BENCH_TAG (file suffix).
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { openPg, openPglite, type Database } from "@/db/client";
import { migrate } from "@/db/migrate";
import { AnchorCache } from "@/lib/catalog/page-anchors";
import { CountCache } from "@/lib/catalog/count-cache";
import { VersionReads } from "@/lib/catalog/version-reads";
import { loadConfig } from "@/lib/config";
import { WebhookEngine } from "@/lib/webhooks/engine";
import { createEndpoint, endpointInputSchema } from "@/lib/webhooks/endpoints";

const env = process.env;
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const RESULTS = path.join(ROOT, "bench/results");
const CHANGES = Number(env.BENCH_CHANGES ?? 500);
const RATE = Number(env.BENCH_RATE ?? 50);
const BACKLOG = Number(env.BENCH_BACKLOG ?? 5000);
const CONCURRENCY = Number(env.BENCH_CONCURRENCY ?? 4);
const BATCH = Number(env.BENCH_BATCH ?? 8);

function log(msg: string): void {
  console.log(`[bench:webhooks] ${msg}`);
}
const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;
// The value below which `p` of the sorted values lie.
function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function main(): Promise<void> {
  const url = env.DATABASE_URL;
  const db: Database = url ? await openPg(url, 6) : await openPglite("memory://");
  await migrate(db);
  const orgId = `org_bench_hooks_${randomBytes(4).toString("hex")}`;
  await db.query(`insert into organizations (id, slug, name) values ($1, $1, 'Bench webhooks')`, [orgId]);
  // The receiver: fast, answers at once, notes when each category's event arrived.
  const arrived = new Map<string, number>();
  let received = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const at = performance.now();
      received++;
      const id = (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: string }).id;
      if (!arrived.has(id)) arrived.set(id, at);
      res.end("ok");
    });
  });
  server.maxConnections = 200;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
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
  const engineOpts = { concurrency: CONCURRENCY, batchSize: BATCH, dispatchIntervalMs: 1000 };
  let engine = new WebhookEngine({ config, db: async () => db, catalog: async () => ctx }, engineOpts);
  await createEndpoint(db, orgId, endpointInputSchema.parse({ url: receiverUrl, types: ["categories"] }));
  const create = async (n: number, tag: string) => {
    const ids = Array.from({ length: n }, (_, i) => `cat_${tag}_${i}_${randomBytes(3).toString("hex")}`);
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
    while (Date.now() < end && !ids.every((id) => arrived.has(id)))
      await new Promise((r) => setTimeout(r, 20));
  };

  try {
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
      committed.set(id!, performance.now());
    }
    await waitAll([...committed.keys()], 60_000);
    const latencies = [...committed]
      .filter(([id]) => arrived.has(id))
      .map(([id, at]) => arrived.get(id)! - at);
    const latency = {
      changes: CHANGES,
      rate: RATE,
      delivered: latencies.length,
      p50Ms: round(percentile(latencies, 50)),
      p90Ms: round(percentile(latencies, 90)),
      p99Ms: round(percentile(latencies, 99)),
      maxMs: round(Math.max(...latencies)),
    };
    log(`latency: ${JSON.stringify(latency)}`);

    // (b) throughput: a backlog delivered from a cold start of the engine.
    await engine.stop();
    log(`throughput: a backlog of ${BACKLOG} changes`);
    const backlog: string[] = [];
    for (let done = 0; done < BACKLOG; done += 500)
      backlog.push(...(await create(Math.min(500, BACKLOG - done), "tp")));
    const before = received;
    engine = new WebhookEngine({ config, db: async () => db, catalog: async () => ctx }, engineOpts);
    const t0 = performance.now();
    await engine.start();
    await waitAll(backlog, 600_000);
    const seconds = (performance.now() - t0) / 1000;
    const got = backlog.filter((id) => arrived.has(id)).length;
    const throughput = {
      backlog: BACKLOG,
      delivered: got,
      requests: received - before,
      seconds: round(seconds, 2),
      deliveriesPerSecond: round(got / seconds),
      workers: CONCURRENCY,
      batchSize: BATCH,
    };
    log(`throughput: ${JSON.stringify(throughput)}`);

    const result = {
      at: new Date().toISOString(),
      driver: db.driver,
      host: { cpus: os.cpus().length, node: process.version },
      latency,
      throughput,
    };
    mkdirSync(RESULTS, { recursive: true });
    const name = `${result.at.slice(0, 10)}-webhooks${env.BENCH_TAG ? `-${env.BENCH_TAG}` : ""}`;
    writeFileSync(path.join(RESULTS, `${name}.json`), `${JSON.stringify(result, null, 2)}\n`);
    writeFileSync(
      path.join(RESULTS, `${name}.md`),
      [
        `# Webhooks bench (${result.at}, ${db.driver}, ${os.cpus().length} CPUs)`,
        "",
        `Commit → delivered to a local receiver, ${CHANGES} changes at ${RATE}/s: p50 ${latency.p50Ms} ms, p90 ${latency.p90Ms} ms, p99 ${latency.p99Ms} ms, max ${latency.maxMs} ms (${latency.delivered}/${CHANGES} delivered).`,
        "",
        `Sustained deliveries to a fast receiver, a backlog of ${BACKLOG} from a cold engine, ${CONCURRENCY} workers × ${BATCH} attempts at once: ${throughput.deliveriesPerSecond}/s (${got} in ${throughput.seconds} s).`,
        "",
      ].join("\n"),
    );
    log(`wrote bench/results/${name}.json and .md`);
  } finally {
    await engine.stop();
    await db.query(`delete from organizations where id = $1`, [orgId]);
    server.closeAllConnections();
    server.close();
    await db.close();
  }
}

await main();
