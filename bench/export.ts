// `npm run bench:export`: the export (issue 24, preview `export`) against the paging mirror it replaces, on a server
// that is already running (this script starts none): (a) GET /public/v1/export/products read to its end line, (b) the
// same products fetched as a client mirrors them without it: list pages of 100 walked by BENCH_WALKERS walkers in
// parallel (walker w takes pages w, w + walkers, …), and each product read whole (GET /public/v1/products/{id}).
// Each: products/s, wall time, time to the first byte, bytes on the wire and decoded (gzip asked for, as a client
// would), requests, and the server's RSS (its process and its children, /proc/<pid>/status every 250 ms) when its pid
// is given. Writes bench/results/<date>-export[-BENCH_TAG].json and .md.
//
// The server: the production one, as bench/run.ts starts its app (after `npm run build`), with the feature on and no
// rate limit (the paging mirror makes one request per product):
//   NODE_ENV=production DATABASE_URL=postgres://…/catalog_bench DB_POOL_SIZE=10 RATE_LIMIT_ENABLED=false \
//   DEMO_SEED=never PUBLIC_API_PREVIEW=details,export PORT=3410 HOSTNAME=127.0.0.1 node scripts/serve.mjs
// Environment: BENCH_URL (http://127.0.0.1:3410), BENCH_KEY (a key of the organization with products:read),
// BENCH_SERVER_PID (the server's pid: RSS sampled; none: no RSS), BENCH_DATABASE_URL (optional: the export's count and
// cursor checked against the organization's products and feed head; the products' documents waited for),
// BENCH_DOCUMENTS_WAIT_S (600), BENCH_WALKERS (4), BENCH_MIRROR_DETAILS (off: list pages only), BENCH_TAG (a file suffix),
// BENCH_RESULTS (the results' folder, bench/results), BENCH_MIRROR_PAGES (the paging mirror's pages at most; all).
import { mkdirSync, writeFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Transform, pipeline } from "node:stream";
import { createGunzip, gunzipSync } from "node:zlib";
import pg from "pg";
import { hashApiKey } from "@/lib/keys/format";
import { treeRssMb } from "./process-rss";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const env = process.env;
const BASE = new URL(env.BENCH_URL ?? "http://127.0.0.1:3410");
const KEY = env.BENCH_KEY ?? "";
const SERVER_PID = env.BENCH_SERVER_PID ? Number(env.BENCH_SERVER_PID) : undefined;
const WALKERS = Math.max(1, Number(env.BENCH_WALKERS ?? 4));
// The paging mirror walks at most this many list pages (default: all): on the million-product catalog it would take
// about ten minutes; its products/s over the first pages is its rate (deeper pages only cost more).
const MIRROR_PAGES = env.BENCH_MIRROR_PAGES ? Math.max(1, Number(env.BENCH_MIRROR_PAGES)) : Infinity;
// off: the paging mirror reads the list pages alone (their items, no detail per product).
const MIRROR_DETAILS = env.BENCH_MIRROR_DETAILS !== "off";
const RESULTS = path.resolve(env.BENCH_RESULTS ?? path.join(ROOT, "bench/results"));
const PER_PAGE = 100;
const RSS_EVERY_MS = 250;

// Connections kept alive, at most one per walker (and the export's).
const agent = new http.Agent({ keepAlive: true, maxSockets: WALKERS + 1 });

function log(msg: string): void {
  console.log(`[bench:export ${new Date().toISOString().slice(11, 19)}] ${msg}`);
}

// One measured way of reading the products.
interface Measure {
  products: number;
  seconds: number;
  productsPerSecond: number;
  /** Until the first byte of the first answer. */
  firstByteMs: number;
  requests: number;
  wireBytes: number;
  decodedBytes: number;
  /** The server's resident memory (MB): before, and the peak while measured (none without BENCH_SERVER_PID). */
  rssBeforeMb?: number;
  rssPeakMb?: number;
}

