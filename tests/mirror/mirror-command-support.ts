// What the suites of `npm run mirror` share: the command run as a child process (as the README says, or straight
// with node for speed), its tables read back, a fresh export of every resource through the router to compare them
// with, and the feed's head of an organization.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterAll, beforeAll, expect } from "vitest";
import { openPg, type Database, type Queryable } from "@/db/client";
import { applyChange, CHANGE_KINDS, type Change } from "@/lib/demo/catalog-activity";
import { READ_SCOPES, WRITE_SCOPE } from "@/lib/keys/scopes";
import { MIRROR_RESOURCES, type MirrorResource } from "@/lib/mirror/tables";
import { call, readExport } from "../support/api";
import { startApiServer, type ApiServer } from "../support/api-server";
import { createTestDatabase } from "../support/servers";
import { creatableBodies, insertKey, type CreatableBody } from "../support/write-preview";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

// A run of the command: its process, what it wrote on standard error so far, and its exit.
export interface MirrorProcess {
  child: ChildProcess;
  stderr(): string;
  stdout(): string;
  exited: Promise<number | null>;
  /** Sends a signal and waits for the exit; returns its code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

// Runs the command with these arguments: `node --import tsx scripts/mirror.ts …`, or `npm run mirror -- …` (`npm`).
export function startMirror(
  args: string[],
  opts: { npm?: boolean; env?: Record<string, string> } = {},
): MirrorProcess {
  const env: NodeJS.ProcessEnv = { ...process.env, ...opts.env };
  for (const name of ["PCA_BASE_URL", "PCA_API_KEY", "MIRROR_DATABASE_URL"])
    if (!opts.env?.[name]) delete env[name];
  const [cmd, argv]: [string, string[]] = opts.npm
    ? ["npm", ["run", "--silent", "mirror", "--", ...args]]
    : [process.execPath, ["--import", "tsx", "scripts/mirror.ts", ...args]];
  const child: ChildProcess = spawn(cmd, argv, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  let out = "";
  child.stderr!.on("data", (b: Buffer) => (err += b.toString()));
  child.stdout!.on("data", (b: Buffer) => (out += b.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    child,
    stderr: () => err,
    stdout: () => out,
    exited,
    stop: async (signal = "SIGINT") => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      // A run that does not end on Ctrl-C within 20 s fails the test with what it said.
      const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
      const code = await exited;
      clearTimeout(timer);
      if (child.signalCode === "SIGKILL" && signal !== "SIGKILL")
        throw new Error(`the mirror did not stop on ${signal}:\n${err}`);
      return code;
    },
  };
}

// Runs the command to its exit; its code and standard error.
export async function runMirrorToEnd(
  args: string[],
  opts: { npm?: boolean; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const run = startMirror(args, opts);
  const timer = setTimeout(() => run.child.kill("SIGKILL"), opts.timeoutMs ?? 60_000);
  const code = await run.exited;
  clearTimeout(timer);
  return { code, stderr: run.stderr(), stdout: run.stdout() };
}

// Waits until `check` holds, polling every 100 ms; fails after `timeoutMs` with `what`.
export async function waitUntil(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs = 60_000,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// The organization's feed head (its last cursor committed).
export async function feedHead(db: Queryable, orgId: string): Promise<string> {
  const [row] = await db.query<{ head: string }>(
    "select coalesce((select head from catalog_change_heads where org_id = $1), 0)::text as head",
    [orgId],
  );
  return row!.head;
}

// The mirror's stored cursor, or undefined when it has none (not loaded yet, or no tables).
export async function mirrorCursor(
  target: Queryable,
  schema = "catalog_mirror",
): Promise<string | undefined> {
  const [exists] = await target.query<{ t: string | null }>("select to_regclass($1)::text as t", [
    `${schema}.feed_state`,
  ]);
  if (!exists?.t) return undefined;
  const [row] = await target.query<{ cursor: string }>(`select cursor from ${schema}.feed_state`);
  return row?.cursor;
}

// Whether the target database has the mirror's schema.
export async function hasSchema(target: Queryable, schema = "catalog_mirror"): Promise<boolean> {
  const rows = await target.query("select 1 from information_schema.schemata where schema_name = $1", [
    schema,
  ]);
  return rows.length > 0;
}

// The mirror's tables: each resource's items by id.
export async function readMirror(
  target: Queryable,
  schema = "catalog_mirror",
): Promise<Map<MirrorResource, Map<string, unknown>>> {
  const out = new Map<MirrorResource, Map<string, unknown>>();
  for (const r of MIRROR_RESOURCES) {
    const rows = await target.query<{ id: string; item: unknown }>(
      `select id, item from ${schema}.${r} order by id`,
    );
    out.set(
      r,
      new Map(rows.map((row) => [row.id, typeof row.item === "string" ? JSON.parse(row.item) : row.item])),
    );
  }
  return out;
}

// A fresh, whole export of every resource through the router: what the mirror's tables must hold.
export async function freshExport(key: string): Promise<Map<MirrorResource, Map<string, unknown>>> {
  const out = new Map<MirrorResource, Map<string, unknown>>();
  for (const r of MIRROR_RESOURCES) {
    for (let tries = 1; ; tries++) {
      const { status, items, end } = await readExport(`/public/v1/export/${r}`, key);
      // The mirror's own export may still hold one of the key's two slots a moment after it ended.
      if (status === 429 && tries < 50) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        continue;
      }
      expect(status, r).toBe(200);
      expect(end?.count).toBe(items.length);
      out.set(r, new Map(items.map((i) => [i.id, i])));
      break;
    }
  }
  return out;
}

// Asserts that the mirror's tables hold exactly what a fresh export holds, item by item.
export async function expectMirrorEqualsExport(
  target: Queryable,
  key: string,
  schema?: string,
): Promise<void> {
  const mirror = await readMirror(target, schema);
  const fresh = await freshExport(key);
  for (const r of MIRROR_RESOURCES) {
    const copy = mirror.get(r)!;
    const want = fresh.get(r)!;
    const extra = [...copy.keys()].filter((id) => !want.has(id));
    const missing = [...want.keys()].filter((id) => !copy.has(id));
    expect({ r, extra, missing }).toEqual({ r, extra: [], missing: [] });
    for (const [id, item] of want) expect(copy.get(id), `${r} ${id}`).toEqual(item);
  }
}

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

// The server the mirror reads (every preview on, the globex organization: 400 products), its keys, and fresh target
// databases on the test Postgres server.
export interface MirrorFixture {
  server: ApiServer;
  org: { id: string; slug: string };
  /** The key the mirror reads with. */
  mirrorKey: string;
  /** Another read key, for the fresh exports the tables are compared with (the exports' slots are per key). */
  checkKey: string;
  /** A key with products:write, for the write preview's POST. */
  writer: string;
  /** Creatable bodies built from the API (tests/support/write-preview.ts). */
  bodies: CreatableBody[];
  /** An empty database of its own on the test server, opened; dropped after the file. */
  newTarget(): Promise<{ url: string; db: Database }>;
}

