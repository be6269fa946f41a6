// The floor: a bare node:http server with pg that runs the project's query layer (the same SQL, the same
// JSON) with no framework and no pipeline beyond an in-memory key map. Run with the react-server condition:
//   node --conditions=react-server --import tsx bench/floor/server.ts
// Environment: DATABASE_URL, PORT, DB_POOL_SIZE, PUBLIC_BASE_URL.
import http from "node:http";
import { openPg, type Queryable } from "@/db/client";
import { hashApiKey, isWellFormedApiKey } from "@/lib/keys/format";
import { loadConfig } from "@/lib/config";
import { ITEM_OPERATIONS as ITEM_ENDPOINTS } from "@/lib/public-api/operations";
import { LIST_OPERATIONS as ENDPOINTS } from "@/lib/public-api/operations";
import { parseQuery } from "@/lib/public-api/params";
import { catalogContext, type CatalogContext } from "@/lib/catalog/context";
import { PublicApiError, errorBody } from "@/lib/public-api/api-errors";
import type { ApiContext } from "@/lib/public-api/pipeline";

const config = loadConfig({ ...process.env, RATE_LIMIT_ENABLED: "false" });
const port = Number(process.env.PORT ?? 3412);
const db = await openPg(config.DATABASE_URL!, {
  max: config.DB_POOL_SIZE,
  connectTimeoutMs: config.DB_CONNECT_TIMEOUT_MS,
  statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS, // the same session settings as the app's pool
});

// Every key of the database, loaded once (the equivalent of a warm key cache).
const keys = new Map<string, { id: string; orgId: string; orgSlug: string; scopes: Set<string> }>();
for (const r of await db.query<{
  id: string;
  key_hash: string;
  org_id: string;
  slug: string;
  scopes: string[];
}>(
  "select k.id, k.key_hash, k.org_id, o.slug, k.scopes from api_keys k join organizations o on o.id = k.org_id where k.revoked_at is null",
)) {
  keys.set(r.key_hash, { id: r.id, orgId: r.org_id, orgSlug: r.slug, scopes: new Set(r.scopes) });
}

// The endpoint a path names: a list, or a product read whole (preview `details`), with its path's parameters.
function endpointOf(pathname: string) {
  const list = /^\/public\/v1\/([a-z]+)$/.exec(pathname);
  const none: Record<string, string> = {};
  if (list && list[1]! in ENDPOINTS)
    return { endpoint: ENDPOINTS[list[1] as keyof typeof ENDPOINTS], params: none };
  const item = /^\/public\/v1\/products\/([^/]+)$/.exec(pathname);
  if (item) return { endpoint: ITEM_ENDPOINTS.product, params: { id: decodeURIComponent(item[1]!) } };
  return undefined;
}

// The catalog's caches of each database handle (the recording handles of EXPLAIN start cold).
const contexts = new Map<Queryable, CatalogContext>();

// Runs the handler of a path's endpoint on a database handle.
async function run(database: Queryable, url: URL, key: { orgId: string; orgSlug: string }) {
  const found = endpointOf(url.pathname);
  if (!found) throw new PublicApiError("PUBLIC_API_NOT_FOUND");
  const { endpoint, params } = found;
  const query = parseQuery(url.searchParams, endpoint.query as never);
  const handler = endpoint.handler as (ctx: Partial<ApiContext<unknown>>) => Promise<unknown>;
  let catalog = contexts.get(database);
  if (!catalog) {
    // Counts with their own bound, as the app's runtime runs them (the recording handles of EXPLAIN record theirs).
    const counting = database === db ? db.withStatementTimeout(config.DB_COUNT_TIMEOUT_MS) : database;
    contexts.set(database, (catalog = catalogContext(database, { counting })));
  }
  return handler({ catalog, org: { id: key.orgId, slug: key.orgSlug }, query, config, params });
}

// EXPLAIN (ANALYZE, BUFFERS) of every statement one request runs: on a cold count cache, then warm.
async function explain(target: URL, key: { orgId: string; orgSlug: string }): Promise<string> {
  if (!endpointOf(target.pathname)) throw new Error(`not an endpoint's path: ${target.pathname}`);
  const recorded: { text: string; params: readonly unknown[] }[] = [];
  const recorder: Queryable = {
    query: async <R>(text: string, params: readonly unknown[] = []) => {
      recorded.push({ text, params });
      return db.query<R>(text, params);
    },
  };
  const out: string[] = [];
  // The unfiltered list first, as a running server would have counted it: a search's plan depends on its share.
  await run(recorder, new URL(target.pathname, target), key);
  for (const phase of ["cold (first request after a catalog change: page + count)", "warm (count cached)"]) {
    recorded.length = 0;
    await run(recorder, target, key);
    out.push(`## ${phase}\n`);
    for (const s of [...recorded]) {
      const plan = await db.query<{ "QUERY PLAN": string }>(`explain (analyze, buffers) ${s.text}`, s.params);
      out.push(
        "```sql",
        s.text.replace(/\n\s+/g, "\n  ").trim(),
        `-- params: ${JSON.stringify(s.params)}`,
        "```",
        "```",
        ...plan.map((r) => r["QUERY PLAN"]),
        "```",
        "",
      );
    }
  }
  return out.join("\n");
}

function send(res: http.ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}) {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "cache-control": "private, no-store",
    ...extra,
  });
  res.end(text);
}

const server = http.createServer((req, res) => {
  void (async () => {
    const url = new URL(req.url ?? "/", "http://floor.local");
    const auth = req.headers.authorization ?? "";
    const token = auth.startsWith("Bearer ") ? auth.slice(7).trim() : "";
    const key = isWellFormedApiKey(token) ? keys.get(hashApiKey(token)) : undefined;
    if (!key) {
      const e = new PublicApiError("PUBLIC_API_KEY_INVALID");
      return send(res, 401, errorBody(e, "floor"), { "www-authenticate": 'Bearer realm="public-api"' });
    }
    if (url.pathname === "/__explain") {
      const target = new URL(url.searchParams.get("path") ?? "/", "http://floor.local");
      return send(res, 200, await explain(target, key), { "content-type": "text/markdown" });
    }
    if (!endpointOf(url.pathname)) return send(res, 404, { statusCode: 404 });
    return send(res, 200, await run(db, url, key));
  })().catch((err: unknown) => {
    if (err instanceof PublicApiError) return send(res, err.status, errorBody(err, "floor"));
    console.error("[floor]", err);
    send(res, 500, { statusCode: 500 });
  });
});
server.keepAliveTimeout = 65_000;
server.listen(port, "127.0.0.1", () => console.log(`floor listening on http://127.0.0.1:${port}`));
