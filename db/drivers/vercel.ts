import type { Database, PoolOptions } from "../database";
import { poolDatabase, poolSettings } from "./pool";

// Local stand-ins for Neon's endpoints (tests): a plain ws:// relay ("host:port/path") and a plain http:// /sql endpoint.
export interface VercelLocalEndpoints {
  wsProxy?: string;
  httpEndpoint?: string;
}

// Vercel/Neon Postgres with @vercel/postgres (WebSocket for pool.query, HTTP for pool.sql; never TCP).
// Without `local`, Neon's production defaults (wss://, https://) are left alone. `opts`: the pool size, or PoolOptions.
export async function openVercel(
  connectionString: string,
  opts: number | PoolOptions = {},
  local?: VercelLocalEndpoints,
): Promise<Database> {
  const { max, connectTimeoutMs, statementTimeoutMs } = poolSettings(opts);
  const [{ createPool }, { neonConfig }] = await Promise.all([
    import("@vercel/postgres"),
    import("@neondatabase/serverless"),
  ]);
  if (local?.wsProxy) {
    // Plain WebSocket to a relay that pipes to a Postgres server: no TLS, and no pipelined password
    // (a server with trust or SCRAM authentication rejects a password sent before it asks for one).
    neonConfig.wsProxy = local.wsProxy.replace(/^wss?:\/\//, "");
    neonConfig.useSecureWebSocket = false;
    neonConfig.pipelineTLS = false;
    neonConfig.pipelineConnect = false;
  }
  if (local?.httpEndpoint) {
    const base = new URL(local.httpEndpoint);
    neonConfig.fetchEndpoint = base.pathname === "/" ? `${base.origin}/sql` : base.toString();
  }
  // Neon's Pool is pg-pool with a copy of node-postgres' client: the same connect and client-side statement bounds.
  // No statement_timeout startup parameter (as no `options` above): a pooled endpoint (PgBouncer) may refuse
  // startup parameters it does not track, so the client's query_timeout alone bounds a statement there.
  const pool = createPool({
    connectionString,
    max,
    connectionTimeoutMillis: connectTimeoutMs,
    ...(statementTimeoutMs > 0 ? { query_timeout: statementTimeoutMs } : {}),
  });
  pool.on("error", (err: Error) => console.error("[db] idle client error:", err.message));
  return poolDatabase("vercel", pool);
}
