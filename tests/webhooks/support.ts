// What the webhooks' tests share: an empty migrated database with one organization (PGlite in memory or a database
// of its own on the test server), catalog changes made with plain SQL, a real HTTP receiver on loopback, an engine.
import { spawn } from "node:child_process";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { openPg, openPglite, type Database } from "@/db/client";
import { migrate } from "@/db/migrate";
import { loadConfig, type Config } from "@/lib/config";
import { AnchorCache } from "@/lib/catalog/list/page-anchors";
import { CountCache } from "@/lib/catalog/list/count-cache";
import { VersionReads } from "@/lib/catalog/list/version-reads";
import type { CatalogContext } from "@/lib/catalog/context";
import { WebhookEngine, type WebhookEngineOptions } from "@/lib/webhooks/engine";
import { createEndpoint, endpointInputSchema } from "@/lib/webhooks/endpoints";
import { createTestDatabase } from "../support/servers";

// A database for webhooks' tests: migrated, one organization (`orgId`), its connection string on the server.
export interface HookDb {
  db: Database;
  url?: string;
  orgId: string;
  config: Config;
  close(): Promise<void>;
}

// Opens an empty migrated database with one organization.
export async function openHookDb(driver: "pglite" | "pg", env: Record<string, string> = {}): Promise<HookDb> {
  let db: Database;
  let url: string | undefined;
  let drop = async () => undefined as void;
  if (driver === "pg") {
    const t = await createTestDatabase("hooks");
    url = t.url;
    db = await openPg(t.url, 4);
    drop = t.drop;
  } else db = await openPglite("memory://");
  await migrate(db);
  const orgId = `org_${randomBytes(6).toString("hex")}`;
  await db.query(`insert into organizations (id, slug, name) values ($1, $2, 'Hooks')`, [orgId, orgId]);
  const config = loadConfig({
    PUBLIC_BASE_URL: "http://api.test",
    PUBLIC_API_PREVIEW: "webhooks",
    WEBHOOKS_ALLOW_PRIVATE_URLS: "true",
    ...(url ? { DATABASE_URL: url } : {}),
    ...env,
  });
  return {
    db,
    url,
    orgId,
    config,
    close: async () => {
      await db.close();
      await drop();
    },
  };
}

// A catalog context on a database (what the dispatcher reads the feed with).
export function catalogOf(db: Database): CatalogContext {
  return {
    db,
    counting: db,
    counts: new CountCache(),
    anchors: new AnchorCache(),
    versions: new VersionReads(),
  };
}

// An engine on the test database, fast schedule: retries after ~1 s, 2 s, short attempt timeouts.
export function engineOn(h: HookDb, opts: WebhookEngineOptions = {}): WebhookEngine {
  const ctx = catalogOf(h.db);
  return new WebhookEngine(
    { config: h.config, db: async () => h.db, catalog: async () => ctx },
    {
      retryDelaySeconds: 1,
      retryDelayMaxSeconds: 2,
      retryLimit: 3,
      dispatchIntervalMs: 200,
      timeoutMs: 2000,
      connectTimeoutMs: 1000,
      ...opts,
    },
  );
}

// Commits one transaction creating categories (one feed event each); returns their ids.
export async function addCategories(h: HookDb, n: number, prefix = "c"): Promise<string[]> {
  const ids = Array.from({ length: n }, () => `cat_${prefix}${randomBytes(5).toString("hex")}`);
  await h.db.transaction(async (tx) => {
    for (const id of ids)
      await tx.query(`insert into categories (id, org_id, slug, label) values ($1, $2, $3, $4)`, [
        id,
        h.orgId,
        id.toLowerCase(),
        `Label ${id}`,
      ]);
  });
  return ids;
}

// Renames a category (one more event for the same object).
export async function renameCategory(h: HookDb, id: string, label: string): Promise<void> {
  await h.db.query(`update categories set label = $3, updated_at = now() where org_id = $1 and id = $2`, [
    h.orgId,
    id,
    label,
  ]);
}

// Registers an endpoint to a URL; returns its id and secret.
export async function registerEndpoint(
  h: HookDb,
  url: string,
  extra: Record<string, unknown> = {},
): Promise<{ id: string; secret: string }> {
  const { endpoint, secret } = await createEndpoint(
    h.db,
    h.orgId,
    endpointInputSchema.parse({ url, ...extra }),
  );
  return { id: endpoint.id, secret };
}

// One request a receiver got; `local`: the address it came in on (a receiver listening on several tells its senders
// apart by the address each one connects to).
export interface Received {
  headers: IncomingMessage["headers"];
  body: string;
  at: number;
  local: string;
}

// A real HTTP receiver on loopback; `answer` decides each reply (default 200), may never reply (a hang).
export interface Receiver {
  url: string;
  port: number;
  got: Received[];
  /** Requests in progress now, and the most at once seen per webhook-id. */
  inFlight: Map<string, number>;
  overlaps: string[];
  answer: (r: Received, res: ServerResponse) => void;
  close(): Promise<void>;
}

// Starts a receiver on 127.0.0.1 (on `port` if given: the same address again after a restart), and on the same port
// of each other loopback address in `also`; requests on every address are recorded together.
export async function startReceiver(port = 0, also: readonly string[] = []): Promise<Receiver> {
  const servers: Server[] = [];
  const rec: Receiver = {
    url: "",
    port: 0,
    got: [],
    inFlight: new Map(),
    overlaps: [],
    answer: (_r, res) => res.end("ok"),
    close: async () => {
      for (const server of servers) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const r = {
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
        local: req.socket.localAddress ?? "",
      };
      const id = String(req.headers["webhook-id"]);
      const n = (rec.inFlight.get(id) ?? 0) + 1;
      rec.inFlight.set(id, n);
      if (n > 1) rec.overlaps.push(id);
      res.on("close", () => rec.inFlight.set(id, (rec.inFlight.get(id) ?? 1) - 1));
      rec.got.push(r);
      rec.answer(r, res);
    });
  };
  for (const host of ["127.0.0.1", ...also]) {
    const server = createServer(handle);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(rec.port || port, host, () => resolve()));
    rec.port = (server.address() as AddressInfo).port;
  }
  rec.url = `http://127.0.0.1:${rec.port}/hook`;
  return rec;
}

// Waits until cond() holds (checked every 50 ms), or fails after timeoutMs saying what it waited for.
export async function waitFor(
  cond: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 20_000,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

// A TypeScript file of ours in a process of its own (tsx, React's server condition as the app has it), with `env`:
// `ready` resolves once its output (stdout and stderr) matches `until`, and rejects if it ends first; without `until`,
// it resolves when the process ends. `exited`: its exit code.
export function runScript(file: string, env: NodeJS.ProcessEnv, until?: RegExp) {
  const child = spawn(process.execPath, ["--import", "tsx", "--conditions=react-server", file], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const ready = new Promise<void>((resolve, reject) => {
    const seen = (d: Buffer) => {
      output += d.toString();
      if (until?.test(output)) resolve();
    };
    child.stdout.on("data", seen);
    child.stderr.on("data", seen);
    void exited.then(() => (until ? reject(new Error(`${file} ended:\n${output}`)) : resolve()));
  });
  return { child, ready, exited, output: () => output };
}
