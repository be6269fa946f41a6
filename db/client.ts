import path from "node:path";
import { mkdirSync } from "node:fs";
import { PgListener } from "./pg-listener";

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

// PGlite (Postgres in WASM) persisted in a folder, or in memory when dataDir is "memory://".
export async function openPglite(dataDir: string): Promise<Database> {
  const [{ PGlite }, { pg_trgm }, { unaccent }, { btree_gin }] = await Promise.all([
    import("@electric-sql/pglite"),
    import("@electric-sql/pglite/contrib/pg_trgm"),
    import("@electric-sql/pglite/contrib/unaccent"),
    import("@electric-sql/pglite/contrib/btree_gin"),
  ]);
  if (!dataDir.startsWith("memory://")) mkdirSync(dataDir, { recursive: true });
  const pg = await PGlite.create(dataDir, { extensions: { pg_trgm, unaccent, btree_gin } });
  const run = async <R>(q: { query: typeof pg.query }, text: string, params?: readonly unknown[]) =>
    (await q.query<R>(text, params as unknown[] | undefined)).rows;
  const query: Queryable["query"] = (text, params) => run(pg, text, params);
  return {
    driver: "pglite",
    query,
    exec: async (sql) => {
      await pg.exec(sql);
    },
    transaction: (fn) =>
      pg.transaction((tx) =>
        fn({
          query: (text, params) => run(tx, text, params),
          exec: async (sql) => {
            await tx.exec(sql);
          },
        }),
      ),
    withStatementTimeout: () => ({ query }),
    withLocalSettings: (settings) => {
      const set = setLocalSql(settings);
      return {
        query: (text, params) =>
          pg.transaction(async (tx) => {
            await tx.exec(set);
            return run(tx, text, params);
          }),
      };
    },
    // PGlite is the process's own database: its notifications never stop.
    listen: async (channel, onPayload, onStatus) => {
      const unlisten = await pg.listen(channel, onPayload);
      onStatus?.(true);
      return () => unlisten();
    },
    close: () => pg.close(),
  };
}

type QueryConfig = { name?: string; text: string; values?: unknown[]; query_timeout?: number };
type QueryResult = { rows: unknown[] };

// A pooled connection: node-postgres' Client (the callback form is the one the watchdog uses).
export interface PooledClient {
  query(text: string | QueryConfig, params?: unknown[]): Promise<QueryResult>;
  query(config: QueryConfig, callback: (err: Error | undefined, res: QueryResult) => void): void;
  release(err?: boolean | Error): void;
  on?(event: "error", listener: (err: Error) => void): unknown;
  off?(event: "error", listener: (err: Error) => void): unknown;
}

interface PoolLike {
  query(text: string | QueryConfig, params?: unknown[]): Promise<QueryResult>;
  connect(): Promise<PooledClient>;
  end(): Promise<void>;
}

// How often the watchdog looks at the statements in flight: a statement fails at most this long after its bound.
export const WATCHDOG_PERIOD_MS = 100;

