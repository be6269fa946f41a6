// `npm run soak`: several minutes of loopback load across every operation of the public API (issue 27 item 9), on the
// production server as built (`node scripts/serve.mjs`: run `npm run build` first), started here with
// PUBLIC_API_PREVIEW=all and WEBHOOKS_ALLOW_PRIVATE_URLS=true on 127.0.0.1.
//   Database: DATABASE_URL when given (migrated; its organizations acme and globex, else the first two with products;
//   keys, webhook endpoints and the products written are deleted at the end), REDIS_URL passed on when given; else
//   the embedded default in a temporary DATA_DIR, migrated and seeded with the demo (acme, globex) here before the
//   server starts (PGlite takes one process at a time), removed at the end.
//   Load, for SOAK_SECONDS: SOAK_KEYS read keys of each of the two organizations drawing, at SOAK_RATE req/s (open
//   loop), lists with filters, sorts and pages (bench/mix.ts), details, channels, the change feed from a cursor, and
//   ETag polls with If-None-Match (304s expected); 2 feed readers (one per organization) long-polling
//   /public/v1/changes?wait=… and following the cursor; an export at a time every SOAK_EXPORT_EVERY seconds; POST
//   /public/v1/products with a write key at SOAK_WRITE_RATE/s; a webhook endpoint of each organization (made on the
//   database before the load, as the console makes it) on a loopback receiver that counts the deliveries.
//   Report: per minute requests, statuses (5xx and transport errors called out), p50/p99 of the short requests and
//   the server's RSS (its process tree, /proc); RSS at start and end; deliveries received and feed events seen against
//   the products written. Writes bench/results/<date>-soak[-SOAK_TAG].json and .md; exits 1 on any 5xx or transport
//   error.
//
// Environment: SOAK_SECONDS (300), SOAK_RATE (30 req/s), SOAK_KEYS (20 per organization), SOAK_WRITE_RATE (0.5/s),
// SOAK_EXPORT_EVERY (20 s), SOAK_FEED_WAIT (20 s), SOAK_DRAIN_SECONDS (20: the longest wait after the load for the
// deliveries and the feed to catch up), SOAK_TAG (file suffix), SOAK_KEEP_DATA=1 (keep the temporary DATA_DIR),
// DATABASE_URL, REDIS_URL.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import type { Database } from "@/db/client";
import { seedDemo } from "@/db/seed/index";
import { loadConfig } from "@/lib/config";
import { createApiKey } from "@/lib/keys/store";
import { READ_SCOPES, WRITE_SCOPE } from "@/lib/keys/scopes";
import { createEndpoint, endpointInputSchema } from "@/lib/webhooks/endpoints";
import { randomSource } from "@/lib/seeded-random";
import { buildReason } from "../scripts/lib/build";
import { openMigratedDatabase } from "../scripts/lib/database";
import { loadMix, mixDrawer, type Mix } from "./mix";
import { treeRssMb } from "./process-rss";
import { creatableBody, freePort, percentile, round, waitFor } from "./support";

const env = process.env;
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const RESULTS = path.join(ROOT, "bench/results");
const SECONDS = Number(env.SOAK_SECONDS ?? 300);
const RATE = Number(env.SOAK_RATE ?? 30);
const KEYS = Number(env.SOAK_KEYS ?? 20);
const WRITE_RATE = Number(env.SOAK_WRITE_RATE ?? 0.5);
const EXPORT_EVERY = Number(env.SOAK_EXPORT_EVERY ?? 20);
const FEED_WAIT = Number(env.SOAK_FEED_WAIT ?? 20);
const DRAIN_SECONDS = Number(env.SOAK_DRAIN_SECONDS ?? 20);
// Requests in flight beyond which a due request is not sent but counted as dropped (the server is not keeping up).
const MAX_IN_FLIGHT = 200;
const REQUEST_TIMEOUT_MS = 30_000;

