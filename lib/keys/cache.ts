import type { Database } from "@/db/client";
import { hashApiKey } from "./format";
import { BoundedMap } from "@/lib/bounded-map";

// What the pipeline knows about a stored key.
export interface KeyRecord {
  id: string;
  orgId: string;
  orgSlug: string;
  /** The key's short display form (api_keys.prefix): what the request log shows, never the key. */
  prefix: string;
  scopes: ReadonlySet<string>;
  expiresAt: number | null;
  revokedAt: number | null;
}

interface Entry {
  record: KeyRecord | null; // null: no such key (a cached miss)
  until: number;
}

// A bounded in-process cache of key lookups (hits and misses), so that the database stays out of the hot path.
export class KeyCache {
  private readonly entries: BoundedMap<string, Entry>;
  private readonly loading = new Map<string, Promise<KeyRecord | null>>();
  constructor(
    private readonly ttlMs: number,
    maxEntries: number,
  ) {
    this.entries = new BoundedMap(maxEntries);
  }

  /** The cached lookup for a key hash: a record, null (known miss) or undefined (not cached or stale). */
  get(hash: string, now: number): KeyRecord | null | undefined {
    const e = this.entries.get(hash);
    if (!e) return undefined;
    if (e.until <= now) {
      this.entries.delete(hash);
      return undefined;
    }
    return e.record;
  }

  set(hash: string, record: KeyRecord | null, now: number): void {
    if (this.ttlMs <= 0) return;
    this.entries.set(hash, { record, until: now + this.ttlMs });
  }

  /** Runs one database read for all the requests that miss the same key at the same time. */
  loadOnce(hash: string, load: () => Promise<KeyRecord | null>): Promise<KeyRecord | null> {
    const running = this.loading.get(hash);
    if (running) return running;
    const p: Promise<KeyRecord | null> = load().finally(() => {
      if (this.loading.get(hash) === p) this.loading.delete(hash);
    });
    this.loading.set(hash, p);
    return p;
  }

  /** Bumped by every forget: reads begun before it are not cached. */
  generation = 0;

  /** Forgets a key at once (revocation on this instance), by id. */
  forgetKeyId(keyId: string): void {
    this.generation++;
    this.loading.clear();
    for (const [hash, e] of this.entries) if (e.record?.id === keyId) this.entries.delete(hash);
  }

  /** Forgets every key (the key changes' notifications were not heard for a while). */
  clear(): void {
    this.generation++;
    this.loading.clear();
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}

// Reads a key by its hash from the database, with its organization.
export async function findKeyByHash(db: Database, hash: string): Promise<KeyRecord | null> {
  const rows = await db.query<{
    id: string;
    org_id: string;
    org_slug: string;
    prefix: string;
    scopes: string[];
    expires_ms: number | null;
    revoked_ms: number | null;
  }>(
    `select k.id, k.org_id, o.slug as org_slug, k.prefix, k.scopes,
            (extract(epoch from k.expires_at) * 1000)::float8 as expires_ms,
            (extract(epoch from k.revoked_at) * 1000)::float8 as revoked_ms
       from api_keys k join organizations o on o.id = k.org_id
      where k.key_hash = $1`,
    [hash],
  );
  const r = rows[0];
  if (!r) return null;
  return {
    id: r.id,
    orgId: r.org_id,
    orgSlug: r.org_slug,
    prefix: r.prefix,
    scopes: new Set(r.scopes),
    expiresAt: r.expires_ms === null ? null : Number(r.expires_ms),
    revokedAt: r.revoked_ms === null ? null : Number(r.revoked_ms),
  };
}

// Looks a well-formed key up through the cache.
export async function lookupKey(
  db: Database,
  cache: KeyCache,
  key: string,
  now = Date.now(),
  beforeDbRead?: () => void,
): Promise<KeyRecord | null> {
  const hash = hashApiKey(key);
  const cached = cache.get(hash, now);
  if (cached !== undefined) return cached;
  beforeDbRead?.();
  return cache.loadOnce(hash, async () => {
    const generation = cache.generation;
    const record = await findKeyByHash(db, hash);
    // A key forgotten (revoked here) while it was being read is not cached from the read that began before.
    if (generation === cache.generation) cache.set(hash, record, now);
    return record;
  });
}

// Records "last used" in memory and writes it in batches, never once per request.
export class LastUsedRecorder {
  private pending = new Map<string, number>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly getDb: () => Promise<Database>,
    private readonly flushEveryMs = 15_000,
  ) {}

  touch(keyId: string, now: number): void {
    this.pending.set(keyId, now);
    if (!this.timer) {
      this.timer = setInterval(() => void this.flush().catch(() => undefined), this.flushEveryMs);
      this.timer.unref?.();
    }
  }

  /** Writes every pending "last used" in one statement. */
  async flush(): Promise<number> {
    if (this.pending.size === 0) return 0;
    const batch = this.pending;
    this.pending = new Map();
    const db = await this.getDb();
    try {
      await db.query(
        `update api_keys k
            set last_used_at = to_timestamp(v.ms / 1000.0)
           from (select unnest($1::text[]) as id, unnest($2::float8[]) as ms) v
          where k.id = v.id and (k.last_used_at is null or k.last_used_at < to_timestamp(v.ms / 1000.0))`,
        [[...batch.keys()], [...batch.values()]],
      );
    } catch (err) {
      // Keep what could not be written for the next round (newer touches win).
      for (const [id, ms] of batch) if (!this.pending.has(id)) this.pending.set(id, ms);
      throw err;
    }
    return batch.size;
  }
}