// The client-side bound of every statement of a pool, kept by one timer per pool. node-postgres' query_timeout arms
// and clears a timer on every statement (measured: about 10 % of the CPU of a request on the bench's floor, which
// runs one statement per request); here each statement is one entry of a set, and a timer every
// WATCHDOG_PERIOD_MS fails those past their bound with node-postgres' own error ("Query read timeout", which the
// API maps to a 503), their late answers ignored. As with query_timeout, the caller then releases the connection
// with that error, so that the pool drops it rather than reuse a connection whose server does not answer.
export class StatementWatchdog {
  private readonly running = new Set<{ deadline: number; expire: () => void }>();
  private timer: ReturnType<typeof setInterval> | undefined;
  constructor(
    private readonly periodMs = WATCHDOG_PERIOD_MS,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Runs one statement on a client; past `boundMs` (0: no bound) it fails with "Query read timeout". */
  query(client: PooledClient, config: QueryConfig, boundMs: number): Promise<QueryResult> {
    if (boundMs <= 0) return client.query(config);
    return new Promise((resolve, reject) => {
      let settled = false;
      const watch = {
        deadline: this.clock() + boundMs,
        expire: () => {
          if (settled) return;
          settled = true;
          reject(new Error("Query read timeout"));
        },
      };
      this.running.add(watch);
      this.timer ??= setInterval(() => this.check(), this.periodMs).unref();
      client.query(config, (err, res) => {
        this.running.delete(watch);
        if (settled) return;
        settled = true;
        if (err) reject(err);
        else resolve(res);
      });
    });
  }

  /** Fails the statements past their bound (the timer's work; tests call it with a time of their own). */
  check(now = this.clock()): void {
    for (const w of this.running) {
      if (w.deadline > now) continue;
      this.running.delete(w);
      w.expire();
    }
  }

  get inFlight(): number {
    return this.running.size;
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

// Names of prepared statements, one per distinct statement text (bounded, since every pooled connection keeps a
// plan per name: past the limit, further texts, such as rare combinations of filters and sorts, run unnamed).
// A pooled connection parses and plans a named statement once, then only binds and executes it: on a first page,
// planning costs as much as running, so this halves the database's work per request.
export class StatementNames {
  private readonly names = new Map<string, string>();
  constructor(private readonly max = 500) {}
  nameOf(text: string): string | undefined {
    let name = this.names.get(text);
    if (name === undefined && this.names.size < this.max) {
      name = `s${this.names.size}`;
      this.names.set(text, name);
    }
    return name;
  }
}

// The statements of a pool: through the pool (its own client bound, if any: @vercel/postgres), or on a connection
// of its own under the watchdog's bound (node-postgres).
function poolDatabase(
  driver: Database["driver"],
  pool: PoolLike,
  statements?: StatementNames,
  watched?: { watchdog: StatementWatchdog; boundMs: number },
  pipelined = false,
): Database {
  // A connection out of the pool, listened to while it is out (connectionLost), and given back: dropped when a
  // statement failed (`err`), as pool.query does.
  const checkout = async (): Promise<PooledClient> => {
    const client = await pool.connect();
    client.on?.("error", connectionLost);
    return client;
  };
  const checkin = (client: PooledClient, err?: unknown): void => {
    client.off?.("error", connectionLost);
    client.release(err === undefined ? undefined : err instanceof Error ? err : true);
  };
  // One statement on a pooled connection, as pool.query runs it (a connection whose statement failed is dropped).
  const run = async (config: QueryConfig): Promise<QueryResult> => {
    if (!watched) return pool.query(config.text, config.values);
    const client = await checkout();
    try {
      const res = await watched.watchdog.query(client, config, watched.boundMs);
      checkin(client);
      return res;
    } catch (err) {
      checkin(client, err);
      throw err;
    }
  };
  const named = (config: QueryConfig): Promise<QueryResult> =>
    watched || !config.name ? run(config) : pool.query(config);
  // One statement of a transaction on its connection (under the watchdog's bound, or `boundMs`).
  const on = (
    client: PooledClient,
    text: string,
    values?: unknown[],
    boundMs = watched?.boundMs,
    name?: string,
  ) => {
    const config = name ? { name, text, values } : { text, values };
    return watched ? watched.watchdog.query(client, config, boundMs!) : client.query(config);
  };
  return {
    driver,
    query: async <R>(text: string, params?: readonly unknown[]) => {
      // Statements without parameters keep the simple protocol (which also runs several statements at once).
      const name = params?.length ? statements?.nameOf(text) : undefined;
      const values = params as unknown[] | undefined;
      return (await named(name ? { name, text, values } : { text, values })).rows as R[];
    },
    exec: async (sql) => {
      await run({ text: sql });
    },
    transaction: async (fn, opts) => {
      const client = await checkout();
      const timeoutMs = opts?.statementTimeoutMs;
      const bound = timeoutMs === undefined ? undefined : timeoutMs + CLIENT_TIMEOUT_GRACE_MS;
      try {
        await on(client, "BEGIN");
        if (timeoutMs !== undefined)
          await on(client, `SET LOCAL statement_timeout = ${Math.max(0, Math.floor(timeoutMs))}`);
        const result = await fn({
          query: async <R>(text: string, params?: readonly unknown[]) =>
            (await on(client, text, params as unknown[] | undefined, bound)).rows as R[],
          exec: async (sql) => {
            await on(client, sql, undefined, bound);
          },
        });
        await on(client, "COMMIT");
        checkin(client);
        return result;
      } catch (err) {
        // A connection whose statement timed out on the client is destroyed below (the server then rolls back):
        // a ROLLBACK on it would only wait for the same unresponsive server.
        if (!isClientTimeout(err)) await on(client, "ROLLBACK").catch(() => undefined);
        checkin(client, err);
        throw err;
      }
    },
    withStatementTimeout: (timeoutMs) => ({
      // One statement in a transaction of its own, with its own statement_timeout (SET LOCAL) and client bound;
      // unnamed, so that the pool's prepared statements keep their plans.
      query: async <R>(text: string, params?: readonly unknown[]) => {
        const client = await checkout();
        try {
          await on(client, "BEGIN");
          await on(client, `SET LOCAL statement_timeout = ${Math.max(0, Math.floor(timeoutMs))}`);
          const config = { text, values: params as unknown[] | undefined };
          const bound = timeoutMs + CLIENT_TIMEOUT_GRACE_MS;
          const { rows } = watched
            ? await watched.watchdog.query(client, config, bound)
            : await client.query({ ...config, query_timeout: bound });
          await on(client, "COMMIT");
          checkin(client);
          return rows as R[];
        } catch (err) {
          if (!isClientTimeout(err)) await on(client, "ROLLBACK").catch(() => undefined);
          checkin(client, err);
          throw err;
        }
      },
    }),
    withLocalSettings: (settings, opts) => {
      const timeoutMs = opts?.statementTimeoutMs;
      // A bound of its own is one more setting (SET LOCAL statement_timeout).
      const all: LocalSettings =
        timeoutMs === undefined
          ? settings
          : { ...settings, statement_timeout: String(Math.max(0, Math.floor(timeoutMs))) };
      const bound = timeoutMs === undefined ? watched?.boundMs : timeoutMs + CLIENT_TIMEOUT_GRACE_MS;
      // Sent one after the other: the BEGIN and the settings in one simple-protocol message (no parameters).
      const begin = `BEGIN; ${setLocalSql(all)}`;
      // Pipelined: the settings as a prepared statement of their own (parsed once per connection, not at every
      // BEGIN), written with the BEGIN, the statement and the COMMIT.
      const entries = Object.entries(all);
      const setText = `select ${entries.map((_, i) => `set_config($${2 * i + 1}, $${2 * i + 2}, true)`).join(", ")}`;
      const setValues = entries.flat();
      const setName = statements?.nameOf(setText);
      return {
        query: async <R>(text: string, params?: readonly unknown[]) => {
          // Named as the pool's other statements (its plan kept per connection), except under a bound of its own.
          const name = params?.length && timeoutMs === undefined ? statements?.nameOf(text) : undefined;
          const values = params as unknown[] | undefined;
          const client = await checkout();
          try {
            let rows: R[];
            if (pipelined) {
              // Every answer awaited before the connection goes back to the pool. A failed statement aborts the
              // transaction, whose COMMIT then rolls it back.
              const results = await Promise.allSettled([
                on(client, "BEGIN", undefined, bound),
                on(client, setText, setValues, bound, setName),
                on(client, text, values, bound, name),
                on(client, "COMMIT", undefined, bound),
              ]);
              const failed = results.find((r) => r.status === "rejected");
              if (failed) throw failed.reason;
              rows = (results[2] as PromiseFulfilledResult<QueryResult>).value.rows as R[];
            } else {
              await on(client, begin, undefined, bound);
              rows = (await on(client, text, values, bound, name)).rows as R[];
              await on(client, "COMMIT", undefined, bound);
            }
            checkin(client);
            return rows;
          } catch (err) {
            if (!pipelined && !isClientTimeout(err)) await on(client, "ROLLBACK").catch(() => undefined);
            checkin(client, err);
            throw err;
          }
        },
      };
    },
    close: async () => {
      watched?.watchdog.close();
      await pool.end();
    },
  };
}

// The "error" listener of a pooled connection while it is out of the pool. pg-pool listens to a connection's errors
// only while it is idle in the pool, and node-postgres emits one when the server's error comes with no statement
// running: a connection lost while a transaction waits between statements (an export held open while its client
// reads), or a fast shutdown's "terminating connection" in the same packet as a statement's answer (it arrives after
// the answer settled the statement, before the connection is released). With no listener the event is thrown and
// the process ends (found by tests/faults/postgres.test.ts, stopping Postgres under load). Logged instead: the
// connection is then not queryable, so its next statement fails, or its release drops it.
const connectionLost = (err: Error) => console.error("[db] connection lost:", err.message);

// node-postgres' error when a statement got no answer within query_timeout (the watchdog's too).
function isClientTimeout(err: unknown): boolean {
  return err instanceof Error && err.message === "Query read timeout";
}

// Longest a statement of background work may run (the change log's retention, the products' documents' refresher,
// an export's batches): they may read rows that are cold (a database just started, rows just loaded), which takes
// seconds where the pool's bound is one (the million-product organization's first export after a start had its first
// batch canceled at 1 s); and a database that does not answer still ends them.
export const BACKGROUND_STATEMENT_TIMEOUT_MS = 30_000;

// The client's own bound comes this much after the server's statement_timeout, so that a server that can answer
// cancels the statement itself (its locks and work are freed, and the error says why) before the client gives up.
const CLIENT_TIMEOUT_GRACE_MS = 100;

function poolSettings(opts: number | PoolOptions): Required<PoolOptions> {
  const o = typeof opts === "number" ? { max: opts } : opts;
  return {
    max: o.max ?? 10,
    connectTimeoutMs: o.connectTimeoutMs ?? 5_000,
    statementTimeoutMs: o.statementTimeoutMs ?? 0,
    pipeline: o.pipeline ?? false,
  };
}

// A Postgres server over TCP with node-postgres (`opts`: the pool size, or PoolOptions).
export async function openPg(connectionString: string, opts: number | PoolOptions = {}): Promise<Database> {
  const { default: pg } = await import("pg");
  const { max, connectTimeoutMs, statementTimeoutMs, pipeline } = poolSettings(opts);
  // Every wait is bounded, so that a database that is unreachable, frozen or blocked gives a 503, never a hung
  // request. A connection whose statement failed, timed out included, is destroyed by the pool, not reused
  // (pg-pool's pool.query releases it with the error; transaction() does the same).
  const pool = new pg.Pool({
    connectionString,
    max,
    ...(pipeline ? { pipeline: true } : {}),
    idleTimeoutMillis: 30_000,
    // The wait for a free connection and the opening of a new one.
    connectionTimeoutMillis: connectTimeoutMs,
    // The server cancels a statement past its bound; the client's own bound (StatementWatchdog, for a server that
    // cannot answer at all) comes CLIENT_TIMEOUT_GRACE_MS later.
    ...(statementTimeoutMs > 0 ? { statement_timeout: statementTimeoutMs } : {}),
    // Unless the URL says otherwise: the catalog's indexes are read from memory or SSD, so a random page costs
    // about as much as a sequential one (the usual 1.1, not the default 4, which assumes spinning disks). With 4,
    // the label of each row's family was read by scanning the whole families table rather than its primary key
    // (a first page of products: 0.18 → 0.13 ms of Postgres CPU, measured on the bench's catalog).
    // And no JIT compilation: the API's statements are short, and a batch of an export (a LIMIT over a million-row
    // index, estimated dear) was compiled on every call: 500 to 650 ms of JIT for 65 to 140 ms of execution (measured
    // on the bench's and the test server's catalogs). One home for it: every connection of the pool, exports included.
    ...(/[?&]options=/.test(connectionString) ? {} : { options: "-c random_page_cost=1.1 -c jit=off" }),
  });
  pool.on("error", (err) => console.error("[db] idle client error:", err.message));
  const watched =
    statementTimeoutMs > 0
      ? { watchdog: new StatementWatchdog(), boundMs: statementTimeoutMs + CLIENT_TIMEOUT_GRACE_MS }
      : undefined;
  const database = poolDatabase("pg", pool as unknown as PoolLike, new StatementNames(), watched, pipeline);
  // LISTEN on a connection of its own (the change feed's long polls), with TCP keepalive so that a server gone
  // silent is noticed.
  const listener = new PgListener(
    () => new pg.Client({ connectionString, keepAlive: true, connectionTimeoutMillis: connectTimeoutMs }),
  );
  return {
    ...database,
    listen: (channel, onPayload, onStatus) => listener.listen(channel, onPayload, onStatus),
    close: async () => {
      await listener.close();
      await database.close();
    },
  };
}

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
  return poolDatabase("vercel", pool as unknown as PoolLike);
}