// Starts the server before the file's tests and stops it (and drops the targets) after them.
export function useMirrorServer(driver: "pglite" | "pg"): MirrorFixture {
  const targets: { db: Database; drop: () => Promise<void> }[] = [];
  const fx = {
    bodies: [],
    newTarget: async () => {
      const t = await createTestDatabase("mirror");
      const db = await openPg(t.url, 2);
      targets.push({ db, drop: t.drop });
      return { url: t.url, db };
    },
  } as unknown as MirrorFixture;
  beforeAll(async () => {
    fx.server = await startApiServer(driver, { PUBLIC_API_PREVIEW: "all" });
    const api = fx.server.fx;
    fx.org = { id: api.globex.orgId, slug: api.globex.slug };
    fx.mirrorKey = api.globex.full;
    fx.checkKey = await insertKey(api, fx.org.id, READ_SCOPES);
    fx.writer = await insertKey(api, fx.org.id, [...READ_SCOPES, WRITE_SCOPE]);
    const get = async (p: string): Promise<Json> => {
      const res = await call(p, { key: fx.checkKey });
      expect(res.status, p).toBe(200);
      return res.body as Json;
    };
    fx.bodies = await creatableBodies(get);
  });
  afterAll(async () => {
    for (const t of targets) {
      await t.db.close().catch(() => undefined);
      await t.drop().catch(() => undefined);
    }
    await fx.server?.close();
  });
  return fx;
}

