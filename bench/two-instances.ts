// `npm run bench:instances`: two instances of the production server (`node scripts/serve.mjs`, the build as it is:
// run `npm run build` first) on one Postgres and one Redis, on loopback. Two measures (issue 27 item 3):
//   (a) revocation: a key used on both instances (each caches it, KEY_CACHE_TTL_SECONDS as configured: 5 s by
//       default), then revoked with SQL as the keys CLI or the console writes it; from the commit to the first 401 of
//       each instance, polled every few milliseconds; BENCH_TRIES tries (20): p50 and max over both instances;
//   (b) the rate limit across both: a fresh key, BENCH_QUOTA (100) requests per 60 s, 1.5 × the quota sent in turn
//       to each instance: the 200s of both together must not pass the quota;
//   (c) a write seen across: a product created through instance 1 (the write preview's POST), then page 1 of the
//       products on instance 2 (default sort: the newest first) read until it shows it, from the POST's 201 on;
//       BENCH_TRIES tries: p50 and max, and the reads it took (every cache is keyed by the version the writer's
//       transaction bumped, read by each request: the first read after the commit should show it). The products made
//       are deleted at the end.
// Writes bench/results/<date>-two-instances.json and .md.
//
// Environment: DATABASE_URL (a migrated database with at least one organization with products: the bench database),
// REDIS_URL (a Redis server), BENCH_ORG (an organization's slug; the first one otherwise), BENCH_TRIES, BENCH_QUOTA.
// The instances run with PUBLIC_API_PREVIEW=writes unless it is set (the write preview adds nothing to (a) and (b)).
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { openPg } from "@/db/client";
import { createApiKey } from "@/lib/keys/store";
import { READ_SCOPES, WRITE_SCOPE } from "@/lib/keys/scopes";
import { creatableBody, freePort, percentile, round, waitFor } from "./support";

const env = process.env;
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const TRIES = Number(env.BENCH_TRIES ?? 20);
const QUOTA = Number(env.BENCH_QUOTA ?? 100);

function log(msg: string): void {
  console.log(`[bench:instances] ${msg}`);
}

