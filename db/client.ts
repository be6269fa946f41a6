// The database of the process: its interface (db/database.ts) and one driver behind it (db/drivers/): embedded
// PGlite, a Postgres server over TCP (node-postgres), or Vercel/Neon Postgres (@vercel/postgres).
import path from "node:path";
import type { Database, DbOptions, PoolOptions } from "./database";
import { openPg } from "./drivers/pg";
import { openPglite } from "./drivers/pglite";
import { openVercel } from "./drivers/vercel";

export * from "./database";
export { openPg, openPglite, openVercel };
export type { VercelLocalEndpoints } from "./drivers/vercel";

// Opens the database that the configuration selects: PGlite under DATA_DIR, a pg Pool, or @vercel/postgres.
// `override` changes pool settings of the configuration: migrations and seeds pass { statementTimeoutMs: 0 }.
export async function openDatabase(config: DbOptions, override: PoolOptions = {}): Promise<Database> {
  const pool: PoolOptions = {
    max: config.DB_POOL_SIZE,
    connectTimeoutMs: config.DB_CONNECT_TIMEOUT_MS,
    statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS,
    pipeline: config.DB_ROW_SECURITY ?? false,
    ...override,
  };
  switch (config.dbDriver) {
    case "pg":
      return openPg(config.DATABASE_URL!, pool);
    case "vercel":
      return openVercel(config.POSTGRES_URL!, pool, {
        wsProxy: config.VERCEL_POSTGRES_WS_PROXY,
        httpEndpoint: config.VERCEL_POSTGRES_HTTP_ENDPOINT,
      });
    default:
      return openPglite(path.resolve(config.DATA_DIR, "pglite"));
  }
}