// The command's arguments for a fixture's server and a target.
export function mirrorArgs(fx: MirrorFixture, to: string, ...more: string[]): string[] {
  return ["--base-url", fx.server.baseUrl, "--key", fx.mirrorKey, "--to", to, ...more];
}

// A step of a property run: a write, a stop and restart of the mirror, a pause, or the products' documents
// refreshed (exports and the feed serve the documents the log proves current, else products read anew).
type Step =
  | { do: "sql"; change: Change }
  | { do: "post"; pick: number }
  | { do: "refresh" }
  | { do: "restart"; signal: "SIGINT" | "SIGTERM" | "SIGKILL" }
  | { do: "pause"; ms: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .record({ kind: fc.constantFrom(...CHANGE_KINDS), pick: fc.nat(), salt: fc.nat() })
      .map((change) => ({ do: "sql" as const, change })),
  },
  { weight: 1, arbitrary: fc.nat().map((pick) => ({ do: "post" as const, pick })) },
  { weight: 1, arbitrary: fc.constant({ do: "refresh" as const }) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom("SIGINT" as const, "SIGTERM" as const, "SIGKILL" as const)
      .map((signal) => ({ do: "restart" as const, signal })),
  },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 400 }).map((ms) => ({ do: "pause" as const, ms })) },
);

// Starts `mirror --follow` and waits for its first line (its signal handlers are in place by then).
async function startFollowing(fx: MirrorFixture, to: string): Promise<MirrorProcess> {
  const m = startMirror(mirrorArgs(fx, to, "--follow"));
  await waitUntil(
    "the mirror's first line",
    async () => m.stderr().includes("mirror: ") || m.child.exitCode !== null,
  );
  return m;
}

// The property: random writes (plain SQL and the write preview) while `mirror --follow` runs, stopped (Ctrl-C,
// SIGTERM, or killed) and restarted at random points; once it has caught up with the feed's head, its tables equal a
// fresh export, item by item.
export async function mirrorProperty(fx: MirrorFixture, numRuns: number): Promise<void> {
  const api = fx.server.fx;
  let posted = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(stepArb, { minLength: 5, maxLength: 20, size: "max" }), async (steps) => {
      const target = await fx.newTarget();
      let m = await startFollowing(fx, target.url);
      try {
        for (const step of steps) {
          if (step.do === "sql") await applyChange(api.db, fx.org.id, step.change);
          else if (step.do === "refresh") await api.runtime.background.documents.runOnce();
          else if (step.do === "pause") await new Promise((r) => setTimeout(r, step.ms));
          else if (step.do === "post") {
            const body = fx.bodies[step.pick % fx.bodies.length]!;
            const res = await call("/public/v1/products", {
              key: fx.writer,
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({
                ...body,
                values: { ...body.values, sku: `MIRROR-CMD-${++posted}-${Date.now()}` },
              }),
            });
            expect(res.status, JSON.stringify(res.body)).toBe(201);
          } else {
            const code = await m.stop(step.signal);
            if (step.signal !== "SIGKILL") expect(code, m.stderr()).toBe(0);
            m = await startFollowing(fx, target.url);
          }
        }
        const head = await feedHead(api.db, fx.org.id);
        await waitUntil(
          `the mirror at the feed's head ${head}`,
          async () => (await mirrorCursor(target.db)) === head || m.child.exitCode !== null,
        );
        expect(m.child.exitCode, m.stderr()).toBe(null);
        expect(await m.stop("SIGINT"), m.stderr()).toBe(0);
        expect(m.stderr()).toContain("mirror: stopped at cursor");
        await expectMirrorEqualsExport(target.db, fx.checkKey);
      } finally {
        await m.stop("SIGKILL");
      }
    }),
    // A run takes 2 to 5 s; a run that hangs (a mirror that does not stop) fails the property once the time is up.
    { numRuns, interruptAfterTimeLimit: 150_000, markInterruptAsFailure: true },
  );
}
