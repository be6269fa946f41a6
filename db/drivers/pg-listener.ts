import type { ListenStatus } from "../database";

// The part of node-postgres' Client the listener uses.
interface ListenClient {
  connect(): Promise<unknown>;
  query(text: string): Promise<unknown>;
  end(): Promise<void>;
  on(event: "notification", fn: (msg: { channel: string; payload?: string }) => void): unknown;
  on(event: "error" | "end", fn: (err?: Error) => void): unknown;
}

interface Subscriber {
  onPayload: (payload: string) => void;
  onStatus?: ListenStatus;
}

// First and longest wait before opening a lost listening connection again (doubling in between).
const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 10_000;

// One connection of its own that LISTENs on behalf of every subscriber of a database handle (node-postgres): a pooled
// connection cannot listen, since the pool hands it to other statements and closes it when idle. When the connection
// is lost (server restart, network), subscribers are told (onStatus(false)) and it is opened again, after 0.5 s, then
// doubling up to 10 s; once it listens anew they are told again (onStatus(true)). The connection is opened with the
// first subscriber and closed with the last.
export class PgListener {
  private readonly subscribers = new Map<string, Set<Subscriber>>();
  private client: ListenClient | undefined;
  private connecting: Promise<void> | undefined;
  private retryMs = RETRY_FIRST_MS;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  constructor(private readonly open: () => ListenClient) {}

  /** Subscribes to a channel; resolves once it listens or, when the server cannot be reached, once it keeps trying. */
  async listen(
    channel: string,
    onPayload: (payload: string) => void,
    onStatus?: ListenStatus,
  ): Promise<() => Promise<void>> {
    if (this.closed) throw new Error("the database is closed");
    const sub: Subscriber = { onPayload, onStatus };
    let subs = this.subscribers.get(channel);
    const first = !subs;
    if (!subs) this.subscribers.set(channel, (subs = new Set()));
    subs.add(sub);
    if (this.client && first) {
      await this.client.query(`LISTEN ${quoteIdent(channel)}`).catch((err: Error) => this.lost(err));
    } else if (!this.client) {
      await this.connect();
    }
    sub.onStatus?.(this.client !== undefined);
    return async () => {
      subs.delete(sub);
      if (subs.size > 0 || this.subscribers.get(channel) !== subs) return;
      this.subscribers.delete(channel);
      if (this.subscribers.size === 0) await this.stop();
      else await this.client?.query(`UNLISTEN ${quoteIdent(channel)}`).catch(() => undefined);
    };
  }

  /** Closes the connection for good. */
  async close(): Promise<void> {
    this.closed = true;
    this.subscribers.clear();
    await this.stop();
  }

  // Opens the connection and LISTENs on every channel subscribed (once at a time); a failure schedules a retry.
  private connect(): Promise<void> {
    this.connecting ??= (async () => {
      const client = this.open();
      client.on("notification", (msg) => {
        for (const sub of this.subscribers.get(msg.channel) ?? []) sub.onPayload(msg.payload ?? "");
      });
      client.on("error", (err) => this.lost(err, client));
      client.on("end", () => this.lost(undefined, client));
      try {
        await client.connect();
        for (const channel of this.subscribers.keys()) await client.query(`LISTEN ${quoteIdent(channel)}`);
      } catch (err) {
        await client.end().catch(() => undefined);
        this.scheduleRetry(err as Error);
        return;
      }
      if (this.closed || this.subscribers.size === 0) {
        await client.end().catch(() => undefined);
        return;
      }
      this.client = client;
      this.retryMs = RETRY_FIRST_MS;
      this.status(true);
    })().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  // The connection failed or ended: subscribers are told, and it is opened again later.
  private lost(err?: Error, client = this.client): void {
    if (!client || client !== this.client) return;
    this.client = undefined;
    client.end().catch(() => undefined);
    this.status(false);
    this.scheduleRetry(err);
  }

  private scheduleRetry(err?: Error): void {
    if (this.closed || this.subscribers.size === 0 || this.retry) return;
    console.error(
      `[db] listening connection lost${err ? `: ${err.message}` : ""}; again in ${this.retryMs} ms`,
    );
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.connect();
    }, this.retryMs);
    this.retry.unref();
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
  }

  private status(listening: boolean): void {
    for (const subs of this.subscribers.values()) for (const sub of subs) sub.onStatus?.(listening);
  }

  private async stop(): Promise<void> {
    clearTimeout(this.retry);
    this.retry = undefined;
    await this.connecting;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}

// A channel's name as an SQL identifier.
function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
