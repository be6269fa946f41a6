import type { Database, PoolOptions } from "../database";
import { PgListener } from "./pg-listener";
import { CLIENT_TIMEOUT_GRACE_MS, poolDatabase, poolSettings } from "./pool";
import { StatementNames, StatementWatchdog } from "./statements";

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
    // the label of each row's family was read by scanning the whole families table rather than its primary key.
    // And no JIT compilation: the API's statements are short, and a batch of an export (a LIMIT over a million-row
    // index, estimated dear) was compiled on every call, at a cost several times its execution. One home for it:
    // every connection of the pool, exports included. Measured: bench/README.md#postgres-session-settings
    ...(/[?&]options=/.test(connectionString) ? {} : { options: "-c random_page_cost=1.1 -c jit=off" }),
  });
  pool.on("error", (err) => console.error("[db] idle client error:", err.message));
  const watched =
    statementTimeoutMs > 0
      ? { watchdog: new StatementWatchdog(), boundMs: statementTimeoutMs + CLIENT_TIMEOUT_GRACE_MS }
      : undefined;
  const database = poolDatabase("pg", pool, new StatementNames(), watched, pipeline);
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
