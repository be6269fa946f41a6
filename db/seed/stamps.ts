// The generator's clock: every timestamp it writes is derived from a position and a key, never from the clock, so
// that the same seed writes the same dates.
import { createHash } from "node:crypto";

export const BASE_MS = Date.UTC(2025, 2, 3, 8, 0, 0, 0); // 2025-03-03T08:00:00.000Z
export const PRODUCT_SPREAD_MS = 300 * 86_400_000; // products are created over 300 days

function hashInt(s: string): number {
  return createHash("sha256").update(s).digest().readUInt32BE(0);
}

// A timestamp with milliseconds, derived from a position and a key (never from the clock).
export function stamp(offsetMs: number, key: string): string {
  return new Date(BASE_MS + offsetMs + (hashInt(key) % 1000)).toISOString();
}
