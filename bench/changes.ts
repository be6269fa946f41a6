// `npm run bench:changes`: the change feed (issue 24, preview feature `changes`) against a running server, its
// database written with plain SQL as the product-information application writes it. Three measures:
//   (a) latency: a client follows the feed with wait=30 while ~200 products are relabelled one transaction each at a
//       steady rate (10–50/s); from the moment a write's UPDATE is sent to the moment the follower holds its event
//       (p50/p99), which covers the commit, its notification, the wake-up, the read and the answer;
//   (b) catch-up: a backlog of events (100,000 by default, made by relabelling the organization's products in rounds)
//       read from its start with limit=1000, one request after the other as a client catches up: events/s;
//   (c) write overhead of the capture: a 10,000-row UPDATE of products with the capture triggers on and off (each
//       in a transaction rolled back: SET CONSTRAINTS ALL IMMEDIATE runs the commit work of both the versions and the
//       change log inside it; off: ALTER TABLE … DISABLE TRIGGER products_changes_update in the same transaction),
//       and the write preview's POST /public/v1/products on and off (off: the insert triggers of products,
//       product_values and media_links disabled for the time of those POSTs, enabled again whatever happens; the
//       products created are deleted at the end, with the capture on).
// Writes results to bench/results/<date>-changes.json and .md.
//
// It changes the organization's catalog (labels changed and put back, products created and deleted, the log grows
// by the backlog) and (c) takes ACCESS EXCLUSIVE locks on products for a moment: run it on a bench or scratch
// database, never on one that serves clients.
//
// Environment: BENCH_URL (the server, e.g. http://127.0.0.1:3000, PUBLIC_API_PREVIEW with changes; with writes too
// for the POST part), BENCH_KEY (a key of the organization to measure, with products:read), DATABASE_URL (the
// server's database), BENCH_CHANGES (200), BENCH_CHANGES_RATE (changes/s, 20), BENCH_BACKLOG (100000),
// BENCH_UPDATE_ROWS (10000), BENCH_REPEAT (5: rounds of each write measure), BENCH_POSTS (100 per side and round),
// BENCH_POST_ROUNDS (3 rounds of blocks on, off, off, on, for each of the two modes of the POST),
// BENCH_POST_WARMUP (300 POSTs first, not measured),
// BENCH_TAG (file suffix).
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { openPg, type Database, type Executor } from "@/db/client";
import { newId } from "@/db/schema";
import { displayPrefix, generateApiKey, hashApiKey } from "@/lib/keys/format";
import { READ_SCOPES, WRITE_SCOPE } from "@/lib/keys/scopes";
import { creatableBody, percentile, round } from "./support";

const env = process.env;
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const RESULTS = path.join(ROOT, "bench/results");
const BASE = (env.BENCH_URL ?? "").replace(/\/+$/, "");
const KEY = env.BENCH_KEY ?? "";
const CHANGES = Number(env.BENCH_CHANGES ?? 200);
const POST_WARMUP = Number(env.BENCH_POST_WARMUP ?? 300);
const RATE = Number(env.BENCH_CHANGES_RATE ?? 20);
const BACKLOG = Number(env.BENCH_BACKLOG ?? 100_000);
const UPDATE_ROWS = Number(env.BENCH_UPDATE_ROWS ?? 10_000);
const REPEAT = Math.max(1, Number(env.BENCH_REPEAT ?? 5));
const POSTS = Number(env.BENCH_POSTS ?? 100);
const POST_ROUNDS = Number(env.BENCH_POST_ROUNDS ?? 3);
// The capture's triggers a product's label update and a product's creation fire (migration 0016).
const UPDATE_TRIGGERS = ["products.products_changes_update"];
const CREATE_TRIGGERS = [
  "products.products_changes_insert",
  "product_values.product_values_changes_insert",
  "media_links.media_links_changes_insert",
];

function log(msg: string): void {
  console.log(`[bench:changes] ${msg}`);
}

const median = (values: number[]) => percentile(values, 50);

// One answer of the feed.
interface FeedPage {
  data: { cursor: string; type: string; id: string; op: string; item: { label?: string } | null }[];
  cursor: string;
  hasMore: boolean;
}

