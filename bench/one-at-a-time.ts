// The request classes of a big catalog, one request at a time (no contention): deep pages of 100 in every documented
// sort, searches of a common and a rare word (pages 1–3), `updatedSince` windows, and the first request after a write
// (a page 1 in each sort, its total counted again). Each class: p50, p90, max over its requests. Used by
// bench/run.ts on the million-product organization; runnable alone against a server already running:
//   BENCH_URL=http://127.0.0.1:3410 BENCH_KEY=pca_… BENCH_DATABASE_URL=postgres://…/catalog_bench \
//   npx tsx bench/one-at-a-time.ts
// The writes are SQL on the server's database (a product's label set to itself: the products' version and feed move,
// nothing else changes), so run it on a bench database only.
import http from "node:http";
import { pathToFileURL } from "node:url";
import pg from "pg";
import { percentile, round } from "./support";

export interface ClassFigure {
  name: string;
  requests: number;
  p50: number;
  p90: number;
  max: number;
  /** Answers that were not 200. */
  failed: number;
}

export interface OneAtATimeOptions {
  baseUrl: string;
  key: string;
  /** The organization's database: its words, and the writes before the after-a-write class. */
  databaseUrl: string;
  orgSlug: string;
  /** Requests per class (default 60). */
  perClass?: number;
  log?: (msg: string) => void;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

// One GET, its latency (departure to the end of the body) and status.
function get(base: URL, key: string, path: string): Promise<{ ms: number; status: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get(
      { host: base.hostname, port: base.port, path, agent, headers: { authorization: `Bearer ${key}` } },
      (res) => {
        res.on("data", () => undefined);
        res.on("end", () => resolve({ ms: performance.now() - t0, status: res.statusCode ?? 0 }));
      },
    );
    req.on("error", reject);
  });
}

function figure(name: string, samples: { ms: number; status: number }[]): ClassFigure {
  const ms = samples.map((s) => s.ms);
  return {
    name,
    requests: samples.length,
    p50: round(percentile(ms, 50), 1),
    p90: round(percentile(ms, 90), 1),
    max: round(Math.max(...ms), 1),
    failed: samples.filter((s) => s.status !== 200).length,
  };
}

// A word of the organization's labels held by many products, and one held by few (counted with SQL once).
async function words(db: pg.Client, orgId: string): Promise<{ common: string; rare: string }> {
  const labels = await db.query<{ label: string }>(
    "select label from products where org_id = $1 order by md5(id) limit 500",
    [orgId],
  );
  const counts = new Map<string, number>();
  for (const l of labels.rows) {
    for (const w of new Set(l.label.toLowerCase().split(/[^\p{L}\p{N}]+/u))) {
      if (w.length >= 5) counts.set(w, (counts.get(w) ?? 0) + 1);
    }
  }
  const ranked = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const common = ranked[0]![0];
  // A rare word: the identifier of one product (a search matches SKUs too).
  const rare = (
    await db.query<{ identifier: string }>(
      "select identifier from products where org_id = $1 order by md5(id) limit 1",
      [orgId],
    )
  ).rows[0]!.identifier.toLowerCase();
  return { common, rare };
}

export async function oneAtATime(o: OneAtATimeOptions): Promise<{ words: object; classes: ClassFigure[] }> {
  const base = new URL(o.baseUrl);
  const n = o.perClass ?? 60;
  const log = o.log ?? (() => undefined);
  const db = new pg.Client({ connectionString: o.databaseUrl });
  await db.connect();
  try {
    const org = (await db.query<{ id: string }>("select id from organizations where slug = $1", [o.orgSlug]))
      .rows[0]!;
    const [{ n: products }] = (
      await db.query<{ n: number }>("select count(*)::int as n from products where org_id = $1", [org.id])
    ).rows as [{ n: number }];
    const w = await words(db, org.id);
    const lastPage = Math.max(1, Math.floor(products / 100));
    // Deterministic pages spread over the whole catalog.
    let seed = 7;
    const nextPage = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return 1 + (seed % lastPage);
    };
    // A write that changes no answer's content but moves the products' version and feed: products spread over the
    // catalog relabelled to their own labels, in turn.
    const spread = (
      await db.query<{ id: string }>(
        "select id from products where org_id = $1 order by md5(id) limit 1000",
        [org.id],
      )
    ).rows.map((r) => r.id);
    let writes = 0;
    const write = () =>
      db.query("update products set label = label where org_id = $1 and id = $2", [
        org.id,
        spread[writes++ % spread.length],
      ]);
    const classes: ClassFigure[] = [];
    const run = async (name: string, path: (i: number) => string, before?: () => Promise<unknown>) => {
      const samples = [];
      for (let i = 0; i < n; i++) {
        await before?.();
        samples.push(await get(base, o.key, path(i)));
      }
      const f = figure(name, samples);
      log(
        `  ${name}: p50 ${f.p50} ms, p90 ${f.p90} ms, max ${f.max} ms${f.failed ? `, ${f.failed} failed` : ""}`,
      );
      classes.push(f);
    };
    for (const sort of [
      "updatedAt.desc",
      "updatedAt.asc",
      "label.asc",
      "label.desc",
      "identifier.asc",
      "status.asc",
    ]) {
      await run(
        `deep page of 100, ${sort}`,
        () => `/public/v1/products?perPage=100&sort=${sort}&page=${nextPage()}`,
      );
    }
    for (const [kind, word] of [
      ["common", w.common],
      ["rare", w.rare],
    ] as const) {
      await run(
        `search, a ${kind} word, pages 1–3`,
        (i) => `/public/v1/products?q=${encodeURIComponent(word)}&page=${1 + (i % 3)}`,
      );
    }
    const hours = [1, 24, 24 * 7, 24 * 30];
    await run("updatedSince window, perPage 100", (i) => {
      const since = new Date(Date.now() - hours[i % hours.length]! * 3_600_000 - i * 1000).toISOString();
      return `/public/v1/products?perPage=100&updatedSince=${encodeURIComponent(since)}`;
    });
    for (const sort of ["updatedAt.desc", "label.asc", "identifier.asc", "status.asc"]) {
      await run(
        `first request after a write, page 1, ${sort}`,
        () => `/public/v1/products?sort=${sort}`,
        write,
      );
    }
    await run(
      `first request after a write, search (common word)`,
      () => `/public/v1/products?q=${encodeURIComponent(w.common)}`,
      write,
    );
    return { words: w, classes };
  } finally {
    await db.end();
  }
}

// Alone: BENCH_URL, BENCH_KEY, BENCH_DATABASE_URL, BENCH_ORG (bench), BENCH_PER_CLASS (60).
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const env = process.env;
  const out = await oneAtATime({
    baseUrl: env.BENCH_URL ?? "http://127.0.0.1:3410",
    key: env.BENCH_KEY ?? "",
    databaseUrl: env.BENCH_DATABASE_URL ?? "",
    orgSlug: env.BENCH_ORG ?? "bench",
    perClass: Number(env.BENCH_PER_CLASS ?? 60),
    log: (m) => console.log(m),
  });
  console.log(JSON.stringify(out, null, 2));
  agent.destroy();
}
