import { expect } from "vitest";
import { openPg, openPglite, type Database } from "@/db/client";
import { migrate } from "@/db/migrate";
import { seedDemo } from "@/db/seed";
import { displayPrefix, generateApiKey, hashApiKey } from "@/lib/keys/format";
import { loadConfig, type Config } from "@/lib/config";
import { READ_SCOPES } from "@/lib/keys/scopes";
import { newId } from "@/db/schema";
import { createRuntime, setRuntime, type Runtime } from "@/lib/runtime";
import { publicApi } from "@/lib/public-api/router";
import { createTestDatabase } from "./servers";

let swapped: Runtime | undefined;

// Installs a runtime as the process's (undefined: none), closing the one this helper installed before: its
// limiters' connection (a test's own database is never closed by it).
export async function swapRuntime(rt: Runtime | undefined): Promise<void> {
  const previous = swapped;
  swapped = rt;
  setRuntime(rt);
  if (previous && previous !== rt) await previous.close();
}

// The five list resources.
export const RESOURCES = ["products", "families", "attributes", "categories", "media"] as const;
export type Resource = (typeof RESOURCES)[number];

// Keys of one demo organization, for every case the security suite needs.
export interface OrgKeys {
  orgId: string;
  slug: string;
  full: string;
  expired: string;
  revoked: string;
  /** A key with every read scope but the named one. */
  without: Record<Resource, string>;
}

// A seeded database, the pipeline runtime installed on it, and keys of both demo organizations.
export interface ApiFixture {
  db: Database;
  config: Config;
  runtime: Runtime;
  acme: OrgKeys;
  globex: OrgKeys;
  /** The Postgres server database's URL (driver "pg"): another handle on it is another instance. */
  databaseUrl?: string;
  close(): Promise<void>;
}

// Inserts a key of the organization with these scopes (expired or revoked when asked); returns the key.
export async function insertKey(
  db: Database,
  orgId: string,
  scopes: readonly string[],
  opts: { expired?: boolean; revoked?: boolean } = {},
): Promise<string> {
  const key = generateApiKey();
  await db.query(
    `insert into api_keys (id, org_id, name, prefix, key_hash, scopes, expires_at, revoked_at)
     values ($1, $2, 'test', $3, $4, $5, $6, $7)`,
    [
      newId("key"),
      orgId,
      displayPrefix(key),
      hashApiKey(key),
      scopes,
      opts.expired ? new Date(Date.now() - 60_000) : null,
      opts.revoked ? new Date(Date.now() - 1_000) : null,
    ],
  );
  return key;
}

async function orgKeys(db: Database, slug: string): Promise<OrgKeys> {
  const [org] = await db.query<{ id: string }>("select id from organizations where slug = $1", [slug]);
  if (!org) throw new Error(`demo organization ${slug} missing`);
  const without = {} as Record<Resource, string>;
  for (const r of RESOURCES)
    without[r] = await insertKey(
      db,
      org.id,
      READ_SCOPES.filter((s) => s !== `${r}:read`),
    );
  return {
    orgId: org.id,
    slug,
    full: await insertKey(db, org.id, READ_SCOPES),
    expired: await insertKey(db, org.id, READ_SCOPES, { expired: true }),
    revoked: await insertKey(db, org.id, READ_SCOPES, { revoked: true }),
    without,
  };
}

// Opens a database of the given kind, migrates it, seeds the demo and installs a runtime on it.
export async function setupApi(
  driver: "pglite" | "pg",
  env: Record<string, string> = {},
): Promise<ApiFixture> {
  const config = loadConfig({
    PUBLIC_BASE_URL: "http://api.test",
    RATE_LIMIT_REQUESTS: "100000",
    AUTH_FAILURE_LIMIT: "100000",
    // The suites run with row security as configured (off by default); DB_ROW_SECURITY=on runs them with it.
    ...(process.env.DB_ROW_SECURITY ? { DB_ROW_SECURITY: process.env.DB_ROW_SECURITY } : {}),
    ...env,
  });
  let db: Database;
  let drop = async () => undefined as void;
  let databaseUrl: string | undefined;
  if (driver === "pg") {
    const t = await createTestDatabase("api");
    // Pipelined with row security, as openDatabase opens it.
    db = await openPg(t.url, { max: 4, pipeline: config.DB_ROW_SECURITY });
    drop = t.drop;
    databaseUrl = t.url;
  } else {
    db = await openPglite("memory://");
  }
  await migrate(db);
  await seedDemo(db);
  const runtime = createRuntime(config, db);
  await swapRuntime(runtime);
  const acme = await orgKeys(db, "acme");
  const globex = await orgKeys(db, "globex");
  return {
    db,
    config,
    runtime,
    acme,
    globex,
    databaseUrl,
    close: async () => {
      await swapRuntime(undefined);
      await db.close();
      await drop();
    },
  };
}

// A parsed response.
export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

// What a test's request carries: a key (sent as a Bearer token), a method, headers and a body.
export interface CallOptions {
  key?: string | null;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

// Calls the API's router in-process with a Web Request, as npm start's server and the route files do; the Response
// as it is, its body unread (a stream a test may read in part: the export's NDJSON).
export function fetchApi(path: string, opts: CallOptions = {}): Promise<Response> {
  const url = new URL(path, "http://api.test");
  const method = opts.method ?? "GET";
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  return publicApi.fetch(new Request(url, { method, headers, body: opts.body }));
}

// Calls the API's router in-process (fetchApi) and parses the JSON answer.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function call<T = any>(path: string, opts: CallOptions = {}): Promise<ApiResponse<T>> {
  const res = await fetchApi(path, opts);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

// The end line of an export: the feed cursor of its snapshot and how many items it streamed.
export interface ExportEnd {
  end: true;
  cursor: string;
  count: number;
}

// An export read through the router (fetchApi), line by line: its items and its end line; with `stopAfter`, only
// that many items, the rest of the stream cancelled as by a client that goes away (no end line then, unless the
// export had no more items).
export async function readExport(
  path: string,
  key: string,
  stopAfter?: number,
): Promise<{ status: number; items: { id: string }[]; end?: ExportEnd }> {
  const res = await fetchApi(path, { key });
  const items: { id: string }[] = [];
  if (res.status !== 200) {
    await res.body?.cancel();
    return { status: res.status, items };
  }
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let rest = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return { status: res.status, items };
    const lines = (rest + value).split("\n");
    rest = lines.pop()!;
    for (const line of lines) {
      const parsed = JSON.parse(line);
      if (parsed.end === true) {
        await reader.cancel();
        return { status: res.status, items, end: parsed as ExportEnd };
      }
      if (items.length === stopAfter) {
        await reader.cancel();
        return { status: res.status, items };
      }
      items.push(parsed);
    }
  }
}

const REQUEST_ID = /^[0-9a-f-]{36}$/;

// An error answer in the contract's shape: its status, a JSON body with its code and request id, a message.
export function expectError(res: ApiResponse, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  expect(res.body).toMatchObject({ statusCode: status, code });
  const body = res.body as { requestId: unknown; message: unknown };
  expect(body.requestId).toMatch(REQUEST_ID);
  expect(typeof body.message).toBe("string");
}

// The 503 of an unreachable back end: the contract's body and a Retry-After, never an internal detail.
export function expectUnavailable(res: ApiResponse): void {
  expect(res.status).toBe(503);
  expect(res.body).toMatchObject({
    statusCode: 503,
    error: "Service Unavailable",
    code: "PUBLIC_API_UNAVAILABLE",
  });
  expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
}
