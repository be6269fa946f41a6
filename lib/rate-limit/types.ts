// The outcome of one rate-limit check.
export interface RateLimitResult {
  success: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds since the epoch when the window frees (when refused: when a request would pass again). */
  reset: number;
  /**
   * The back end was unreachable: by policy (RATE_LIMIT_ON_BACKEND_ERROR=allow) the request was counted by this
   * instance's in-process limiter instead, and the numbers above are its own.
   */
  degraded?: boolean;
}

// A rate limiter: one call per request, keyed by an identifier (key id, client address).
export interface RateLimiter {
  readonly backend: "memory" | "upstash" | "redis";
  limit(identifier: string): Promise<RateLimitResult>;
  close?(): Promise<void>;
}

// Thrown by limit() when the back end is unreachable or slow and the policy is "refuse" (the pipeline answers 503).
export class RateLimiterUnavailableError extends Error {
  constructor(message = "Rate limiter back end unavailable", options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RateLimiterUnavailableError";
  }
}

// Seconds a refused client should wait: an integer ≥ 1 (the Retry-After header and the body's retryAfter).
export function retryAfterSeconds(reset: number, now = Date.now()): number {
  return Math.max(1, Math.ceil((reset - now) / 1000));
}