// GET a path with the key, gzip asked for; the answer's status, headers and body as it came (a stream).
function get(pathAndQuery: string): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: BASE.hostname,
        port: BASE.port,
        path: pathAndQuery,
        agent,
        headers: { authorization: `Bearer ${KEY}`, "accept-encoding": "gzip" },
      },
      resolve,
    );
    req.on("error", reject);
    req.end();
  });
}

// A whole answer: its status and its body decoded, with its size on the wire.
async function getWhole(pathAndQuery: string): Promise<{ status: number; body: Buffer; wire: number }> {
  const res = await get(pathAndQuery);
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks);
  const body = res.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw;
  if (res.statusCode !== 200)
    throw new Error(`${pathAndQuery}: ${res.statusCode} ${body.toString().slice(0, 300)}`);
  return { status: res.statusCode, body, wire: raw.length };
}

// Samples the server's RSS while `run` runs.
async function withRss<T>(run: () => Promise<T>): Promise<{ value: T; before?: number; peak?: number }> {
  if (SERVER_PID === undefined) return { value: await run() };
  const before = treeRssMb(SERVER_PID);
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, treeRssMb(SERVER_PID))), RSS_EVERY_MS);
  try {
    const value = await run();
    peak = Math.max(peak, treeRssMb(SERVER_PID));
    return { value, before, peak };
  } finally {
    clearInterval(timer);
  }
}

// (a) The export, read as it comes: lines counted, the end line kept.
async function measureExport(): Promise<Measure & { end: { cursor: string; count: number } }> {
  const t0 = performance.now();
  const { value, before, peak } = await withRss(async () => {
    const res = await get("/public/v1/export/products");
    const firstByteMs = performance.now() - t0;
    if (res.statusCode !== 200) throw new Error(`export: ${res.statusCode}`);
    let wire = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        wire += chunk.length;
        done(null, chunk);
      },
    });
    // pipeline, not pipe: a connection cut mid-stream fails the decoded stream too (pipe would leave it waiting).
    const streams = res.headers["content-encoding"] === "gzip" ? [counter, createGunzip()] : [counter];
    pipeline([res, ...streams], () => undefined);
    const body = streams.at(-1)!;
    let decoded = 0;
    let products = 0;
    let pending = "";
    let end: { end: true; cursor: string; count: number } | undefined;
    for await (const chunk of body) {
      decoded += (chunk as Buffer).length;
      pending += (chunk as Buffer).toString("utf8");
      const lines = pending.split("\n");
      pending = lines.pop()!;
      for (const line of lines) {
        if (line === "") continue;
        // Only the end line is parsed: a client would parse every line, but the server is what is measured.
        if (line.startsWith('{"end":')) end = JSON.parse(line);
        else products++;
      }
    }
    if (!end) throw new Error(`export cut after ${products} products (no end line)`);
    return { firstByteMs, wire, decoded, products, end };
  });
  const seconds = (performance.now() - t0) / 1000;
  return {
    products: value.products,
    seconds: round(seconds, 2),
    productsPerSecond: Math.round(value.products / seconds),
    firstByteMs: round(value.firstByteMs, 1),
    requests: 1,
    wireBytes: value.wire,
    decodedBytes: value.decoded,
    rssBeforeMb: before,
    rssPeakMb: peak,
    end: { cursor: value.end.cursor, count: value.end.count },
  };
}

