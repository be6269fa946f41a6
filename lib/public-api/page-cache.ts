import { createHash } from "node:crypto";

// Conditional list answers (issue 15): the strong ETag of a list answer and the bounded cache of whole answer bodies
// under it. A tag is derived from the organization, its version of the resource listed (bumped in the same
// transaction as any change that list shows, filters or counts, and by nothing else: migration 0011), the endpoint
// and the canonical parsed query, so it changes exactly when the answer may: a polled page is a 304 or a cache hit
// for the price of one version read, and a product created leaves the families' tags and cached pages as they were.

// Bumped when a list answer's shape changes without a catalog change (a new field): old tags then match nothing.
const TAG_SCHEMA = "1";

// The strong entity tag of a list answer. The parsed query is canonical: defaults applied, keys sorted, one instant
// in UTC, so `?perPage=20&page=1` and `?page=1` share a tag. The base URL and the organization's slug are in it
// because media links are built from them. Opaque (a hash): the global version sequence says nothing of other
// organizations' activity.
export function listTag(parts: {
  orgId: string;
  orgSlug: string;
  version: string;
  path: string;
  query: unknown;
  baseUrl: string;
}): string {
  const h = createHash("sha256")
    .update(
      JSON.stringify([
        TAG_SCHEMA,
        parts.orgId,
        parts.orgSlug,
        parts.version,
        parts.path,
        canonicalJson(parts.query),
        parts.baseUrl,
      ]),
    )
    .digest("base64url");
  return `"${h.slice(0, 32)}"`;
}

// JSON of a value with every object's keys sorted (arrays keep their order: a sort's order is its meaning).
export function canonicalJson(v: unknown): string {
  return JSON.stringify(v, (_k, value: unknown) =>
    value && typeof value === "object" && !Array.isArray(value)
      ? Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((k) => [k, (value as Record<string, unknown>)[k]]),
        )
      : value,
  );
}

// Whether an If-None-Match header matches a tag: `*`, or one of its comma-separated tags (weak comparison, as
// RFC 9110 requires for If-None-Match: a `W/` prefix is ignored).
export function noneMatchHits(header: string | null, tag: string): boolean {
  if (header === null) return false;
  for (const part of header.split(",")) {
    const t = part.trim();
    if (t === "*" || (t.startsWith("W/") ? t.slice(2) : t) === tag) return true;
  }
  return false;
}

// What the page cache has done since the process started.
export interface PageCacheStats {
  hits: number;
  misses: number;
  entries: number;
  bytes: number;
}

// Whole list answer bodies under their tag, as the UTF-8 bytes sent (encoded once, not on every hit), bounded in
// entries and in bytes. The oldest entries go first; a hit makes an entry the newest. A tag names one version of one
// organization's list, so an entry is never stale: a change to what the list shows moves its version, and its old
// tags are never asked again; a change to another list leaves the entry in use.
export class PageCache {
  private readonly entries = new Map<string, Uint8Array<ArrayBuffer>>();
  private bytes = 0;
  private hits = 0;
  private misses = 0;

  constructor(
    readonly maxEntries: number,
    readonly maxBytes: number,
  ) {}

  /** The body stored under a tag, made the newest entry. Counts a hit or a miss. */
  get(tag: string): Uint8Array<ArrayBuffer> | undefined {
    const e = this.entries.get(tag);
    if (!e) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.entries.delete(tag);
    this.entries.set(tag, e);
    return e;
  }

  /** Stores a body under its tag, then drops the oldest entries past either bound. A body larger than a tenth of
   * the byte bound is not stored (it would push out many others). */
  set(tag: string, body: Uint8Array<ArrayBuffer>): void {
    if (this.maxEntries <= 0) return;
    if (body.byteLength > this.maxBytes / 10) return;
    const old = this.entries.get(tag);
    if (old) {
      this.bytes -= old.byteLength;
      this.entries.delete(tag);
    }
    this.entries.set(tag, body);
    this.bytes += body.byteLength;
    for (const [k, e] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= e.byteLength;
    }
  }

  stats(): PageCacheStats {
    return { hits: this.hits, misses: this.misses, entries: this.entries.size, bytes: this.bytes };
  }
}