async function feed(query: string, key = KEY): Promise<FeedPage> {
  const res = await fetch(`${BASE}/public/v1/changes?${query}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const body = (await res.json()) as FeedPage & { message?: string };
  if (res.status !== 200)
    throw new Error(`GET /public/v1/changes?${query}: ${res.status} ${body.message ?? ""}`);
  return body;
}

const head = async (db: Database, orgId: string) =>
  (
    await db.query<{ head: string }>(
      "select coalesce((select head from catalog_change_heads where org_id = $1), 0)::text as head",
      [orgId],
    )
  )[0]!.head;

// (a) From each write's UPDATE sent to its event in the hands of a client waiting with wait=30.
async function latency(db: Database, orgId: string) {
  const products = await db.query<{ id: string; label: string }>(
    "select id, label from products where org_id = $1 order by id limit $2",
    [orgId, CHANGES],
  );
  const sent = new Map<number, number>();
  const seen = new Map<number, number>();
  const writes: number[] = [];
  let cursor = await head(db, orgId);
  let following = true;
  // The follower: one long poll after the other, as a client keeping a copy in sync.
  const follower = (async () => {
    while (following && seen.size < products.length) {
      const page = await feed(`after=${cursor}&types=products&limit=1000&wait=30`);
      const at = performance.now();
      for (const e of page.data) {
        const m = /^bench-changes-(\d+)$/.exec(e.item?.label ?? "");
        if (m && !seen.has(Number(m[1]))) seen.set(Number(m[1]), at);
      }
      cursor = page.cursor;
    }
  })();
  // Let the first long poll reach its wait.
  await new Promise((r) => setTimeout(r, 500));
  const start = performance.now();
  for (let i = 0; i < products.length; i++) {
    const due = start + (i * 1000) / RATE;
    const now = performance.now();
    if (due > now) await new Promise((r) => setTimeout(r, due - now));
    const t = performance.now();
    sent.set(i, t);
    await db.query("update products set label = $2 where id = $1", [products[i]!.id, `bench-changes-${i}`]);
    writes.push(performance.now() - t);
  }
  const deadline = Date.now() + 35_000;
  while (seen.size < products.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  following = false;
  // The labels as they were (events too; the follower has stopped reading).
  for (const p of products) await db.query("update products set label = $2 where id = $1", [p.id, p.label]);
  await Promise.race([follower.catch(() => undefined), new Promise((r) => setTimeout(r, 31_000))]);
  const latencies = [...seen].map(([i, at]) => at - sent.get(i)!);
  return {
    changes: products.length,
    ratePerSecond: RATE,
    received: seen.size,
    p50Ms: round(percentile(latencies, 50)),
    p99Ms: round(percentile(latencies, 99)),
    maxMs: round(Math.max(...latencies)),
    writeP50Ms: round(percentile(writes, 50), 2),
  };
}

// (b) A backlog made with SQL (the same products relabelled round after round, an even number of rounds so that the
// labels end as they were), then read from its start with limit=1000, one request after the other.
async function catchUp(db: Database, orgId: string) {
  const [{ n }] = (await db.query<{ n: number }>(
    "select least(count(*), 10000)::int as n from products where org_id = $1",
    [orgId],
  )) as [{ n: number }];
  const rounds = Math.max(2, Math.ceil(BACKLOG / n / 2) * 2);
  const from = await head(db, orgId);
  const t0 = performance.now();
  for (let r = 0; r < rounds; r++) {
    await db.query(
      `update products set label = ${r % 2 === 0 ? "label || '·'" : "left(label, -1)"}
        where id in (select id from products where org_id = $1 order by id limit $2)`,
      [orgId, n],
    );
  }
  const makeS = (performance.now() - t0) / 1000;
  const to = BigInt(await head(db, orgId));
  // The server's refresher of products' documents (migration 0019) rewrites the products changed: until it has, a
  // page reads them anew. How long after the backlog it is done is part of the result (at most 120 s waited).
  const t1 = performance.now();
  let documentsCurrent = false;
  while (!documentsCurrent && performance.now() - t1 < 120_000) {
    const [m] = await db.query<{ current: boolean }>(
      "select mark = $2::bigint and build_after is null as current from catalog_product_document_marks where org_id = $1",
      [orgId, to.toString()],
    );
    documentsCurrent = !!m?.current;
    if (!documentsCurrent) await new Promise((r) => setTimeout(r, 100));
  }
  const documentsAfterSeconds = round((performance.now() - t1) / 1000, 1);
  let cursor = from;
  let requests = 0;
  let served = 0;
  const start = performance.now();
  while (BigInt(cursor) < to) {
    const page = await feed(`after=${cursor}&limit=1000`);
    requests++;
    served += page.data.length;
    cursor = page.cursor;
  }
  const seconds = (performance.now() - start) / 1000;
  const events = Number(to - BigInt(from));
  return {
    events,
    served,
    requests,
    seconds: round(seconds, 2),
    eventsPerSecond: Math.round(events / seconds),
    servedPerSecond: Math.round(served / seconds),
    msPerRequest: round((seconds * 1000) / requests, 1),
    backlogMadeInSeconds: round(makeS, 1),
    documentsCurrent,
    documentsAfterSeconds,
  };
}

// Runs fn in a transaction rolled back, the capture's given triggers disabled in it when `off`; its duration, ms.
async function rolledBack(
  db: Database,
  off: boolean,
  triggers: string[],
  fn: (tx: Executor) => Promise<unknown>,
) {
  let ms = 0;
  await db
    .transaction(async (tx) => {
      if (off) for (const t of triggers) await tx.exec(disable(t));
      await tx.exec("set constraints all immediate");
      const t0 = performance.now();
      await fn(tx);
      ms = performance.now() - t0;
      throw new RolledBack();
    })
    .catch((err: unknown) => {
      if (!(err instanceof RolledBack)) throw err;
    });
  return ms;
}
class RolledBack extends Error {}

const disable = (t: string) => {
  const [table, trigger] = t.split(".");
  return `alter table ${table} disable trigger ${trigger}`;
};
const enable = (t: string) => disable(t).replace(" disable ", " enable ");

// (c) The capture's cost to writers.
async function writeOverhead(db: Database, orgId: string) {
  const update = (tx: Executor) =>
    tx.query(
      `update products set label = label || '·' where id in (select id from products where org_id = $1 order by id limit $2)`,
      [orgId, UPDATE_ROWS],
    );
  const [{ rows }] = (await db.query<{ rows: number }>(
    "select least(count(*), $2)::int as rows from products where org_id = $1",
    [orgId, UPDATE_ROWS],
  )) as [{ rows: number }];
  const on: number[] = [];
  const off: number[] = [];
  await rolledBack(db, false, UPDATE_TRIGGERS, update); // warm-up
  for (let i = 0; i < REPEAT; i++) {
    on.push(await rolledBack(db, false, UPDATE_TRIGGERS, update));
    off.push(await rolledBack(db, true, UPDATE_TRIGGERS, update));
  }
  return {
    sqlUpdate: {
      rows,
      onMs: round(median(on)),
      offMs: round(median(off)),
      overhead: `${round((100 * (median(on) - median(off))) / median(off), 0)}%`,
      rounds: REPEAT,
    },
    post: await postOverhead(db, orgId),
  };
}

// POST /public/v1/products, one after the other, in blocks with the capture on and off in turn.
async function postOverhead(db: Database, orgId: string) {
  const key = generateApiKey();
  const keyId = newId("key");
  await db.query(
    `insert into api_keys (id, org_id, name, prefix, key_hash, scopes) values ($1, $2, 'bench-changes', $3, $4, $5)`,
    [keyId, orgId, displayPrefix(key), hashApiKey(key), [...READ_SCOPES, WRITE_SCOPE]],
  );
  const created: string[] = [];
  const body = await creatableBody(db, orgId, "BENCH-CHANGES");
  let n = 0;
  const post = async () => {
    const t0 = performance.now();
    const res = await fetch(`${BASE}/public/v1/products`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body(++n)),
    });
    const ms = performance.now() - t0;
    const answer = (await res.json()) as { id?: string; code?: string; message?: string };
    if (res.status !== 201)
      throw new Error(`POST /public/v1/products: ${res.status} ${answer.code} ${answer.message}`);
    created.push(answer.id!);
    return ms;
  };
  try {
    const probe = await fetch(`${BASE}/public/v1/products`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}` },
    });
    if (probe.status === 405 || probe.status === 404) return { skipped: "the server's write preview is off" };
    // Warm-up: the server's first hundreds of POSTs are slower (its code still being optimized). With 5 only, the
    // first block, always "on", carried that warm-up: 7.9 ms against 6.6 ms for the same "on" a block later
    // (a probe of 300 POSTs per block, 2026-11-26), which made run 20's 26 %.
    for (let i = 0; i < POST_WARMUP; i++) await post();
    const block = Math.max(1, Math.floor(POSTS / 2));
    // One round: blocks in the order on, off, off, on (a drift over the round weighs on both sides alike); its
    // overhead from the medians of its own blocks.
    const round4 = async () => {
      const on: number[] = [];
      const off: number[] = [];
      for (const capture of [true, false, false, true]) {
        if (capture) {
          for (let i = 0; i < block; i++) on.push(await post());
          continue;
        }
        for (const t of CREATE_TRIGGERS) await db.exec(disable(t));
        try {
          for (let i = 0; i < block; i++) off.push(await post());
        } finally {
          for (const t of CREATE_TRIGGERS) await db.exec(enable(t));
        }
      }
      return { on, off, overhead: (median(on) - median(off)) / median(off) };
    };
    // Rounds of a mode, and what they say together (the median of the rounds' overheads: one round's figure moved
    // from 8 % to 20 % between runs of 21, with autovacuum or the refresher in one block and not in another).
    const rounds = async () => {
      const all = [];
      for (let r = 0; r < POST_ROUNDS; r++) all.push(await round4());
      const on = all.flatMap((r) => r.on);
      const off = all.flatMap((r) => r.off);
      return {
        posts: on.length + off.length,
        onP50Ms: round(median(on), 2),
        offP50Ms: round(median(off), 2),
        onP99Ms: round(percentile(on, 99), 2),
        offP99Ms: round(percentile(off, 99), 2),
        rounds: all.map((r) => `${round(100 * r.overhead, 0)}%`),
        overhead: `${round(100 * median(all.map((r) => r.overhead)), 0)}%`,
      };
    };
    // (1) The capture alone: what the write itself pays (the triggers, the commit's notification and what it wakes
    // in the server), the server's refresher of documents kept off the organization meanwhile (the bench holds the
    // advisory lock it takes: its steps find the organization "busy"). (2) The same with the refresher at work:
    // the upkeep of the documents after the writes shares the 2 cores with them.
    const capture = await db.transaction(async (tx) => {
      await tx.query("select pg_advisory_xact_lock(hashtext('catalog_product_documents'), hashtext($1))", [
        orgId,
      ]);
      return rounds();
    });
    const withUpkeep = await rounds();
    return { ...capture, withUpkeep };
  } finally {
    // The products created go (the deletes are captured), and the key.
    if (created.length) await db.query("delete from products where id = any($1::text[])", [created]);
    await db.query("delete from api_keys where id = $1", [keyId]);
  }
}

