// The retry schedule of a webhook delivery (issue 25). pg-boss computes each delay (retryBackoff): attempt n+1 waits
// min(RETRY_DELAY_MAX, RETRY_DELAY · 2^n · (1 + random) / 2), i.e. between half and all of RETRY_DELAY · 2^n, capped:
// exponential with jitter. With 30 s, a 6 h cap and 14 retries the last attempt comes at least 26.5 h after the
// first (95,505 s at the least, 117,090 s at the most): "at least 24 h" with the jitter at its lowest. The table
// below (retryWindows) is the one the docs print.

// Seconds before the first retry (the base of the exponential backoff).
export const RETRY_DELAY_SECONDS = 30;

// Longest wait between two attempts.
export const RETRY_DELAY_MAX_SECONDS = 6 * 60 * 60;

// Retries after the first attempt (15 attempts in all).
export const RETRY_LIMIT = 14;

// Longest an attempt may hold its job (the POST's total timeout is far below): a worker that died mid-attempt
// leaves its job active, and pg-boss's supervisor hands it to another attempt after this.
export const ATTEMPT_EXPIRE_SECONDS = 60;

// The window of each retry's delay: [shortest, longest] seconds after the attempt before it.
export function retryWindows(
  delay = RETRY_DELAY_SECONDS,
  max = RETRY_DELAY_MAX_SECONDS,
  limit = RETRY_LIMIT,
): { retry: number; minSeconds: number; maxSeconds: number }[] {
  return Array.from({ length: limit }, (_, n) => {
    const p = 2 ** Math.min(16, n);
    return { retry: n + 1, minSeconds: Math.min(max, (delay * p) / 2), maxSeconds: Math.min(max, delay * p) };
  });
}
