import { createHash, randomBytes } from "node:crypto";
import { base62 } from "../../db/schema";

// Every key starts with this prefix, so that secret scanners can match it: pca_<30 base62 secret><6 base62 checksum>.
export const KEY_PREFIX = "pca_";
const SECRET_LENGTH = 30; // 30 base62 characters ≈ 178 random bits
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = /^pca_[0-9A-Za-z]{36}$/;

function crc32(text: string): number {
  let crc = 0xffffffff;
  for (let i = 0; i < text.length; i++) {
    crc ^= text.charCodeAt(i);
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function checksum(secret: string): string {
  const n = crc32(secret);
  return base62(Uint8Array.of(n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255), CHECKSUM_LENGTH);
}

// A new API key secret (shown once, never stored).
export function generateApiKey(): string {
  const secret = base62(randomBytes(24), SECRET_LENGTH);
  return `${KEY_PREFIX}${secret}${checksum(secret)}`;
}

// True when the text has the key format and a valid checksum (no database read needed to reject it).
export function isWellFormedApiKey(key: string): boolean {
  if (!KEY_PATTERN.test(key)) return false;
  const secret = key.slice(KEY_PREFIX.length, KEY_PREFIX.length + SECRET_LENGTH);
  return key.slice(KEY_PREFIX.length + SECRET_LENGTH) === checksum(secret);
}

// The SHA-256 (hex) under which a key is stored and looked up.
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

// The short form shown in listings ("pca_AbCd1234…").
export function displayPrefix(key: string): string {
  return key.slice(0, KEY_PREFIX.length + 8);
}