// Every capture trigger must be enabled before and after: a bench that died while they were off would leave the
// feed without its events.
async function checkTriggers(db: Database): Promise<void> {
  const off = await db.query<{ name: string }>(
    "select tgrelid::regclass || '.' || tgname as name from pg_trigger where tgname like '%\\_changes\\_%' and tgenabled = 'D'",
  );
  if (off.length) throw new Error(`capture triggers disabled: ${off.map((r) => r.name).join(", ")}`);
}

// What a run measured, as written to the .json file.
interface Results {
  date: string;
  machine: { cpus: number; load: number[] };
  settings: { url: string; org: string; products: number } & Record<string, string | number>;
  latency: Awaited<ReturnType<typeof latency>>;
  catchUp: Awaited<ReturnType<typeof catchUp>>;
  write: Awaited<ReturnType<typeof writeOverhead>>;
}

// The .md file of a run.
function markdown(r: Results): string {
  const { latency: a, catchUp: b, write: c } = r;
  const post =
    "skipped" in c.post
      ? `| POST /public/v1/products | skipped: ${c.post.skipped} | | |`
      : [
          `| POST /public/v1/products, the capture (p50 of ${c.post.posts}, one at a time, ${POST_ROUNDS} rounds of blocks on, off, off, on after a warm-up; the documents' refresher held off; each round: ${c.post.rounds.join(", ")}) | ${c.post.onP50Ms} ms (p99 ${c.post.onP99Ms}) | ${c.post.offP50Ms} ms (p99 ${c.post.offP99Ms}) | ${c.post.overhead} |`,
          `| the same with the refresher of documents at work (each round: ${c.post.withUpkeep.rounds.join(", ")}) | ${c.post.withUpkeep.onP50Ms} ms (p99 ${c.post.withUpkeep.onP99Ms}) | ${c.post.withUpkeep.offP50Ms} ms (p99 ${c.post.withUpkeep.offP99Ms}) | ${c.post.withUpkeep.overhead} |`,
        ].join("\n");
  return [
    `# Change feed benchmark ${r.date}`,
    "",
    `${r.machine.cpus} CPUs · server ${r.settings.url} · organization ${r.settings.org} (${r.settings.products} products) · ${r.settings.driver}`,
    "",
    "## (a) Latency: a committed change to its event in the hands of a client waiting with wait=30",
    "",
    `${a.changes} products relabelled with SQL, one transaction each, at ${a.ratePerSecond}/s; from the UPDATE sent (it takes ${a.writeP50Ms} ms, p50) to the follower holding the event.`,
    "",
    "| received | p50 ms | p99 ms | max ms |",
    "|---:|---:|---:|---:|",
    `| ${a.received}/${a.changes} | ${a.p50Ms} | ${a.p99Ms} | ${a.maxMs} |`,
    "",
    "## (b) Catch-up: a backlog read with limit=1000, one request after the other",
    "",
    "| events | served (one per object per page) | requests | s | events/s | ms/request |",
    "|---:|---:|---:|---:|---:|---:|",
    `| ${b.events} | ${b.served} | ${b.requests} | ${b.seconds} | ${b.eventsPerSecond} | ${b.msPerRequest} |`,
    "",
    `(The backlog took ${b.backlogMadeInSeconds} s to write; the server's products' documents were ${b.documentsCurrent ? `current ${b.documentsAfterSeconds} s after it` : `still not current ${b.documentsAfterSeconds} s after it: pages read products anew`}.)`,
    "",
    "## (c) Write overhead of the capture",
    "",
    "| write | capture on | capture off | overhead |",
    "|---|---:|---:|---:|",
    `| UPDATE of ${c.sqlUpdate.rows} products' labels (median of ${c.sqlUpdate.rounds}, commit work included, rolled back) | ${c.sqlUpdate.onMs} ms | ${c.sqlUpdate.offMs} ms | ${c.sqlUpdate.overhead} |`,
    post,
    "",
  ].join("\n");
}

