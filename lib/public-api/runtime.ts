import { getDb, type Database } from "@/db/client";
import { getConfig, type Config } from "@/lib/config";
import { getRateLimiters, type RateLimiter } from "@/lib/rate-limit";
import { KeyCache, LastUsedRecorder } from "@/lib/keys/cache";

// The process-wide parts the pipeline uses, created once (kept on globalThis across Next.js bundles).
export interface Runtime {
  config: Config;
  db: () => Promise<Database>;
  keyCache: KeyCache;
  lastUsed: LastUsedRecorder;
  limiters: { perKey: RateLimiter; authFailure: RateLimiter };
}

const KEY = Symbol.for("public-catalog-api.runtime");
type G = typeof globalThis & { [KEY]?: Runtime };

// Builds a runtime from a configuration, on the given database or the one the configuration selects.
export function createRuntime(config: Config, database?: Database): Runtime {
  const db = database ? () => Promise.resolve(database) : () => getDb(config);
  return {
    config,
    db,
    keyCache: new KeyCache(config.KEY_CACHE_TTL_SECONDS * 1000, config.KEY_CACHE_MAX_ENTRIES),
    lastUsed: new LastUsedRecorder(db),
    limiters: getRateLimiters(config),
  };
}

// The runtime of this process.
export function getRuntime(): Runtime {
  const g = globalThis as G;
  g[KEY] ??= createRuntime(getConfig());
  return g[KEY];
}

// Replaces the runtime of this process (tests, and servers embedding the pipeline); undefined forgets it.
export function setRuntime(rt: Runtime | undefined): void {
  if (rt) (globalThis as G)[KEY] = rt;
  else delete (globalThis as G)[KEY];
}
