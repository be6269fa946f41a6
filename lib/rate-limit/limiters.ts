// Builds the rate limiters: one on the back end the configuration selects (createRateLimiter), and the process's set
// sharing one connection (createRateLimiters, held by the runtime). What a limiter is: ./types.ts.
import { Redis as UpstashRedis } from "@upstash/redis";
import type { Config } from "@/lib/config";
import { IoredisUpstashAdapter, createIoredisClient } from "./ioredis-adapter";
import { MemorySlidingWindow } from "./memory";
import { IncidentLog, RemoteLimiter } from "./remote";
import type { RateLimiter } from "./types";

// Limits of one limiter: key prefix in Redis, requests allowed per window, window length.
export interface RateLimiterOptions {
  prefix: string;
  limit: number;
  windowSeconds: number;
  /** In-process counting (the back end, or the fallback while Redis is unreachable): identifiers remembered at most (default 100,000). */
  maxEntries?: number;
}

type ConfigPart = Pick<
  Config,
  | "UPSTASH_REDIS_REST_URL"
  | "UPSTASH_REDIS_REST_TOKEN"
  | "REDIS_URL"
  | "RATE_LIMIT_ON_BACKEND_ERROR"
  | "RATE_LIMIT_TIMEOUT_MS"
>;

interface Connection {
  backend: "upstash" | "redis";
  redis: unknown;
  incident: IncidentLog;
  /** Takes a reference; the returned function releases it (the last release closes the connection). */
  acquire(): () => Promise<void>;
}

function refCounted(close: () => Promise<void>): () => () => Promise<void> {
  let refs = 0;
  return () => {
    refs += 1;
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      refs -= 1;
      if (refs === 0) await close();
    };
  };
}

/** The Redis connection the configuration selects, or undefined for the in-process back end. */
function openConnection(config: ConfigPart): Connection | undefined {
  const timeoutMs = config.RATE_LIMIT_TIMEOUT_MS;
  if (config.UPSTASH_REDIS_REST_URL && config.UPSTASH_REDIS_REST_TOKEN) {
    const redis = new UpstashRedis({
      url: config.UPSTASH_REDIS_REST_URL,
      token: config.UPSTASH_REDIS_REST_TOKEN,
      retry: false,
      // A fresh signal per HTTP request: an aborted fetch rejects, and the socket is not left waiting.
      signal: () => AbortSignal.timeout(timeoutMs),
      enableTelemetry: false,
      readYourWrites: false,
      responseEncoding: false,
    });
    const incident = new IncidentLog(`Upstash Redis at ${new URL(config.UPSTASH_REDIS_REST_URL).host}`);
    return { backend: "upstash", redis, incident, acquire: refCounted(async () => {}) };
  }
  if (config.REDIS_URL) {
    const incident = new IncidentLog(`Redis at ${new URL(config.REDIS_URL).host}`);
    const policy = config.RATE_LIMIT_ON_BACKEND_ERROR;
    const client = createIoredisClient(config.REDIS_URL, timeoutMs, (err) => incident.failed(err, policy));
    const redis = new IoredisUpstashAdapter(client, timeoutMs);
    return {
      backend: "redis",
      redis,
      incident,
      acquire: refCounted(async () => {
        client.disconnect();
      }),
    };
  }
  return undefined;
}

function build(config: ConfigPart, opts: RateLimiterOptions, conn: Connection | undefined): RateLimiter {
  const windowMs = opts.windowSeconds * 1000;
  if (!conn) return new MemorySlidingWindow(opts.limit, windowMs, opts.maxEntries);
  return new RemoteLimiter({
    backend: conn.backend,
    redis: conn.redis,
    prefix: opts.prefix,
    limit: opts.limit,
    windowMs,
    timeoutMs: config.RATE_LIMIT_TIMEOUT_MS,
    policy: config.RATE_LIMIT_ON_BACKEND_ERROR,
    incident: conn.incident,
    release: conn.acquire(),
    maxEntries: opts.maxEntries,
  });
}

// A limiter on the back end the configuration selects: Upstash REST (UPSTASH_REDIS_REST_URL/_TOKEN), a Redis
// server (REDIS_URL), else in-process. Each call opens its own connection; close() releases it.
export function createRateLimiter(config: ConfigPart, opts: RateLimiterOptions): RateLimiter {
  return build(config, opts, openConnection(config));
}

// The process's limiters: perKey (RATE_LIMIT_REQUESTS per RATE_LIMIT_WINDOW_SECONDS, per API key),
// authFailure (AUTH_FAILURE_LIMIT per AUTH_FAILURE_WINDOW_SECONDS, per client address), and the console's failed
// sign-ins (SIGN_IN_FAILURE_LIMIT per SIGN_IN_FAILURE_WINDOW_SECONDS), per client address and per account.
export interface RateLimiters {
  perKey: RateLimiter;
  authFailure: RateLimiter;
  signInFailureByAddress: RateLimiter;
  signInFailureByAccount: RateLimiter;
  /** Releases their connection. */
  close(): Promise<void>;
}

// The limiters of a configuration, sharing one connection (the runtime holds them); with
// RATE_LIMIT_ENABLED=false they are in-process and open no connection.
export function createRateLimiters(config: Config): RateLimiters {
  const conn = config.RATE_LIMIT_ENABLED ? openConnection(config) : undefined;
  const perKey = build(
    config,
    {
      prefix: "pcapi:rl:key",
      limit: config.RATE_LIMIT_REQUESTS,
      windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
    },
    conn,
  );
  const authFailure = build(
    config,
    {
      prefix: "pcapi:rl:auth",
      limit: config.AUTH_FAILURE_LIMIT,
      windowSeconds: config.AUTH_FAILURE_WINDOW_SECONDS,
    },
    conn,
  );
  const signIn = (prefix: string) =>
    build(
      config,
      {
        prefix,
        limit: config.SIGN_IN_FAILURE_LIMIT,
        windowSeconds: config.SIGN_IN_FAILURE_WINDOW_SECONDS,
      },
      conn,
    );
  const signInFailureByAddress = signIn("pcapi:rl:signin:addr");
  const signInFailureByAccount = signIn("pcapi:rl:signin:acct");
  const all = [perKey, authFailure, signInFailureByAddress, signInFailureByAccount];
  return {
    perKey,
    authFailure,
    signInFailureByAddress,
    signInFailureByAccount,
    close: async () => {
      await Promise.allSettled(all.map((l) => l.close?.()));
    },
  };
}
