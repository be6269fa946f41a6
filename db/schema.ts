import { createHash, randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

// Encodes bytes as base62 (fixed length for a given byte count).
export function base62(bytes: Uint8Array, length: number): string {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let out = "";
  for (let i = 0; i < length; i++) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out;
}

// A new random opaque id such as "prd_3kT9…" (16 base62 characters, ~95 bits).
export function newId(prefix: string): string {
  return `${prefix}_${base62(randomBytes(12), 16)}`;
}

// A deterministic opaque id derived from a seed string (same seed, same id).
export function stableId(prefix: string, seed: string): string {
  return `${prefix}_${base62(createHash("sha256").update(seed).digest().subarray(0, 12), 16)}`;
}
