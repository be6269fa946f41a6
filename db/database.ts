// The database's interface: what every driver (db/drivers/) gives the rest of the code, and their settings.

// Something that runs one parameterised SQL statement and returns its rows.
export interface Queryable {
  query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<R[]>;
}

// A Queryable that also runs scripts of several statements without parameters (migrations, seeds).
export interface Executor extends Queryable {
  exec(sql: string): Promise<void>;
}

// Which database: embedded PGlite, a Postgres server over TCP (node-postgres), or Vercel/Neon Postgres.
export type DbDriver = "pglite" | "pg" | "vercel";

// The one database handle of the process, whatever driver is behind it.
export interface Database extends Executor {
  readonly driver: DbDriver;
  /**
   * Runs fn inside BEGIN/COMMIT on one connection; ROLLBACK when it throws. `statementTimeoutMs`: its statements may
   * run that long instead of the pool's bound (background work that reads rows possibly cold: a refresher's batch,
   * an export's; never what a request waits on alone). PGlite has no bound: the database itself.
   */
  transaction<T>(fn: (tx: Executor) => Promise<T>, opts?: { statementTimeoutMs?: number }): Promise<T>;
  /**
   * A handle whose statements may run up to `timeoutMs` instead of the pool's statement bound: for work that is
   * shared and remembered (an exact count of a million rows can take a second cold), never for what a request
   * waits on alone. PGlite has no bound: the database itself.
   */
  withStatementTimeout(timeoutMs: number): Queryable;
  /**
   * A handle whose every statement runs in a transaction of its own under `settings`, each set for that transaction
   * alone (`set_config(name, value, true)`, as SET LOCAL; `role` is SET LOCAL ROLE): row-level security's role and
   * organization (lib/catalog/row-security.ts). The settings go with the BEGIN in one simple-protocol message, and on
   * a pipelined pool (PoolOptions.pipeline) the BEGIN, the statement and the COMMIT are written at once: one round
   * trip per statement as without settings. `statementTimeoutMs` as withStatementTimeout (then unnamed).
   */
  withLocalSettings(settings: LocalSettings, opts?: { statementTimeoutMs?: number }): Queryable;
  /**
   * Subscribes to a notification channel (LISTEN): `onPayload` gets each NOTIFY's payload, `onStatus` says whether
   * notifications are being received (false while the connection is lost: those sent meanwhile are lost, and the
   * subscriber must look for itself). Resolves with the unsubscribe function. Absent where the driver cannot listen
   * (@vercel/postgres).
   */
  listen?(
    channel: string,
    onPayload: (payload: string) => void,
    onStatus?: ListenStatus,
  ): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

// Settings of one transaction (name → value), as set_config(name, value, true) sets them.
export type LocalSettings = Readonly<Record<string, string>>;

// A string as an SQL literal (node-postgres' escapeLiteral): the settings travel with the BEGIN in one simple-protocol
// message, which takes no parameters.
export function sqlLiteral(value: string): string {
  if (value.includes("\0")) throw new Error("An SQL literal cannot hold a NUL character.");
  const quoted = value.replace(/'/g, "''");
  return value.includes("\\") ? ` E'${quoted.replace(/\\/g, "\\\\")}'` : `'${quoted}'`;
}

// The statement that sets `settings` for the current transaction, in one round trip with whatever precedes it.
export function setLocalSql(settings: LocalSettings): string {
  const calls = Object.entries(settings).map(
    ([k, v]) => `set_config(${sqlLiteral(k)}, ${sqlLiteral(v)}, true)`,
  );
  return `select ${calls.join(", ")}`;
}

// Whether a subscription receives its channel's notifications now (true once listening, false when the connection
// is lost, true again once it listens anew).
export type ListenStatus = (listening: boolean) => void;

// What opening the database needs. The field names are the environment's, so lib/config's Config is one as it is.
export interface DbOptions {
  dbDriver: DbDriver;
  /** The server's URL (driver "pg"). */
  DATABASE_URL?: string;
  /** Vercel/Neon's URL (driver "vercel"). */
  POSTGRES_URL?: string;
  /** PGlite's files are kept under `${DATA_DIR}/pglite` (driver "pglite"). */
  DATA_DIR: string;
  /** Connections in a server database's pool. */
  DB_POOL_SIZE: number;
  /** Longest wait for a pooled connection (PoolOptions.connectTimeoutMs). */
  DB_CONNECT_TIMEOUT_MS?: number;
  /** Longest a statement may run (PoolOptions.statementTimeoutMs). */
  DB_STATEMENT_TIMEOUT_MS?: number;
  /** Row-level security on the catalog's reads: a node-postgres pool then pipelines (PoolOptions.pipeline). */
  DB_ROW_SECURITY?: boolean;
  /** Local stand-in for Neon's WebSocket proxy (VercelLocalEndpoints.wsProxy; tests). */
  VERCEL_POSTGRES_WS_PROXY?: string;
  /** Local stand-in for Neon's HTTP endpoint (VercelLocalEndpoints.httpEndpoint; tests). */
  VERCEL_POSTGRES_HTTP_ENDPOINT?: string;
}

// Settings of a server database's pool (node-postgres or @vercel/postgres).
export interface PoolOptions {
  /** Connections in the pool (default 10). */
  max?: number;
  /** Longest wait for a connection of the pool, opening one included (default 5000 ms). */
  connectTimeoutMs?: number;
  /**
   * Longest a statement may run (default, and 0: no bound). node-postgres: the server cancels it (statement_timeout)
   * and, for a server that cannot answer at all (frozen, partitioned), the client gives up on the connection
   * shortly after (StatementWatchdog; @vercel/postgres: query_timeout), which the pool then destroys.
   */
  statementTimeoutMs?: number;
  /**
   * node-postgres only: the pool's connections send a statement without waiting for the answers of those before it
   * (pg's pipeline mode), so that withLocalSettings' BEGIN, statement and COMMIT cost one round trip, not three.
   */
  pipeline?: boolean;
}

// Longest a statement of background work may run (the change log's retention, the products' documents' refresher,
// an export's batches): they may read rows that are cold (a database just started, rows just loaded), which takes
// seconds where the pool's bound is one (the million-product organization's first export after a start had its first
// batch canceled at 1 s); and a database that does not answer still ends them.
export const BACKGROUND_STATEMENT_TIMEOUT_MS = 30_000;
