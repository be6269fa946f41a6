// `npm run bench:mirror`: the mirror command (`npm run mirror`, scripts/mirror.ts) on an organization of the bench
// database, without --follow: it loads the whole catalog from the export into a fresh target database on the same
// Postgres server (one transaction), then catches up with the feed and exits. Measures the load's products/s (from
// the command's own progress line), the whole run's time, the mirror process's peak memory (VmHWM and VmRSS from
// /proc/<pid>/status every 250 ms) and CPU time, the Postgres processes' CPU time, and the server's RSS when its pid
// is known; checks the target's counts against the organization's. Writes bench/results/<date>-mirror[-BENCH_TAG].json
// and .md.
//
// The server: BENCH_URL when given (a server already running with PUBLIC_API_PREVIEW including changes,export and no
// rate limit that would slow the run; BENCH_SERVER_PID for its RSS), else `npm start` is started here on port 3415
// against BENCH_DATABASE_URL (NODE_ENV=production, DEMO_SEED=never, RATE_LIMIT_ENABLED=false, the previews
// details,changes,export; it builds the app first when the sources changed) and stopped at the end.
// Environment: BENCH_DATABASE_URL (postgres://postgres@127.0.0.1:55440/catalog_bench), BENCH_ORG (the organization's
// slug; default `bench`, else the one with the most products), BENCH_URL, BENCH_SERVER_PID, BENCH_TAG (a file
// suffix), BENCH_RESULTS (bench/results), BENCH_KEEP_TARGET=1 (the target database is kept, else dropped).
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { commandCpuMs, cpuBetween, processCpuMs, treeRssMb } from "./process-rss";
import { insertKeys, round, waitFor } from "./support";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const env = process.env;
const DATABASE_URL = env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:55440/catalog_bench";
const RESULTS = path.resolve(env.BENCH_RESULTS ?? path.join(ROOT, "bench/results"));
const PORT = 3415;
const SAMPLE_MS = 250;

function log(msg: string): void {
  console.log(`[bench:mirror ${new Date().toISOString().slice(11, 19)}] ${msg}`);
}

// The organization measured: its id, slug, products and feed head.
interface Org {
  id: string;
  slug: string;
  products: number;
  head: string;
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

// The organization (BENCH_ORG, else `bench`, else the one with the most products) and a fresh read key of it.
async function organization(): Promise<{ org: Org; key: string }> {
  return withClient(DATABASE_URL, async (c) => {
    const slug = env.BENCH_ORG;
    const select = `select o.id, o.slug, (select count(*)::int from products p where p.org_id = o.id) as products,
              coalesce((select head::text from catalog_change_heads h where h.org_id = o.id), '0') as head
         from organizations o`;
    let { rows } = await c.query<Org>(`${select} where o.slug = $1`, [slug ?? "bench"]);
    if (!rows.length && !slug)
      ({ rows } = await c.query<Org>(
        `${select} where o.id = (select org_id from products group by 1 order by count(*) desc limit 1)`,
      ));
    const org = rows[0];
    if (!org)
      throw new Error(`no organization ${slug ?? "bench"} in ${DATABASE_URL.replace(/:\/\/[^@]*@/, "://")}`);
    const [key] = await insertKeys(
      { query: async (q, p) => (await c.query(q, p as unknown[])).rows },
      org.id,
      "bench-mirror",
      1,
    );
    return { org, key: key! };
  });
}

// A fresh target database beside the bench database; its URL and its drop.
async function targetDatabase(): Promise<{ url: string; name: string; drop: () => Promise<void> }> {
  const name = `mirror_bench_${randomBytes(4).toString("hex")}`;
  await withClient(DATABASE_URL, (c) => c.query(`create database "${name}"`));
  const url = new URL(DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () =>
      withClient(DATABASE_URL, (c) => c.query(`drop database if exists "${name}" with (force)`)).then(
        () => undefined,
      ),
  };
}

// The server: BENCH_URL, or `npm start` on PORT against the bench database (stopped by `stop`).
async function server(): Promise<{ baseUrl: string; pid?: number; stop: () => void }> {
  if (env.BENCH_URL)
    return {
      baseUrl: env.BENCH_URL.replace(/\/+$/, ""),
      pid: env.BENCH_SERVER_PID ? Number(env.BENCH_SERVER_PID) : undefined,
      stop: () => undefined,
    };
  const logFile = path.join(ROOT, "bench/.work/mirror-server.log");
  mkdirSync(path.dirname(logFile), { recursive: true });
  writeFileSync(logFile, "");
  const child: ChildProcess = spawn("npm", ["start"], {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...env,
      NODE_ENV: "production",
      DATABASE_URL,
      DEMO_SEED: "never",
      RATE_LIMIT_ENABLED: "false",
      PUBLIC_API_PREVIEW: "details,changes,export",
      AUTH_SECRET: env.AUTH_SECRET ?? randomBytes(32).toString("hex"),
      PORT: String(PORT),
      HOSTNAME: "127.0.0.1",
      PUBLIC_BASE_URL: `http://127.0.0.1:${PORT}`,
      NEXT_TELEMETRY_DISABLED: "1",
    },
  });
  const append = (b: Buffer) => writeFileSync(logFile, b, { flag: "a" });
  child.stdout!.on("data", append);
  child.stderr!.on("data", append);
  const stop = () => {
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      // gone
    }
  };
  process.on("exit", stop);
  log(`npm start on port ${PORT} (log: ${path.relative(ROOT, logFile)}) …`);
  await waitFor(`http://127.0.0.1:${PORT}/public/v1/openapi.json`, { child, timeoutMs: 900_000 });
  return { baseUrl: `http://127.0.0.1:${PORT}`, pid: child.pid, stop };
}