async function main(): Promise<void> {
  if (!BASE || !KEY || !env.DATABASE_URL)
    throw new Error("set BENCH_URL (the server), BENCH_KEY (a key of the organization) and DATABASE_URL");
  const db = await openPg(env.DATABASE_URL, 4);
  try {
    const [org] = await db.query<{ id: string; slug: string; products: number }>(
      `select o.id, o.slug, (select count(*)::int from products p where p.org_id = o.id) as products
         from api_keys k join organizations o on o.id = k.org_id where k.key_hash = $1`,
      [hashApiKey(KEY)],
    );
    if (!org) throw new Error("BENCH_KEY is not a key of this database");
    await checkTriggers(db);
    await feed("limit=1"); // the feature is on and the key reads products
    log(`organization ${org.slug} (${org.products} products) on ${BASE}`);
    log(`(a) latency: ${CHANGES} changes at ${RATE}/s`);
    const a = await latency(db, org.id);
    log(`    p50 ${a.p50Ms} ms, p99 ${a.p99Ms} ms (${a.received}/${a.changes} received)`);
    log(`(b) catch-up: a backlog of about ${BACKLOG} events`);
    const b = await catchUp(db, org.id);
    log(`    ${b.eventsPerSecond} events/s (${b.events} events, ${b.requests} requests, ${b.seconds} s)`);
    log(`(c) write overhead: UPDATE of up to ${UPDATE_ROWS} rows × ${REPEAT}, ${POSTS} POSTs`);
    const c = await writeOverhead(db, org.id);
    log(`    UPDATE ${c.sqlUpdate.onMs} vs ${c.sqlUpdate.offMs} ms; POST ${JSON.stringify(c.post)}`);
    await checkTriggers(db);
    const date = new Date().toISOString().replace(/:/g, "-").replace(/\..*/, "Z");
    const results: Results = {
      date,
      machine: { cpus: os.cpus().length, load: os.loadavg().map((x) => round(x, 2)) },
      settings: {
        url: BASE,
        org: org.slug,
        products: org.products,
        driver: "pg",
        changes: CHANGES,
        rate: RATE,
        backlog: BACKLOG,
        updateRows: UPDATE_ROWS,
        repeat: REPEAT,
        posts: POSTS,
      },
      latency: a,
      catchUp: b,
      write: c,
    };
    mkdirSync(RESULTS, { recursive: true });
    const stem = `${date.slice(0, 10)}-changes${env.BENCH_TAG ? `-${env.BENCH_TAG}` : ""}`;
    writeFileSync(path.join(RESULTS, `${stem}.json`), `${JSON.stringify(results, null, 2)}\n`);
    writeFileSync(path.join(RESULTS, `${stem}.md`), markdown(results));
    log(`results: bench/results/${stem}.json, .md`);
  } finally {
    await db.close();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exit(1);
});
