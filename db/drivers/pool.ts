import { setLocalSql, type Database, type LocalSettings, type PoolOptions } from "../database";
import type {
  PoolLike,
  PooledClient,
  QueryConfig,
  QueryResult,
  StatementNames,
  StatementWatchdog,
} from "./statements";

// The statements of a pool: through the pool (its own client bound, if any: @vercel/postgres), or on a connection
// of its own under the watchdog's bound (node-postgres).
export function poolDatabase(
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

// The client's own bound comes this much after the server's statement_timeout, so that a server that can answer
// cancels the statement itself (its locks and work are freed, and the error says why) before the client gives up.
export const CLIENT_TIMEOUT_GRACE_MS = 100;

// A pool's settings with their defaults (a number: the pool size).
export function poolSettings(opts: number | PoolOptions): Required<PoolOptions> {
  const o = typeof opts === "number" ? { max: opts } : opts;
  return {
    max: o.max ?? 10,
    connectTimeoutMs: o.connectTimeoutMs ?? 5_000,
    statementTimeoutMs: o.statementTimeoutMs ?? 0,
    pipeline: o.pipeline ?? false,
  };
}
