// The schema's facts that code shares: id prefixes and id generation, the closed value sets that the migrations'
// check constraints define, and how its timestamps are sent. The catalog, the key store and the seed import them
// from here (db/ imports nothing from lib/).
import { createHash, randomBytes } from "node:crypto";

// The prefix of each table's opaque ids ("prd_3kT9…"); the changelog's entries are written by its migrations.
export const ID_PREFIX = {
  organization: "org",
  channel: "chn",
  attribute: "att",
  family: "fam",
  category: "cat",
  product: "prd",
  media: "med",
  user: "usr",
  apiKey: "key",
  changelog: "chg",
  auditEvent: "aud",
  invitation: "inv",
  consoleSession: "ses",
} as const;
export type IdPrefix = (typeof ID_PREFIX)[keyof typeof ID_PREFIX];

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
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${base62(randomBytes(12), 16)}`;
}

// A deterministic opaque id derived from a seed string (same seed, same id).
export function stableId(prefix: IdPrefix, seed: string): string {
  return `${prefix}_${base62(createHash("sha256").update(seed).digest().subarray(0, 12), 16)}`;
}

// Attribute types (attributes.type; TEXT and NUMBER are the contract's known values).
export const ATTRIBUTE_TYPES = [
  "TEXT",
  "TEXTAREA",
  "NUMBER",
  "PRICE",
  "BOOLEAN",
  "DATE",
  "SELECT",
  "MULTI_SELECT",
  "MEDIA",
] as const;
export type AttributeType = (typeof ATTRIBUTE_TYPES)[number];

// Media types (media.type; IMAGE and VIDEO are the contract's known values).
export const MEDIA_TYPES = ["IMAGE", "VIDEO", "DOCUMENT"] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

// Product statuses (products.status); `draft` is the status of new products.
export const PRODUCT_STATUSES = ["draft", "published", "archived"] as const;
export type ProductStatus = (typeof PRODUCT_STATUSES)[number];

// A timestamp column as the schema's timestamps are sent: ISO 8601 in UTC with milliseconds
// ("2025-03-03T08:00:00.000Z"), formatted by the database so that no driver's date parsing is involved.
export function isoSql(column: string): string {
  return `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}
