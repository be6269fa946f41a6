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

// Marks a RateLimiterUnavailableError, whichever copy of this module made it.
const UNAVAILABLE = Symbol.for("public-catalog-api.rate-limiter-unavailable");

// Thrown by limit() when the back end is unreachable or slow and the policy is "refuse" (the pipeline answers 503).
// `instanceof` reads a mark rather than the class: the limiters live in the runtime, which npm start's server
// bundle and Next.js' compilation share (lib/runtime.ts), so a limiter built by one copy of this module throws to
// code of the other.
export class RateLimiterUnavailableError extends Error {
  readonly [UNAVAILABLE] = true;
  constructor(message = "Rate limiter back end unavailable", options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RateLimiterUnavailableError";
  }
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === "object" && value !== null && UNAVAILABLE in value;
  }
}

// Seconds a refused client should wait: an integer ≥ 1 (the Retry-After header and the body's retryAfter).
export function retryAfterSeconds(reset: number, now = Date.now()): number {
  return Math.max(1, Math.ceil((reset - now) / 1000));
}
