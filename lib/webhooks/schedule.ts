// The retry schedule of a webhook delivery. The worker computes each delay (retryDelaySeconds): retry n+1 waits
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

// Longest a worker holds an attempt (the POST's total timeout is far below): a worker that died mid-attempt leaves
// its delivery claimed, and another worker claims it once this lease is over.
export const ATTEMPT_EXPIRE_SECONDS = 60;

// Seconds before retry `retry` (1 for the first), `random` in [0, 1): within that retry's window of retryWindows.
export function retryDelaySeconds(
  retry: number,
  random: number,
  delay = RETRY_DELAY_SECONDS,
  max = RETRY_DELAY_MAX_SECONDS,
): number {
  const base = delay * 2 ** Math.min(16, retry - 1);
  return Math.min(max, (base * (1 + random)) / 2);
}

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

// A duration in seconds as the docs write it: "30 s", "8 min", "1 h 04", "6 h".
function duration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  const h = Math.floor(seconds / 3600);
  const m = Math.round((seconds % 3600) / 60);
  return m ? `${h} h ${String(m).padStart(2, "0")}` : `${h} h`;
}

// Each attempt and its wait after the one before, as the docs print them: "immediately", then each retry's window
// ("15 s to 30 s", or "6 h" once capped).
export function attemptWaits(): { attempt: number; wait: string }[] {
  return [
    { attempt: 1, wait: "immediately" },
    ...retryWindows().map((w) => ({
      attempt: w.retry + 1,
      wait:
        w.minSeconds === w.maxSeconds
          ? duration(w.maxSeconds)
          : `${duration(w.minSeconds)} to ${duration(w.maxSeconds)}`,
    })),
  ];
}

// The schedule in a sentence: how many attempts, over how long at the least and at the most.
export function scheduleSummary(): string {
  const windows = retryWindows();
  const hours = (s: number) => (s / 3600).toFixed(1);
  const least = windows.reduce((t, w) => t + w.minSeconds, 0);
  const most = windows.reduce((t, w) => t + w.maxSeconds, 0);
  return `${RETRY_LIMIT + 1} attempts over ${hours(least)} to ${hours(most)} hours (waits from ${RETRY_DELAY_SECONDS} s, doubling, each between half and all of its value, at most ${duration(RETRY_DELAY_MAX_SECONDS)})`;
}
