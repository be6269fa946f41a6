import { createHash } from "node:crypto";
import { Redis as IORedis } from "ioredis";

const SHEBANG = /^#![^\n]*\n/;

// A Lua script as a plain Redis server accepts it: without the `#!lua flags=...` first line that
// @upstash/ratelimit ≥ 2.1 adds (Redis 7.0 rejects the allow-key-locking flag; Redis 6 knows no shebang).
export function compatScript(script: string): string {
  return SHEBANG.test(script) ? script.replace(SHEBANG, "\n") : script;
}

// The SHA-1 (hex) Redis names a script by.
export function scriptSha(script: string): string {
  return createHash("sha1").update(script).digest("hex");
}

// Maps the SHA-1 of an original script (what callers ask for) to the SHA-1 of the script the server runs.
export class ScriptShas {
  private readonly map = new Map<string, string>();

  // Registers a script; returns the text and SHA-1 to send to the server.
  register(script: string): { script: string; sha: string } {
    const compat = compatScript(script);
    const sha = scriptSha(compat);
    if (this.map.size > 1_000) this.map.clear();
    this.map.set(scriptSha(script), sha);
    return { script: compat, sha };
  }

  // The server-side SHA-1 for an original SHA-1, if that script was registered.
  lookup(originalSha: string): string | undefined {
    return this.map.get(originalSha);
  }
}

// Opens an ioredis client for the rate limiter: commands fail fast while disconnected (no offline queue,
// no retries per request), each command is bounded, and the client keeps reconnecting in the background.
export function createIoredisClient(url: string, timeoutMs: number, onError: (err: Error) => void): IORedis {
  const client = new IORedis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: timeoutMs,
    connectTimeout: Math.max(1_000, timeoutMs * 4),
    retryStrategy: (times) => Math.min(100 * times, 1_000),
    enableAutoPipelining: true,
  });
  client.on("error", onError);
  return client;
}

// The subset of the @upstash/redis client that @upstash/ratelimit's slidingWindow calls (evalsha, eval, and get/set
// for dynamic limits), implemented on ioredis for a plain Redis server.
export class IoredisUpstashAdapter {
  private readonly shas = new ScriptShas();
  private waitReady: Promise<void> | undefined;

  constructor(
    readonly client: IORedis,
    private readonly waitMs = 1_000,
  ) {}

  // EVALSHA by the SHA-1 of the original script; NOSCRIPT when the script is unknown so the caller falls back to eval.
  async evalsha<TArgs extends unknown[], TData = unknown>(
    sha: string,
    keys: string[],
    args: TArgs,
  ): Promise<TData> {
    const compatSha = this.shas.lookup(sha);
    if (compatSha === undefined)
      throw new Error("NOSCRIPT No matching script (not loaded through this adapter yet)");
    await this.ready();
    return (await this.client.evalsha(
      compatSha,
      keys.length,
      ...keys,
      ...(args as (string | number)[]),
    )) as TData;
  }

  // EVAL of the script without its shebang line (which also loads it for later evalsha calls).
  async eval<TArgs extends unknown[], TData = unknown>(
    script: string,
    keys: string[],
    args: TArgs,
  ): Promise<TData> {
    const compat = this.shas.register(script);
    await this.ready();
    return (await this.client.eval(
      compat.script,
      keys.length,
      ...keys,
      ...(args as (string | number)[]),
    )) as TData;
  }

  // GET (used by @upstash/ratelimit only with dynamic limits).
  async get<TData = string>(key: string): Promise<TData | null> {
    await this.ready();
    return (await this.client.get(key)) as TData | null;
  }

  // SET (used by @upstash/ratelimit only with dynamic limits).
  async set(key: string, value: string | number): Promise<"OK" | null> {
    await this.ready();
    return (await this.client.set(key, String(value))) as "OK" | null;
  }

  /** Waits (at most waitMs) for a connection in progress; fails at once while the server is known to be down. */
  private ready(): Promise<void> | void {
    const status = this.client.status;
    if (status === "ready") return;
    if (status === "wait" || status === "connecting" || status === "connect") {
      this.waitReady ??= new Promise<void>((resolve, reject) => {
        const c = this.client;
        const settle = (err?: Error) => {
          clearTimeout(timer);
          c.off("ready", onReady);
          c.off("close", onClose);
          c.off("end", onClose);
          this.waitReady = undefined;
          if (err) reject(err);
          else resolve();
        };
        const onReady = () => settle();
        const onClose = () => settle(new Error("Redis connection closed before it was ready"));
        const timer = setTimeout(
          () => settle(new Error(`Redis connection not ready within ${this.waitMs} ms`)),
          this.waitMs,
        );
        c.once("ready", onReady);
        c.once("close", onClose);
        c.once("end", onClose);
      });
      return this.waitReady;
    }
    throw new Error(`Redis connection is ${status}`);
  }
}