// (b) The paging mirror: WALKERS walkers take the list's pages in turn, each page then each of its products whole.
async function measurePaging(): Promise<Measure & { distinct: number }> {
  const t0 = performance.now();
  const { value, before, peak } = await withRss(async () => {
    let firstByteMs: number | undefined;
    let requests = 0;
    let wire = 0;
    let decoded = 0;
    let totalPages = Infinity;
    const ids = new Set<string>();
    const count = (r: { body: Buffer; wire: number }) => {
      firstByteMs ??= performance.now() - t0;
      requests++;
      wire += r.wire;
      decoded += r.body.length;
    };
    const walk = async (first: number) => {
      for (let page = first; page <= Math.min(totalPages, MIRROR_PAGES); page += WALKERS) {
        const r = await getWhole(`/public/v1/products?perPage=${PER_PAGE}&page=${page}`);
        count(r);
        const { data, pagination } = JSON.parse(r.body.toString()) as {
          data: { id: string }[];
          pagination: { totalPages: number };
        };
        totalPages = pagination.totalPages;
        for (const { id } of data) {
          ids.add(id);
          if (MIRROR_DETAILS) count(await getWhole(`/public/v1/products/${encodeURIComponent(id)}`));
        }
      }
    };
    await Promise.all(Array.from({ length: WALKERS }, (_, w) => walk(w + 1)));
    return { firstByteMs: firstByteMs ?? 0, requests, wire, decoded, ids };
  });
  const seconds = (performance.now() - t0) / 1000;
  return {
    products: value.ids.size,
    distinct: value.ids.size,
    seconds: round(seconds, 2),
    productsPerSecond: Math.round(value.ids.size / seconds),
    firstByteMs: round(value.firstByteMs, 1),
    requests: value.requests,
    wireBytes: value.wire,
    decodedBytes: value.decoded,
    rssBeforeMb: before,
    rssPeakMb: peak,
  };
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;
const mb = (bytes: number) => round(bytes / 1_048_576, 1);

// The organization of the key, its products and its feed head, from the bench database (BENCH_DATABASE_URL).
async function catalogOfKey(): Promise<{ slug: string; products: number; head: string } | undefined> {
  if (!env.BENCH_DATABASE_URL) return undefined;
  const client = new pg.Client({ connectionString: env.BENCH_DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ slug: string; products: number; head: string }>(
      `select o.slug, (select count(*)::int from products p where p.org_id = o.id) as products,
              coalesce((select head::text from catalog_change_heads h where h.org_id = o.id), '0') as head
         from api_keys k join organizations o on o.id = k.org_id where k.key_hash = $1`,
      [hashApiKey(KEY)],
    );
    return rows[0];
  } finally {
    await client.end();
  }
}

// The organization's products' documents (migration 0019): whether the server's refresher has brought them up to the
// feed's head (an export then reads each product from its document); waits for it up to BENCH_DOCUMENTS_WAIT_S (600)
// seconds, as a server just started on a million products builds them for a minute or two.
async function documentsCurrent(): Promise<
  { current: boolean; mark: string | null; head: string } | undefined
> {
  if (!env.BENCH_DATABASE_URL) return undefined;
  const client = new pg.Client({ connectionString: env.BENCH_DATABASE_URL });
  await client.connect();
  const until = Date.now() + Number(env.BENCH_DOCUMENTS_WAIT_S ?? 600) * 1000;
  try {
    for (;;) {
      const { rows } = await client.query<{ mark: string | null; head: string; building: boolean }>(
        `select m.mark::text as mark, m.build_after is not null as building,
                coalesce((select head::text from catalog_change_heads h where h.org_id = k.org_id), '0') as head
           from api_keys k left join catalog_product_document_marks m on m.org_id = k.org_id
          where k.key_hash = $1`,
        [hashApiKey(KEY)],
      );
      const r = rows[0];
      const current = !!r && r.mark === r.head && !r.building;
      if (current || Date.now() > until) return r && { current, mark: r.mark, head: r.head };
      log(
        `waiting for the documents: mark ${r?.mark ?? "none"}, head ${r?.head}${r?.building ? ", building" : ""}`,
      );
      await new Promise((resolve) => setTimeout(resolve, 5000));
    }
  } finally {
    await client.end();
  }
}

function table(r: { export: Measure; paging: Measure }): string {
  const row = (name: string, m: Measure) =>
    `| ${name} | ${m.products} | ${m.seconds} | ${m.productsPerSecond} | ${m.firstByteMs} | ${m.requests} | ${mb(m.wireBytes)} | ${mb(m.decodedBytes)} | ${m.rssBeforeMb ?? "—"} | ${m.rssPeakMb ?? "—"} |`;
  return [
    "| way | products | s | products/s | first byte ms | requests | MB on the wire (gzip) | MB decoded | RSS MB before | RSS MB peak |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    row("export (`GET /public/v1/export/products`)", r.export),
    row(
      `paging mirror (${WALKERS} walkers × pages of ${PER_PAGE}${MIRROR_DETAILS ? " + one detail per product" : ", list items only"})`,
      r.paging,
    ),
  ].join("\n");
}

async function main(): Promise<void> {
  if (!KEY) throw new Error("BENCH_KEY is not set: a key of the organization with products:read");
  const catalog = await catalogOfKey();
  log(
    `server ${BASE.origin}${SERVER_PID ? ` (pid ${SERVER_PID})` : " (no BENCH_SERVER_PID: no RSS)"}` +
      (catalog
        ? `, organization ${catalog.slug}: ${catalog.products} products, feed head ${catalog.head}`
        : ""),
  );
  const documents = await documentsCurrent();
  if (documents)
    log(
      `products' documents: ${documents.current ? "current" : "NOT current"} (mark ${documents.mark}, head ${documents.head})`,
    );
  const loadBefore = os.loadavg().map((n) => round(n, 2));
  log("export …");
  const exported = await measureExport();
  log(`export: ${exported.products} products in ${exported.seconds} s (${exported.productsPerSecond}/s)`);
  if (exported.end.count !== exported.products)
    throw new Error(
      `the end line counts ${exported.end.count} products, the stream had ${exported.products}`,
    );
  if (catalog && (exported.products !== catalog.products || exported.end.cursor !== catalog.head))
    log(
      `warning: the database has ${catalog.products} products and head ${catalog.head}; the export ${exported.products} and cursor ${exported.end.cursor} (a write during the run?)`,
    );
  log(`paging mirror (${WALKERS} walkers) …`);
  const paging = await measurePaging();
  log(`paging mirror: ${paging.products} products in ${paging.seconds} s (${paging.productsPerSecond}/s)`);
  if (paging.distinct !== exported.products)
    log(
      `warning: the paging mirror saw ${paging.distinct} distinct products, the export ${exported.products}`,
    );
  agent.destroy();

  const date = new Date()
    .toISOString()
    .replace(/:/g, "-")
    .replace(/\.\d+Z$/, "Z");
  const stem = `${date.slice(0, 10)}-export${env.BENCH_TAG ? `-${env.BENCH_TAG}` : ""}`;
  const results = {
    date,
    server: BASE.origin,
    organization: catalog?.slug,
    machine: {
      cpus: os.cpus().length,
      loadBefore,
      loadAfter: os.loadavg().map((n) => round(n, 2)),
      node: process.version,
    },
    settings: { walkers: WALKERS, perPage: PER_PAGE, rssEveryMs: SERVER_PID ? RSS_EVERY_MS : undefined },
    documents,
    export: exported,
    paging,
  };
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(path.join(RESULTS, `${stem}.json`), `${JSON.stringify(results, null, 2)}\n`);
  const md = [
    `# Export benchmark ${date}`,
    "",
    `Server ${results.server}${catalog ? `, organization \`${catalog.slug}\` (${catalog.products} products)` : ""} · ${results.machine.cpus} CPUs · load before ${loadBefore.join(" / ")}, after ${results.machine.loadAfter.join(" / ")} · gzip asked for on every request${documents ? ` · products' documents ${documents.current ? "current" : "not current"} at the start (mark ${documents.mark}, feed head ${documents.head})` : ""}.`,
    "",
    table(results),
    "",
    `Export ÷ paging mirror: ${round(exported.productsPerSecond / Math.max(1, paging.productsPerSecond), 1)}× the products/s, ${round(paging.wireBytes / Math.max(1, exported.wireBytes), 1)}× fewer bytes on the wire, ${paging.requests} requests against 1.`,
    "",
  ].join("\n");
  writeFileSync(path.join(RESULTS, `${stem}.md`), md);
  console.log(`\n${md}`);
  log(`results: ${path.relative(ROOT, path.join(RESULTS, stem))}.json, .md`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
