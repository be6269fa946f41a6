// What the server drivers share below the pool: node-postgres' connection and pool as this code uses them, the
// statements' client-side bound (StatementWatchdog) and the names of prepared statements (StatementNames).

// A statement as node-postgres takes it (a name makes it a prepared statement), and its answer.
export type QueryConfig = { name?: string; text: string; values?: unknown[]; query_timeout?: number };
export type QueryResult = { rows: unknown[] };

// A pooled connection: node-postgres' Client (the callback form is the one the watchdog uses).
export interface PooledClient {
  query(text: string | QueryConfig, params?: unknown[]): Promise<QueryResult>;
  query(config: QueryConfig, callback: (err: Error | undefined, res: QueryResult) => void): void;
  release(err?: boolean | Error): void;
  on?(event: "error", listener: (err: Error) => void): unknown;
  off?(event: "error", listener: (err: Error) => void): unknown;
}

// A pool as poolDatabase uses it: node-postgres' Pool and @vercel/postgres' both are one.
export interface PoolLike {
  query(text: string | QueryConfig, params?: unknown[]): Promise<QueryResult>;
  connect(): Promise<PooledClient>;
  end(): Promise<void>;
}

// How often the watchdog looks at the statements in flight: a statement fails at most this long after its bound.
export const WATCHDOG_PERIOD_MS = 100;

// The client-side bound of every statement of a pool, kept by one timer per pool. node-postgres' query_timeout arms
// and clears a timer on every statement, a noticeable share of a request's CPU (measured:
// bench/README.md#statement-watchdog); here each statement is one entry of a set, and a timer every
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