function log(msg: string): void {
  console.log(`[soak ${new Date().toISOString().slice(11, 19)}] ${msg}`);
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// What the load needs of one organization.
interface SoakOrg {
  id: string;
  slug: string;
  readKeys: string[];
  writeKey: string;
  productIds: string[];
  familyIds: string[];
  attributeIds: string[];
  /** The feed's head before the load. */
  head: string;
  body: (n: number) => unknown;
}

// Keys, ids, bodies and the mix of the two organizations; webhook endpoints on the receiver. Returns what to delete.
async function prepare(
  db: Database,
  receiver: string,
): Promise<{ orgs: SoakOrg[]; mix: Mix; keyIds: string[]; endpointIds: string[] }> {
  let picked = await db.query<{ id: string; slug: string }>(
    "select id, slug from organizations where slug in ('acme', 'globex') order by slug",
  );
  if (picked.length < 2)
    picked = await db.query<{ id: string; slug: string }>(
      `select o.id, o.slug from organizations o
        where exists (select 1 from products p where p.org_id = o.id) order by o.slug limit 2`,
    );
  if (picked.length < 2)
    throw new Error(
      "the database needs two organizations with products (load the demo with `npm run db:seed`)",
    );
  const keyIds: string[] = [];
  const endpointIds: string[] = [];
  const orgs: SoakOrg[] = [];
  for (const o of picked) {
    const readKeys: string[] = [];
    for (let i = 0; i < KEYS; i++) {
      const k = await createApiKey(db, { orgId: o.id, name: `soak ${i}`, scopes: READ_SCOPES });
      keyIds.push(k.id);
      readKeys.push(k.key);
    }
    const w = await createApiKey(db, {
      orgId: o.id,
      name: "soak writes",
      scopes: [...READ_SCOPES, WRITE_SCOPE],
      allowWrite: true,
    });
    keyIds.push(w.id);
    const ids = async (sql: string) => (await db.query<{ id: string }>(sql, [o.id])).map((r) => r.id);
    const { endpoint } = await createEndpoint(
      db,
      o.id,
      endpointInputSchema.parse({ url: `${receiver}/${o.slug}`, description: "npm run soak" }),
    );
    endpointIds.push(endpoint.id);
    const [h] = await db.query<{ head: string }>(
      "select coalesce((select head from catalog_change_heads where org_id = $1), 0)::text as head",
      [o.id],
    );
    orgs.push({
      ...o,
      readKeys,
      writeKey: w.key,
      productIds: await ids("select id from products where org_id = $1 order by md5(id) limit 300"),
      familyIds: await ids("select id from families where org_id = $1 order by md5(id) limit 50"),
      attributeIds: await ids("select id from attributes where org_id = $1 order by md5(id) limit 50"),
      head: h!.head,
      body: await creatableBody(db, o.id, "SOAK", "Produit du soak"),
    });
  }
  const mix = await loadMix(
    db,
    orgs.map((o) => ({ id: o.id, slug: o.slug, keys: o.readKeys })),
  );
  return { orgs, mix, keyIds, endpointIds };
}

// Per-minute and per-operation tallies.
interface Tally {
  requests: number;
  statuses: Record<string, number>;
  transport: Record<string, number>;
  latencies: number[];
  /** Due requests not sent: MAX_IN_FLIGHT were in flight. */
  dropped: number;
}
const newTally = (): Tally => ({ requests: 0, statuses: {}, transport: {}, latencies: [], dropped: 0 });
function summarize(t: Tally) {
  const fivexx = Object.entries(t.statuses)
    .filter(([s]) => Number(s) >= 500)
    .reduce((n, [, c]) => n + c, 0);
  const transport = Object.values(t.transport).reduce((n, c) => n + c, 0);
  return {
    requests: t.requests,
    statuses: t.statuses,
    errorsByStatus: Object.fromEntries(Object.entries(t.statuses).filter(([s]) => Number(s) >= 400)),
    fivexx,
    transportErrors: t.transport,
    transport,
    p50Ms: round(percentile(t.latencies, 50), 2),
    p99Ms: round(percentile(t.latencies, 99), 2),
    dropped: t.dropped,
  };
}

async function main(): Promise<void> {
  const reason = buildReason(ROOT);
  if (reason?.startsWith("no production build") || reason?.endsWith("is missing"))
    throw new Error(`${reason}: run \`npm run build\` first (the soak runs the build as it is).`);
  if (reason) log(`note: ${reason} (the build is run as it is; \`npm run build\` to refresh it)`);

  // The receiver of the webhooks: answers at once, counts per organization, type and op.
  const deliveries: Record<
    string,
    { requests: number; events: Set<string>; byType: Record<string, number> }
  > = {};
  const receiverServer = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const slug = (req.url ?? "/").split("/").pop() ?? "?";
      const d = (deliveries[slug] ??= { requests: 0, events: new Set(), byType: {} });
      d.requests++;
      try {
        const ev = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
          cursor?: string;
          type?: string;
          op?: string;
        };
        d.events.add(String(ev.cursor));
        const k = `${ev.type}.${ev.op}`;
        d.byType[k] = (d.byType[k] ?? 0) + 1;
      } catch {
        d.byType.unparsed = (d.byType.unparsed ?? 0) + 1;
      }
      res.end("ok");
    });
  });
  await new Promise<void>((resolve) => receiverServer.listen(0, "127.0.0.1", () => resolve()));
  const receiver = `http://127.0.0.1:${(receiverServer.address() as net.AddressInfo).port}/hook`;

  const embedded = !env.DATABASE_URL;
  const dataDir = embedded ? mkdtempSync(path.join(os.tmpdir(), "soak-")) : undefined;
  const config = loadConfig({
    ...(env.DATABASE_URL ? { DATABASE_URL: env.DATABASE_URL } : { DATA_DIR: dataDir }),
    DEMO_SEED: "never",
  });
  let db: Database | undefined;
  let child: ChildProcess | undefined;
  let prepared: Awaited<ReturnType<typeof prepare>> | undefined;
  const created: string[] = [];
  let stopped = false;
  const onSignal = () => {
    log("interrupted: stopping the load, then reporting");
    stopped = true;
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    log(
      embedded
        ? `embedded PGlite in ${dataDir}: migrating and seeding the demo …`
        : "DATABASE_URL: migrating …",
    );
    db = (await openMigratedDatabase(config)).db;
    if (embedded) {
      const t0 = performance.now();
      await seedDemo(db);
      log(`demo seeded in ${round((performance.now() - t0) / 1000)} s`);
    }
    prepared = await prepare(db, receiver);
    const { orgs, mix } = prepared;
    log(
      `${orgs.map((o) => `${o.slug} (${o.productIds.length >= 300 ? "300+" : o.productIds.length} products sampled)`).join(", ")}: ${KEYS} read keys and a write key each, a webhook endpoint each on ${receiver}/<org>`,
    );
    if (embedded) {
      // The server opens the embedded database itself.
      await db.close();
      db = undefined;
    }

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    let serverErrorLines = 0;
    child = spawn(process.execPath, ["scripts/serve.mjs"], {
      cwd: ROOT,
      env: {
        ...env,
        NODE_ENV: "production",
        NEXT_TELEMETRY_DISABLED: "1",
        DEMO_SEED: "never",
        PORT: String(port),
        HOSTNAME: "127.0.0.1",
        PUBLIC_BASE_URL: base,
        PUBLIC_API_PREVIEW: "all",
        WEBHOOKS_ALLOW_PRIVATE_URLS: "true",
        AUTH_SECRET: env.AUTH_SECRET ?? "soak-secret-0123456789abcdef0123456789abcdef",
        ...(dataDir ? { DATA_DIR: dataDir } : {}),
      },
      stdio: ["ignore", "ignore", "pipe"],
    });
    child.stderr!.on("data", (c: Buffer) => {
      for (const line of c.toString("utf8").split("\n").filter(Boolean)) {
        serverErrorLines++;
        if (serverErrorLines <= 50) console.error(`[server] ${line}`);
      }
    });
    const pid = child.pid!;
    log(`server ${base} (pid ${pid}), preview all`);
    await waitFor(`${base}/public/v1/openapi.json`, { child });
    const rss: { at: number; mb: number }[] = [];
    const rssStart = treeRssMb(pid);
    rss.push({ at: 0, mb: rssStart });
    log(`server RSS at start: ${rssStart} MB`);

    const random = randomSource(27_009);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
    const draw = mixDrawer(mix, 27_009);
    const minutes: Tally[] = [];
    const ops: Record<string, Tally> = {};
    const t0 = performance.now();
    const minuteOf = () => Math.floor((performance.now() - t0) / 60_000);
    let inFlight = 0;
    let dropped = 0;
    const polls = { sent: 0, notModified: 0, changed: 0 };

    // One request: its status (or transport error) in its minute and its operation; latency for the short ones.
    const request = async (
      op: string,
      url: string,
      init: RequestInit & { timeoutMs?: number; long?: boolean } = {},
    ): Promise<{ status: number; body: Buffer; headers: Headers } | undefined> => {
      const m = minuteOf();
      const minute = (minutes[m] ??= newTally());
      const tally = (ops[op] ??= newTally());
      minute.requests++;
      tally.requests++;
      inFlight++;
      const start = performance.now();
      try {
        const res = await fetch(`${base}${url}`, {
          ...init,
          signal: AbortSignal.timeout(init.timeoutMs ?? REQUEST_TIMEOUT_MS),
        });
        const body = Buffer.from(await res.arrayBuffer());
        const ms = performance.now() - start;
        for (const t of [minute, tally]) t.statuses[res.status] = (t.statuses[res.status] ?? 0) + 1;
        if (!init.long) minute.latencies.push(ms);
        tally.latencies.push(ms);
        return { status: res.status, body, headers: res.headers };
      } catch (err) {
        const e = err as Error & { cause?: { code?: string } };
        const kind = e.cause?.code ?? e.name;
        for (const t of [minute, tally]) t.transport[kind] = (t.transport[kind] ?? 0) + 1;
        return undefined;
      } finally {
        inFlight--;
      }
    };
    const auth = (key: string) => ({ authorization: `Bearer ${key}` });

    // The ETag polls: a fixed set of URLs, each with the ETag of its last 200.
    const pollTargets = orgs.flatMap((o) =>
      [
        "/public/v1/products?perPage=20",
        "/public/v1/products?sort=updatedAt.desc&perPage=50",
        "/public/v1/families",
        "/public/v1/categories",
        "/public/v1/attributes",
        "/public/v1/media",
        "/public/v1/channels",
        ...o.productIds.slice(0, 5).map((id) => `/public/v1/products/${id}`),
      ].map((url) => ({ url, org: o, etag: undefined as string | undefined, notModified: 0, changed: 0 })),
    );
    const poll = async () => {
      const t = pick(pollTargets);
      const headers: Record<string, string> = auth(pick(t.org.readKeys));
      if (t.etag) headers["if-none-match"] = t.etag;
      polls.sent++;
      const r = await request("etag-poll", t.url, { headers });
      if (r?.status === 304) {
        polls.notModified++;
        t.notModified++;
      } else if (r?.status === 200) {
        if (t.etag) {
          polls.changed++;
          t.changed++;
        }
        t.etag = r.headers.get("etag") ?? undefined;
      }
    };

    // One drawn GET of the open-loop mix.
    const oneGet = () => {
      const roll = random();
      if (roll < 0.2) return poll();
      if (roll < 0.7) {
        const d = draw();
        return request(`list ${d.path.slice("/public/v1/".length).split("?")[0]}`, d.path, {
          headers: { authorization: d.authorization },
        });
      }
      const o = pick(orgs);
      const headers = auth(pick(o.readKeys));
      if (roll < 0.8)
        return request("product detail", `/public/v1/products/${pick(o.productIds)}`, { headers });
      if (roll < 0.85)
        return request("family detail", `/public/v1/families/${pick(o.familyIds)}`, { headers });
      if (roll < 0.9)
        return request("attribute detail", `/public/v1/attributes/${pick(o.attributeIds)}`, { headers });
      if (roll < 0.94) return request("channels", "/public/v1/channels", { headers });
      if (roll < 0.99) {
        const types = random() < 0.5 ? "" : `&types=${pick(["products", "families", "categories"])}`;
        return request("changes after", `/public/v1/changes?after=${o.head}&limit=100${types}`, { headers });
      }
      return request("openapi", "/public/v1/openapi.json");
    };

    const deadline = t0 + SECONDS * 1000;
    const running = () => !stopped && performance.now() < deadline;
    const pending = new Set<Promise<unknown>>();
    const track = (p: Promise<unknown>) => {
      pending.add(p);
      void p.finally(() => pending.delete(p));
    };

    // The open loop of GETs.
    const gets = (async () => {
      let n = 0;
      while (running()) {
        const due = t0 + (n * 1000) / RATE;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        n++;
        if (!running()) break;
        if (inFlight >= MAX_IN_FLIGHT) {
          dropped++;
          (minutes[minuteOf()] ??= newTally()).dropped++;
        } else track(oneGet());
      }
    })();

    // Writes at WRITE_RATE, the organizations in turn.
    const writes: Record<string, { sent: number; created: number }> = Object.fromEntries(
      orgs.map((o) => [o.slug, { sent: 0, created: 0 }]),
    );
    const writer = (async () => {
      if (WRITE_RATE <= 0) return;
      let n = 0;
      while (running()) {
        const due = t0 + (n * 1000) / WRITE_RATE;
        const wait = due - performance.now();
        if (wait > 0) await sleep(Math.min(wait, 1000));
        if (performance.now() < due) continue;
        const o = orgs[n % orgs.length]!;
        n++;
        if (!running()) break;
        writes[o.slug]!.sent++;
        track(
          request("create product", "/public/v1/products", {
            method: "POST",
            headers: { ...auth(o.writeKey), "content-type": "application/json" },
            body: JSON.stringify(o.body(n)),
          }).then((r) => {
            if (r?.status !== 201) return;
            writes[o.slug]!.created++;
            try {
              created.push((JSON.parse(r.body.toString("utf8")) as { id: string }).id);
            } catch {
              // counted as created all the same
            }
          }),
        );
      }
    })();

    // The feed readers: one per organization, one long poll after the other from the head before the load.
    const feeds: Record<
      string,
      { requests: number; events: number; productUpserts: number; cursor: string }
    > = Object.fromEntries(
      orgs.map((o) => [o.slug, { requests: 0, events: 0, productUpserts: 0, cursor: o.head }]),
    );
    let feedsOn = true;
    const readers = orgs.map(async (o) => {
      const f = feeds[o.slug]!;
      while (feedsOn) {
        const r = await request(
          "feed long poll",
          `/public/v1/changes?after=${f.cursor}&limit=1000&wait=${FEED_WAIT}`,
          {
            headers: auth(o.readKeys[1] ?? o.readKeys[0]!),
            timeoutMs: (FEED_WAIT + 15) * 1000,
            long: true,
          },
        );
        f.requests++;
        if (r?.status !== 200) {
          await sleep(1000);
          continue;
        }
        const page = JSON.parse(r.body.toString("utf8")) as {
          data: { type: string; op: string }[];
          cursor: string;
        };
        f.events += page.data.length;
        f.productUpserts += page.data.filter((e) => e.type === "products" && e.op === "upsert").length;
        f.cursor = page.cursor;
      }
    });

    // Exports: one at a time, every EXPORT_EVERY seconds, the resources in turn.
    const exports: { resource: string; org: string; status: number | string; ms: number; bytes: number }[] =
      [];
    const exporter = (async () => {
      const resources = ["products", "families", "attributes", "categories", "media", "channels"];
      let n = 0;
      while (running()) {
        const o = orgs[n % orgs.length]!;
        const resource = resources[n % resources.length]!;
        n++;
        const s = performance.now();
        const r = await request("export", `/public/v1/export/${resource}`, {
          headers: auth(o.readKeys[2] ?? o.readKeys[0]!),
          timeoutMs: 120_000,
          long: true,
        });
        exports.push({
          resource,
          org: o.slug,
          status: r?.status ?? "transport",
          ms: round(performance.now() - s),
          bytes: r?.body.length ?? 0,
        });
        const next = s + EXPORT_EVERY * 1000;
        while (running() && performance.now() < next) await sleep(250);
      }
    })();

    // Each minute: the minute's figures and the server's RSS.
    const reported = new Set<number>();
    const reportMinute = (m: number) => {
      if (reported.has(m)) return;
      reported.add(m);
      const mb = treeRssMb(pid);
      rss.push({ at: round((performance.now() - t0) / 1000), mb });
      const s = summarize(minutes[m] ?? newTally());
      const errs = Object.entries(s.errorsByStatus)
        .map(([k, v]) => `${v}×${k}`)
        .join(" ");
      log(
        `minute ${m + 1}: ${s.requests} requests, p50 ${s.p50Ms} ms, p99 ${s.p99Ms} ms, errors ${errs || "none"}` +
          `${s.fivexx ? ` — ${s.fivexx} × 5xx!` : ""}${s.transport ? ` — transport ${JSON.stringify(s.transportErrors)}!` : ""}` +
          `, RSS ${mb} MB, in flight ${inFlight}, dropped ${dropped}`,
      );
    };
    while (running()) {
      await sleep(500);
      const m = minuteOf();
      for (let i = 0; i < m; i++) reportMinute(i);
    }
    await Promise.all([gets, writer, exporter]);
    await Promise.race([Promise.all([...pending]), sleep(REQUEST_TIMEOUT_MS + 5000)]);
    const loadSeconds = (performance.now() - t0) / 1000;
    for (let i = 0; i < minutes.length; i++) reportMinute(i);

    // Drain: the deliveries and the feed readers catch up with the products written.
    const drainStart = performance.now();
    const caughtUp = () =>
      orgs.every(
        (o) =>
          (deliveries[o.slug]?.byType["products.upsert"] ?? 0) >= writes[o.slug]!.created &&
          feeds[o.slug]!.productUpserts >= writes[o.slug]!.created,
      );
    while (!caughtUp() && performance.now() - drainStart < DRAIN_SECONDS * 1000) await sleep(250);
    const drainSeconds = round((performance.now() - drainStart) / 1000);
    feedsOn = false;
    await Promise.race([Promise.all(readers), sleep((FEED_WAIT + 16) * 1000)]);
    const rssEnd = treeRssMb(pid);
    rss.push({ at: round((performance.now() - t0) / 1000), mb: rssEnd });

    // The report.
    const total = newTally();
    for (const t of Object.values(ops)) {
      total.requests += t.requests;
      for (const [k, v] of Object.entries(t.statuses)) total.statuses[k] = (total.statuses[k] ?? 0) + v;
      for (const [k, v] of Object.entries(t.transport)) total.transport[k] = (total.transport[k] ?? 0) + v;
    }
    const totals = summarize(total);
    const perMinute = minutes.map((t, i) => ({ minute: i + 1, ...summarize(t ?? newTally()) }));
    const perOp = Object.fromEntries(
      Object.entries(ops)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, t]) => [k, summarize(t)]),
    );
    const webhooks = Object.fromEntries(
      orgs.map((o) => {
        const d = deliveries[o.slug];
        return [
          o.slug,
          {
            productsCreated: writes[o.slug]!.created,
            requests: d?.requests ?? 0,
            distinctEvents: d?.events.size ?? 0,
            byType: d?.byType ?? {},
          },
        ];
      }),
    );
    const rssMax = Math.max(...rss.map((r) => r.mb));
    const rssAfterMinute1 = rss[1]?.mb ?? rssStart;
    const failed = totals.fivexx > 0 || totals.transport > 0;
    const at = new Date().toISOString();
    const result = {
      at,
      host: {
        cpus: os.cpus().length,
        node: process.version,
        loadAverage: os.loadavg().map((n) => round(n, 2)),
      },
      database: embedded ? "embedded PGlite (temporary DATA_DIR, demo seed)" : "DATABASE_URL",
      redis: env.REDIS_URL ? "REDIS_URL" : "none (in-process rate limits)",
      settings: {
        seconds: SECONDS,
        loadSeconds: round(loadSeconds),
        rate: RATE,
        keysPerOrg: KEYS,
        writeRate: WRITE_RATE,
        exportEvery: EXPORT_EVERY,
        feedWait: FEED_WAIT,
        organizations: orgs.map((o) => o.slug),
      },
      totals: { ...totals, dropped, serverStderrLines: serverErrorLines },
      perMinute,
      perOp,
      etagPolls: {
        ...polls,
        targets: pollTargets.map((t) => ({
          org: t.org.slug,
          url: t.url,
          notModified: t.notModified,
          changed: t.changed,
        })),
      },
      writes,
      webhooks,
      feedReaders: feeds,
      drainSeconds,
      exports,
      rss: { startMb: rssStart, afterMinute1Mb: rssAfterMinute1, endMb: rssEnd, maxMb: rssMax, samples: rss },
      failed,
    };
    mkdirSync(RESULTS, { recursive: true });
    const name = `${at.slice(0, 10)}-soak${env.SOAK_TAG ? `-${env.SOAK_TAG}` : ""}`;
    writeFileSync(path.join(RESULTS, `${name}.json`), `${JSON.stringify(result, null, 2)}\n`);
    const fmt = (o: Record<string, number>) =>
      Object.entries(o)
        .map(([k, v]) => `${v} × ${k}`)
        .join(", ") || "none";
    writeFileSync(
      path.join(RESULTS, `${name}.md`),
      [
        `# Soak (${at}, ${os.cpus().length} CPUs, ${result.database}, Redis: ${result.redis})`,
        "",
        `${round(loadSeconds)} s of loopback load at ${RATE} req/s (open loop) from ${KEYS} keys of each of ${orgs.map((o) => o.slug).join(" and ")}, writes at ${WRITE_RATE}/s, an export every ${EXPORT_EVERY} s, 2 feed readers (wait=${FEED_WAIT}), a webhook endpoint of each organization on a loopback receiver.`,
        "",
        `**${failed ? "FAILED" : "Passed"}**: ${totals.requests} requests, ${totals.fivexx} × 5xx, transport errors: ${fmt(totals.transportErrors)}; dropped (over ${MAX_IN_FLIGHT} in flight): ${dropped}; lines on the server's stderr: ${serverErrorLines}.`,
        "",
        "| minute | requests | errors by status | 5xx | transport | dropped | p50 ms | p99 ms | RSS MB |",
        "| -----: | -------: | ---------------- | --: | --------: | ------: | -----: | -----: | -----: |",
        ...perMinute.map(
          (m, i) =>
            `| ${m.minute} | ${m.requests} | ${fmt(m.errorsByStatus)} | ${m.fivexx} | ${m.transport} | ${m.dropped} | ${m.p50Ms} | ${m.p99Ms} | ${rss[i + 1]?.mb ?? "–"} |`,
        ),
        "",
        "p50/p99: the short requests (everything but the feed's long polls and the exports), from sent to the last byte, queueing in the server included.",
        "",
        "| operation | requests | statuses | transport | p50 ms | p99 ms |",
        "| --------- | -------: | -------- | --------: | -----: | -----: |",
        ...Object.entries(perOp).map(
          ([k, s]) =>
            `| ${k} | ${s.requests} | ${fmt(s.statuses)} | ${s.transport} | ${s.p50Ms} | ${s.p99Ms} |`,
        ),
        "",
        `ETag polls: ${polls.sent}, ${polls.notModified} × 304, ${polls.changed} changed since their last 200 (${
          pollTargets
            .filter((t) => t.changed > 0)
            .map((t) => `${t.org.slug} ${t.url}: ${t.changed}`)
            .join("; ") || "none"
        }).`,
        "",
        `Server RSS (process tree): ${rssStart} MB at start, ${rssAfterMinute1} MB after minute 1, ${rssEnd} MB at the end, at most ${rssMax} MB (the page cache's bound: PAGE_CACHE_MAX_BYTES, 64 MB by default).`,
        "",
        ...orgs.map(
          (o) =>
            `${o.slug}: ${writes[o.slug]!.created} products created (${writes[o.slug]!.sent} POSTs); webhooks received ${webhooks[o.slug]!.requests} (${fmt(webhooks[o.slug]!.byType)}); the feed reader saw ${feeds[o.slug]!.events} events (${feeds[o.slug]!.productUpserts} product upserts) in ${feeds[o.slug]!.requests} long polls.`,
        ),
        "",
        `Waited ${drainSeconds} s after the load for the deliveries and the feed (at most ${DRAIN_SECONDS} s).`,
        "",
        `Exports: ${exports.map((e) => `${e.org} ${e.resource} ${e.status} ${e.ms} ms ${Math.round(e.bytes / 1024)} KB`).join("; ") || "none"}.`,
        "",
      ].join("\n"),
    );
    log(
      `totals: ${totals.requests} requests, statuses ${JSON.stringify(totals.statuses)}, 5xx ${totals.fivexx}, transport ${JSON.stringify(totals.transportErrors)}, dropped ${dropped}`,
    );
    log(`ETag polls: ${JSON.stringify(polls)}`);
    log(
      `RSS: start ${rssStart} MB, after minute 1 ${rssAfterMinute1} MB, end ${rssEnd} MB, max ${rssMax} MB`,
    );
    for (const o of orgs)
      log(
        `${o.slug}: created ${writes[o.slug]!.created}/${writes[o.slug]!.sent}, webhooks ${JSON.stringify(webhooks[o.slug])}, feed ${JSON.stringify(feeds[o.slug])}`,
      );
    log(`exports: ${exports.length} (${exports.map((e) => e.status).join(" ")})`);
    log(`wrote bench/results/${name}.json and .md`);
    if (failed) {
      log("FAILED: 5xx answers or transport errors (see above)");
      process.exitCode = 1;
    }
  } finally {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once("exit", r));
      child.kill("SIGTERM");
      await Promise.race([exited, sleep(10_000)]);
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
    receiverServer.closeAllConnections();
    receiverServer.close();
    if (db && prepared) {
      // A shared database: what the soak made goes.
      if (created.length) await db.query("delete from products where id = any($1::text[])", [created]);
      await db.query("delete from webhook_endpoints where id = any($1::text[])", [prepared.endpointIds]);
      await db.query("delete from api_keys where id = any($1::text[])", [prepared.keyIds]);
    }
    await db?.close();
    if (dataDir && env.SOAK_KEEP_DATA !== "1") rmSync(dataDir, { recursive: true, force: true });
    else if (dataDir) log(`kept ${dataDir}`);
  }
}

await main();