async function main(): Promise<void> {
  const url = env.DATABASE_URL;
  if (!url || !env.REDIS_URL) throw new Error("DATABASE_URL and REDIS_URL are required");
  const db = await openPg(url, 4);
  const [org] = await db.query<{ id: string; slug: string }>(
    env.BENCH_ORG
      ? "select id, slug from organizations where slug = $1"
      : "select id, slug from organizations order by slug limit 1",
    env.BENCH_ORG ? [env.BENCH_ORG] : [],
  );
  if (!org) throw new Error("no organization to measure");
  const ports = [await freePort(), await freePort()];
  const children: ChildProcess[] = [];
  const bases = ports.map((p) => `http://127.0.0.1:${p}`);
  const made: string[] = [];
  const products: string[] = [];
  try {
    for (const [i, port] of ports.entries()) {
      const child = spawn(process.execPath, ["scripts/serve.mjs"], {
        cwd: ROOT,
        env: {
          ...env,
          NODE_ENV: "production",
          NEXT_TELEMETRY_DISABLED: "1",
          PUBLIC_API_PREVIEW: env.PUBLIC_API_PREVIEW ?? "writes",
          DEMO_SEED: "never",
          PORT: String(port),
          HOSTNAME: "127.0.0.1",
          PUBLIC_BASE_URL: bases[0],
          RATE_LIMIT_ENABLED: "true",
          RATE_LIMIT_REQUESTS: String(QUOTA),
          RATE_LIMIT_WINDOW_SECONDS: "60",
          AUTH_SECRET: env.AUTH_SECRET ?? "bench-two-instances-secret-0123456789abcdef",
        },
        stdio: ["ignore", "ignore", "inherit"],
      });
      children.push(child);
      log(`instance ${i + 1}: ${bases[i]} (pid ${child.pid})`);
    }
    for (const b of bases) await waitFor(`${b}/public/v1/openapi.json`, { timeoutMs: 60_000 });
    const newKey = async (name: string, scopes: readonly string[] = READ_SCOPES) => {
      const k = await createApiKey(db, {
        orgId: org.id,
        name,
        scopes,
        allowWrite: scopes.includes(WRITE_SCOPE),
      });
      made.push(k.id);
      return k;
    };
    const status = async (base: string, key: string) => {
      const res = await fetch(`${base}/public/v1/categories?perPage=1`, {
        headers: { authorization: `Bearer ${key}` },
      });
      await res.arrayBuffer();
      return res.status;
    };

    // (a) Revocation seen by both instances.
    const delays: number[] = [];
    for (let t = 0; t < TRIES; t++) {
      const k = await newKey(`bench revocation ${t}`);
      for (const b of bases) if ((await status(b, k.key)) !== 200) throw new Error("a fresh key was refused");
      await db.query("update api_keys set revoked_at = now() where id = $1", [k.id]);
      const t0 = performance.now();
      await Promise.all(
        bases.map(async (b) => {
          for (;;) {
            if ((await status(b, k.key)) === 401) break;
            if (performance.now() - t0 > 30_000)
              throw new Error(`${b} still accepts a revoked key after 30 s`);
            await new Promise((r) => setTimeout(r, 2));
          }
          delays.push(performance.now() - t0);
        }),
      );
    }
    const revocation = {
      tries: TRIES,
      instances: 2,
      p50Ms: round(percentile(delays, 50)),
      maxMs: round(Math.max(...delays)),
    };
    log(`revocation: ${JSON.stringify(revocation)}`);

    // (b) One key's quota across both instances.
    const k = await newKey("bench quota");
    const counts: Record<string, number> = {};
    for (let i = 0; i < Math.ceil(QUOTA * 1.5); i++) {
      const s = await status(bases[i % 2]!, k.key);
      counts[s] = (counts[s] ?? 0) + 1;
    }
    const rateLimit = {
      quota: QUOTA,
      sent: Math.ceil(QUOTA * 1.5),
      statuses: counts,
      held: (counts[200] ?? 0) <= QUOTA,
    };
    log(`rate limit: ${JSON.stringify(rateLimit)}`);

    // (c) A product created through instance 1, seen on page 1 of instance 2.
    const writer = await newKey("bench write seen across", [...READ_SCOPES, WRITE_SCOPE]);
    const body = await creatableBody(db, org.id, "bench-instances");
    const seenDelays: number[] = [];
    const reads: number[] = [];
    for (let t = 0; t < TRIES; t++) {
      const res = await fetch(`${bases[0]}/public/v1/products`, {
        method: "POST",
        headers: { authorization: `Bearer ${writer.key}`, "content-type": "application/json" },
        body: JSON.stringify(body(t)),
      });
      const created = (await res.json()) as { id?: string };
      if (res.status !== 201 || !created.id) throw new Error(`the POST answered ${res.status}`);
      products.push(created.id);
      const t0 = performance.now();
      for (let n = 1; ; n++) {
        const page = await fetch(`${bases[1]}/public/v1/products?perPage=20`, {
          headers: { authorization: `Bearer ${writer.key}` },
        });
        const { data } = (await page.json()) as { data: { id: string }[] };
        if (data.some((p) => p.id === created.id)) {
          seenDelays.push(performance.now() - t0);
          reads.push(n);
          break;
        }
        if (performance.now() - t0 > 30_000)
          throw new Error("instance 2 still misses the product after 30 s");
        await new Promise((r) => setTimeout(r, 2));
      }
    }
    const writeSeen = {
      tries: TRIES,
      p50Ms: round(percentile(seenDelays, 50)),
      maxMs: round(Math.max(...seenDelays)),
      readsMax: Math.max(...reads),
    };
    log(`write seen across: ${JSON.stringify(writeSeen)}`);

    const at = new Date().toISOString();
    const result = {
      at,
      host: { cpus: os.cpus().length, node: process.version },
      org: org.slug,
      revocation,
      rateLimit,
      writeSeen,
    };
    const dir = path.join(ROOT, "bench/results");
    mkdirSync(dir, { recursive: true });
    const name = `${at.slice(0, 10)}-two-instances${env.BENCH_TAG ? `-${env.BENCH_TAG}` : ""}`;
    writeFileSync(path.join(dir, `${name}.json`), `${JSON.stringify(result, null, 2)}\n`);
    writeFileSync(
      path.join(dir, `${name}.md`),
      [
        `# Two instances on one Postgres and one Redis (${at}, ${os.cpus().length} CPUs)`,
        "",
        `Revocation (SQL, as the keys CLI writes it) to the first 401 of each instance, ${TRIES} tries × 2 instances: p50 ${revocation.p50Ms} ms, max ${revocation.maxMs} ms.`,
        "",
        `One key's quota of ${QUOTA} per 60 s, ${rateLimit.sent} requests in turn to each instance: ${Object.entries(
          counts,
        )
          .map(([s, n]) => `${n} × ${s}`)
          .join(", ")} (${rateLimit.held ? "held" : "NOT held"}).`,
        "",
        `A product created through instance 1 (POST, from its 201) to page 1 of instance 2 showing it, ${TRIES} tries: p50 ${writeSeen.p50Ms} ms, max ${writeSeen.maxMs} ms; ${writeSeen.readsMax === 1 ? "each time the first read" : `at most ${writeSeen.readsMax} reads`}.`,
        "",
      ].join("\n"),
    );
    log(`wrote bench/results/${name}.json and .md`);
  } finally {
    for (const c of children) c.kill("SIGTERM");
    if (products.length)
      await db.query("delete from products where org_id = $1 and id = any($2::text[])", [org.id, products]);
    if (made.length) await db.query("delete from api_keys where id = any($1::text[])", [made]);
    await db.close();
  }
}

await main();