// The peak of a process's memory while it runs, from /proc/<pid>/status (MB).
function memoryOf(pid: number): { hwm: number; rss: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
    return { hwm: Math.round(kb("VmHWM") / 1024), rss: Math.round(kb("VmRSS") / 1024) };
  } catch {
    return { hwm: 0, rss: 0 };
  }
}

// One run of the mirror command to its exit, measured.
async function runMirror(baseUrl: string, key: string, to: string, serverPid: number | undefined) {
  const postgresBefore = commandCpuMs("postgres");
  const t0 = performance.now();
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "scripts/mirror.ts", "--base-url", baseUrl, "--key", key, "--to", to],
    {
      cwd: ROOT,
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  child.stderr!.on("data", (b: Buffer) => {
    stderr += b.toString();
    process.stderr.write(b);
  });
  let peak = { hwm: 0, rss: 0 };
  let cpuMs = 0;
  let serverRssPeak = serverPid ? treeRssMb(serverPid) : undefined;
  const sample = () => {
    const m = memoryOf(child.pid!);
    peak = { hwm: Math.max(peak.hwm, m.hwm), rss: Math.max(peak.rss, m.rss) };
    cpuMs = Math.max(cpuMs, processCpuMs(child.pid!));
    if (serverPid) serverRssPeak = Math.max(serverRssPeak ?? 0, treeRssMb(serverPid));
  };
  const timer = setInterval(sample, SAMPLE_MS);
  const code = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
  clearInterval(timer);
  const seconds = (performance.now() - t0) / 1000;
  if (code !== 0) throw new Error(`the mirror exited with ${code}:\n${stderr}`);
  const loaded = /mirror: products: ([\d,]+) items loaded in ([\d.]+) s/.exec(stderr);
  const all = /mirror: loaded ([\d,]+) items in ([\d.]+) s/.exec(stderr);
  const products = Number(loaded?.[1]?.replace(/,/g, "") ?? 0);
  const productsSeconds = Number(loaded?.[2] ?? 0);
  return {
    seconds: round(seconds, 2),
    products,
    productsSeconds,
    productsPerSecond: productsSeconds > 0 ? Math.round(products / productsSeconds) : undefined,
    items: Number(all?.[1]?.replace(/,/g, "") ?? 0),
    loadSeconds: Number(all?.[2] ?? 0),
    peakHwmMb: peak.hwm,
    peakRssMb: peak.rss,
    mirrorCpuSeconds: round(cpuMs / 1000, 1),
    postgresCpuSeconds: round(cpuBetween(postgresBefore, commandCpuMs("postgres")) / 1000, 1),
    serverRssPeakMb: serverRssPeak,
    stderr,
  };
}

async function main(): Promise<void> {
  const { org, key } = await organization();
  log(`organization ${org.slug}: ${org.products} products, feed head ${org.head}`);
  const target = await targetDatabase();
  const srv = await server();
  const loadBefore = os.loadavg().map((n) => round(n, 2));
  try {
    log(`mirror → ${target.name} …`);
    const run = await runMirror(srv.baseUrl, key, target.url, srv.pid);
    const counts = await withClient(
      target.url,
      async (c) =>
        (await c.query<{ n: number }>("select count(*)::int as n from catalog_mirror.products")).rows[0]!.n,
    );
    if (counts !== org.products)
      log(
        `warning: the target has ${counts} products, the organization ${org.products} (a write during the run?)`,
      );
    const date = new Date()
      .toISOString()
      .replace(/:/g, "-")
      .replace(/\.\d+Z$/, "Z");
    const stem = `${date.slice(0, 10)}-mirror${env.BENCH_TAG ? `-${env.BENCH_TAG}` : ""}`;
    const { stderr, ...measured } = run;
    const results = {
      date,
      server: srv.baseUrl,
      organization: org.slug,
      organizationProducts: org.products,
      targetProducts: counts,
      machine: {
        cpus: os.cpus().length,
        loadBefore,
        loadAfter: os.loadavg().map((n) => round(n, 2)),
        node: process.version,
      },
      run: measured,
      progress: stderr.trim().split("\n"),
    };
    mkdirSync(RESULTS, { recursive: true });
    writeFileSync(path.join(RESULTS, `${stem}.json`), `${JSON.stringify(results, null, 2)}\n`);
    const md = [
      `# Mirror benchmark ${date}`,
      "",
      `\`npm run mirror\` without --follow, server ${srv.baseUrl}, organization \`${org.slug}\` (${org.products} products) into a fresh database of the same Postgres server · ${results.machine.cpus} CPUs · load before ${loadBefore.join(" / ")}, after ${results.machine.loadAfter.join(" / ")}.`,
      "",
      "| products | products/s (load) | products' load s | load s (every resource, one transaction) | whole run s | mirror peak RSS MB (VmHWM) | mirror CPU s | Postgres CPU s | server RSS MB peak |",
      "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
      `| ${measured.products} | ${measured.productsPerSecond ?? "—"} | ${measured.productsSeconds} | ${measured.loadSeconds} | ${measured.seconds} | ${measured.peakHwmMb} | ${measured.mirrorCpuSeconds} | ${measured.postgresCpuSeconds} | ${measured.serverRssPeakMb ?? "—"} |`,
      "",
      "The command's progress:",
      "",
      "```",
      ...results.progress,
      "```",
      "",
    ].join("\n");
    writeFileSync(path.join(RESULTS, `${stem}.md`), md);
    console.log(`\n${md}`);
    log(`results: ${path.relative(ROOT, path.join(RESULTS, stem))}.json, .md`);
  } finally {
    srv.stop();
    if (env.BENCH_KEEP_TARGET === "1") log(`target kept: ${target.name}`);
    else await target.drop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
