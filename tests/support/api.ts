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
  close(): Promise<void>;
}

async function insertKey(
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
  let db: Database;
  let drop = async () => undefined as void;
  if (driver === "pg") {
    const t = await createTestDatabase("api");
    db = await openPg(t.url, 4);
    drop = t.drop;
  } else {
    db = await openPglite("memory://");
  }
  await migrate(db);
  await seedDemo(db);
  const config = loadConfig({
    PUBLIC_BASE_URL: "http://api.test",
    RATE_LIMIT_REQUESTS: "100000",
    AUTH_FAILURE_LIMIT: "100000",
    ...env,
  });
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

// Calls the API's router in-process with a Web Request, as npm start's server and the route files do.
export async function call<T = any>( // eslint-disable-line @typescript-eslint/no-explicit-any
  path: string,
  opts: { key?: string | null; method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<ApiResponse<T>> {
  const url = new URL(path, "http://api.test");
  const method = opts.method ?? "GET";
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  const request = new Request(url, { method, headers, body: opts.body });
  const res = await publicApi.fetch(request);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
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
