import { createHash } from "node:crypto";

// Conditional answers (a list, or a resource read whole): the key of an answer in the page cache, its strong ETag,
// and the bounded cache of whole answer bodies with their tags. The key is derived from the organization, its
// versions of what the answer shows (moved in the same transaction as any change the answer shows, filters or counts:
// migrations 0011 and 0015), the endpoint and the canonical parsed query: an entry is current while those versions
// are, so a polled page is a 304 or a cache hit for the price of one version read. The tag is derived from the bytes
// of the answer: it names what the client holds, not the moment it was read, so a write that leaves an answer as it
// was (a product created in another family) leaves that answer's tag valid.

// The key of an answer in the page cache. The parsed query is canonical (canonicalJson): defaults applied, keys
// sorted, one instant in UTC, so `?perPage=20&page=1` and `?page=1` share an entry. The base URL and the
// organization's slug are in it because media links are built from them. A key is its parts' JSON, hashed when long
// (a read by a hundred ids) so that the cache's keys stay small; a hash never starts with the JSON's `[`.
export function pageKey(parts: {
  orgId: string;
  orgSlug: string;
  version: string;
  path: string;
  canonicalQuery: string;
  baseUrl: string;
}): string {
  const key = JSON.stringify([
    parts.orgId,
    parts.orgSlug,
    parts.version,
    parts.path,
    parts.canonicalQuery,
    parts.baseUrl,
  ]);
  return key.length <= PAGE_KEY_MAX ? key : createHash("sha256").update(key).digest("base64url");
}
const PAGE_KEY_MAX = 512;

// The strong entity tag of an answer: a hash of its bytes, of the organization, the endpoint and the canonical
// parsed query. Equal bytes give the same tag whenever and wherever they are built (any instance, after any
// write, with the page cache off); other bytes give another. The organization and the request are in it so that
// two answers that happen to be equal (two empty pages) still have tags of their own. Opaque: it says nothing of
// the catalog's versions or of other organizations' activity.
export function answerTag(
  parts: { orgId: string; path: string; canonicalQuery: string },
  body: Uint8Array,
): string {
  const h = createHash("sha256")
    .update(JSON.stringify([parts.orgId, parts.path, parts.canonicalQuery]))
    .update("\n")
    .update(body)
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

// A cached answer: the UTF-8 bytes sent (encoded once, not on every hit) and their tag (hashed once).
export interface CachedPage {
  body: Uint8Array<ArrayBuffer>;
  tag: string;
}

// Whole answers under their key (pageKey), bounded in entries and in bytes. A key names the versions of what one
// organization's answer shows, so an entry is never stale: a change to what the answer shows moves a version, and its
// old keys are never asked again; a change to another resource leaves the entry in use. The entries are in two
// segments, each oldest first (a segmented LRU): a new entry is on probation; a hit makes it the newest of the
// protected ones, which hold at most half of either bound (past it, their oldest goes back on probation, as its
// newest). Past the bounds the oldest entry on probation goes first (a protected one when none is left). So the pages
// that a walk through the catalog asks once (a mirror's, deep pages) push out each other, not the pages clients ask
// again (page 1, a filter they poll).
export class PageCache {
  private readonly probation = new Segment();
  private readonly protected = new Segment();
  private hits = 0;
  private misses = 0;

  constructor(
    readonly maxEntries: number,
    readonly maxBytes: number,
  ) {}

  /** The answer stored under a key, made the newest protected entry. Counts a hit or a miss. */
  get(key: string): CachedPage | undefined {
    const e = this.protected.take(key) ?? this.probation.take(key);
    if (!e) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.protected.put(key, e);
    while (this.protected.size > this.maxEntries / 2 || this.protected.bytes > this.maxBytes / 2) {
      const [k, oldest] = this.protected.oldest()!;
      this.protected.take(k);
      this.probation.put(k, oldest);
    }
    return e;
  }

  /** Stores an answer under its key, on probation, then drops the oldest entries past either bound. A body larger
   * than a tenth of the byte bound is not stored (it would push out many others). */
  set(key: string, page: CachedPage): void {
    if (this.maxEntries <= 0) return;
    if (page.body.byteLength > this.maxBytes / 10) return;
    this.protected.take(key);
    this.probation.take(key);
    this.probation.put(key, page);
    while (this.size > this.maxEntries || this.bytes > this.maxBytes) {
      const from = this.probation.size > 0 ? this.probation : this.protected;
      from.take(from.oldest()![0]);
    }
  }

  stats(): PageCacheStats {
    return { hits: this.hits, misses: this.misses, entries: this.size, bytes: this.bytes };
  }

  private get size(): number {
    return this.probation.size + this.protected.size;
  }

  private get bytes(): number {
    return this.probation.bytes + this.protected.bytes;
  }
}

// A segment of the page cache: entries oldest first, and their bytes.
class Segment {
  private readonly entries = new Map<string, CachedPage>();
  bytes = 0;

  get size(): number {
    return this.entries.size;
  }

  /** Removes an entry and gives it, if there. */
  take(key: string): CachedPage | undefined {
    const e = this.entries.get(key);
    if (e) {
      this.entries.delete(key);
      this.bytes -= e.body.byteLength;
    }
    return e;
  }

  /** Adds an entry as the newest (the key is not in the segment). */
  put(key: string, page: CachedPage): void {
    this.entries.set(key, page);
    this.bytes += page.body.byteLength;
  }

  oldest(): [string, CachedPage] | undefined {
    return this.entries.entries().next().value;
  }
}
