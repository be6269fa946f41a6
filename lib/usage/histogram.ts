// The latency histogram of usage: fixed, log-spaced buckets shared by every key and hour, so that histograms merge by
// adding their counts (in memory, in a flush's upsert, in SQL over hours and keys) and p50/p95 are read from the sum.
// Bucket 0 holds durations under 0.5 ms; bucket i (1 ≤ i < 63) holds [0.5·2^((i-1)/4), 0.5·2^(i/4)) ms; the last
// holds everything from 0.5·2^(62/4) ≈ 23.2 s. A percentile is the geometric middle of its bucket: within 2^(1/8)
// (±9 %) of the exact value (the nearest rank of a plain sort), or under 0.5 ms for bucket 0.

// Buckets per histogram (the length of usage_hours.latency).
export const LATENCY_BUCKETS = 64;

const FIRST_UPPER_MS = 0.5;
const STEPS_PER_DOUBLING = 4;

// The bucket of a duration in milliseconds.
export function bucketOf(ms: number): number {
  if (!(ms >= FIRST_UPPER_MS)) return 0; // NaN and negatives too
  const i = Math.floor(Math.log2(ms / FIRST_UPPER_MS) * STEPS_PER_DOUBLING) + 1;
  return i >= LATENCY_BUCKETS ? LATENCY_BUCKETS - 1 : i;
}

// The lower and upper bounds of a bucket, in milliseconds (the last one's upper bound is Infinity).
export function bucketBounds(i: number): [number, number] {
  if (i <= 0) return [0, FIRST_UPPER_MS];
  const lower = FIRST_UPPER_MS * 2 ** ((i - 1) / STEPS_PER_DOUBLING);
  const upper = i >= LATENCY_BUCKETS - 1 ? Infinity : FIRST_UPPER_MS * 2 ** (i / STEPS_PER_DOUBLING);
  return [lower, upper];
}

// A new empty histogram.
export function emptyHistogram(): Uint32Array {
  return new Uint32Array(LATENCY_BUCKETS);
}

// Adds `from` into `into` (the merge of two histograms), and returns `into`.
export function mergeInto<T extends { [i: number]: number; length: number }>(
  into: T,
  from: ArrayLike<number>,
): T {
  for (let i = 0; i < LATENCY_BUCKETS; i++) into[i] = (into[i] ?? 0) + Number(from[i] ?? 0);
  return into;
}

// The p-th percentile (0 < p ≤ 1) of a histogram by nearest rank, in milliseconds: the geometric middle of the bucket
// that holds the ceil(p·n)-th duration (bucket 0: 0.25 ms; the last bucket: its lower bound); null when empty.
export function percentile(hist: ArrayLike<number>, p: number): number | null {
  let total = 0;
  for (let i = 0; i < LATENCY_BUCKETS; i++) total += Number(hist[i] ?? 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(p * total));
  let seen = 0;
  for (let i = 0; i < LATENCY_BUCKETS; i++) {
    seen += Number(hist[i] ?? 0);
    if (seen >= rank) {
      const [lower, upper] = bucketBounds(i);
      if (i === 0) return upper / 2;
      return upper === Infinity ? lower : Math.sqrt(lower * upper);
    }
  }
  return null;
}
