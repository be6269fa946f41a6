import { Ratelimit } from "@upstash/ratelimit";
import { MemorySlidingWindow } from "./memory";
import { RateLimiterUnavailableError, type RateLimiter, type RateLimitResult } from "./types";

type RatelimitRedis = ConstructorParameters<typeof Ratelimit>[0]["redis"];

// Logs a back-end outage once when it starts and once when it ends, not per request.
export class IncidentLog {
  private failing = false;

  constructor(private readonly label: string) {}

  // Records a failure; logs only the first one of an incident.
  failed(err: unknown, policy: "allow" | "refuse"): void {
    if (this.failing) return;
    this.failing = true;
    const reason = err instanceof Error ? err.message : String(err);
    console.warn(
      `[rate-limit] ${this.label} unreachable (${reason}); ${policy === "allow" ? "falling back to this instance's in-process limiter" : "refusing requests with 503"} until it is back`,
    );
  }

  // Records a success; logs the end of an incident.
  ok(): void {
    if (!this.failing) return;
    this.failing = false;
    console.warn(`[rate-limit] ${this.label} reachable again; limiting resumed`);
  }
}

// What a Redis-backed limiter needs besides its limits.
export interface RemoteOptions {
  backend: "upstash" | "redis";
  redis: unknown;
  prefix: string;
  limit: number;
  windowMs: number;
  timeoutMs: number;
  policy: "allow" | "refuse";
  incident: IncidentLog;
  release: () => Promise<void>;
  /** Identifiers the in-process fallback remembers at most (default: MemorySlidingWindow's). */
  maxEntries?: number;
}

const TIMED_OUT = Symbol("timed out");

// @upstash/ratelimit's sliding window on a Redis back end, every call bounded by the timeout, failures handled by
// policy: "refuse" throws RateLimiterUnavailableError (503); "allow" counts the call in this instance's in-process
// sliding window of the same limit and window, so that a Redis outage loosens the limit to one per instance instead
// of lifting it (an address guessing keys is still stopped after the failed-authentication limit).
export class RemoteLimiter implements RateLimiter {
  readonly backend: "upstash" | "redis";
  private readonly ratelimit: Ratelimit;
  private readonly fallback: MemorySlidingWindow;
  private closed = false;

  constructor(private readonly o: RemoteOptions) {
    this.backend = o.backend;
    this.fallback = new MemorySlidingWindow(o.limit, o.windowMs, o.maxEntries);
    this.ratelimit = new Ratelimit({
      redis: o.redis as RatelimitRedis,
      limiter: Ratelimit.slidingWindow(o.limit, `${o.windowMs} ms`),
      prefix: o.prefix,
      analytics: false,
      // Its own timeout answers success without a trace; ours applies the configured policy instead.
      timeout: 0,
      // Its block cache is a Map that never shrinks; the Redis round trip is cheap enough.
      ephemeralCache: false,
      enableProtection: false,
      enableTelemetry: false,
    });
  }

  // Counts one request for the identifier in Redis; on failure, the fallback's degraded answer or RateLimiterUnavailableError.
  async limit(identifier: string): Promise<RateLimitResult> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
        timer = setTimeout(resolve, this.o.timeoutMs, TIMED_OUT);
      });
      const r = await Promise.race([this.ratelimit.limit(identifier), timeout]);
      if (r === TIMED_OUT) throw new Error(`no answer within ${this.o.timeoutMs} ms`);
      this.o.incident.ok();
      // Redis counts again: what the fallback counted during the outage no longer applies.
      if (this.fallback.size > 0) void this.fallback.close();
      return { success: r.success, limit: r.limit, remaining: r.remaining, reset: r.reset };
    } catch (err) {
      this.o.incident.failed(err, this.o.policy);
      if (this.o.policy === "refuse") {
        throw new RateLimiterUnavailableError(`Rate limiter back end (${this.backend}) unavailable`, {
          cause: err,
        });
      }
      return { ...this.fallback.check(identifier, Date.now()), degraded: true };
    } finally {
      clearTimeout(timer);
    }
  }

  // Releases the connection (shared connections close when their last limiter is closed).
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.fallback.close();
    await this.o.release();
  }
}
