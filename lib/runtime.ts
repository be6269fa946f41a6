// The one object that holds the process's state, composed of: the configuration, the database (opened on first use),
// the catalog's context (its caches of exact totals and deep-page anchors, version reads and the change feed's
// signals), the rate limiters, the key cache with its broadcast of key changes and the "last used" writer, usage and
// the request log counted in memory until their next batch (lib/usage), the background work (lib/background), and
// each area's part of the state, declared in that area's folder (definePart, read with rt.part).
// One global holds it (Next.js bundles each route apart, so a module-level variable would be one per bundle); tests and
// servers build their own and swap it whole with setRuntime. The configuration itself is also parsed once per module
// copy by getConfig (lib/config.ts says why that one stays there).
import { BACKGROUND_STATEMENT_TIMEOUT_MS, openDatabase, type Database } from "@/db/client";
import { createBackground, type Background } from "@/lib/background/background";
import { ChangeSignals } from "@/lib/catalog/feed/change-signals";
import type { CatalogContext } from "@/lib/catalog/context";
import { CountCache } from "@/lib/catalog/list/count-cache";
import { VersionReads } from "@/lib/catalog/list/version-reads";
import { AnchorCache } from "@/lib/catalog/list/page-anchors";
import { ProductMemory } from "@/lib/catalog/memory/product-memory";
import { getConfig, type Config } from "@/lib/config";
import { KeyBroadcast } from "@/lib/keys/broadcast";
import { KeyCache, LastUsedRecorder } from "@/lib/keys/cache";
import { createRateLimiters, type RateLimiters } from "@/lib/rate-limit/limiters";
import { UsageRecorder } from "@/lib/usage/recorder";
import { RequestLog } from "@/lib/usage/request-log";
import type { WebhookEngineOptions } from "@/lib/webhooks/engine";

// One value built on first use and kept, empty until then; whoever reads it rebuilds it when what it was built from
// (a key it keeps beside the value) has changed.
export interface CacheSlot<T> {
  value?: T;
}

// A part of the process's state owned by one area (the API, the console, the portal): declared in that area's folder,
// built from the runtime on first use (rt.part), kept for the runtime's life and closed with it, before the database.
// The runtime knows no area: an area's module imports the runtime, never the other way. Parts are kept by name, not
// by object: npm start's server bundle and Next.js' compilation each hold a copy of an area's module, and both must
// reach the one part of the one runtime.
export interface RuntimePart<T> {
  readonly name: string;
  readonly create: (rt: Runtime) => T;
  readonly close?: (value: T) => Promise<void>;
}

// Declares an area's part of the runtime (one constant per area, e.g. `export const consoleState = definePart(...)`).
export function definePart<T>(
  name: string,
  create: (rt: Runtime) => T,
  close?: (value: T) => Promise<void>,
): RuntimePart<T> {
  return { name, create, close };
}

// The process's state: what every area shares, and each area's part.
export interface Runtime {
  /** An area's part of the state, built on first use and kept (one Map lookup after that). */
  part<T>(p: RuntimePart<T>): T;
  readonly config: Config;
  /** The database, opened on first use (a failed open is retried on the next call). */
  db(): Promise<Database>;
  /** The database with the catalog's caches and the change feed's signals, as every catalog read takes it. */
  catalog(): Promise<CatalogContext>;
  /**
   * The background work (retentions, documents' refresher, webhooks' engine): the process's runtime (getRuntime)
   * starts it when it opens the database; a runtime built by a test or a tool runs a part only when asked.
   */
  readonly background: Background;
  readonly limiters: RateLimiters;
  readonly keyCache: KeyCache;
  /**
   * Key changes heard from the database (migration 0024), each making keyCache forget its key: the process's runtime
   * listens once it has opened the database; a test's runtime, when asked (start).
   */
  readonly keyBroadcast: KeyBroadcast;
  readonly lastUsed: LastUsedRecorder;
  /** Usage per key and hour, counted in memory and written in batches (lib/usage); undefined when USAGE_ENABLED=false. */
  readonly usage?: UsageRecorder;
  /** The request log's queue and its writer (lib/usage); undefined when REQUEST_LOG_ENABLED=false. */
  readonly requestLog?: RequestLog;
  /** Releases what this runtime opened: the limiters' connection and, unless it was given, the database. */
  close(): Promise<void>;
}

// Builds a runtime from a configuration, on the given database (the caller keeps it) or on the one the
// configuration selects (opened on first use, closed by close()). `background`: the background work and the key
// broadcast start when the database is first opened (the process's runtime); else they run only when asked.
// `webhooks`: the engine's tunables (a test's instance resolves its receiver's name its own way).
export function createRuntime(
  config: Config,
  database?: Database,
  opts: { background?: boolean; webhooks?: WebhookEngineOptions } = {},
): Runtime {
  let opening: Promise<Database> | undefined = database ? Promise.resolve(database) : undefined;
  const db = () => {
    opening ??= openDatabase(config).then(
      (opened) => {
        if (opts.background) {
          void keyBroadcast.start(opened);
          background.start(opened);
        }
        return opened;
      },
      (err: unknown) => {
        opening = undefined;
        throw err;
      },
    );
    return opening;
  };
  const counts = new CountCache();
  const anchors = new AnchorCache();
  const versions = new VersionReads();
  const memory = new ProductMemory(db, {
    maxProducts: config.CATALOG_MEMORY_MAX_PRODUCTS,
    minProducts: config.CATALOG_MEMORY_MIN_PRODUCTS,
    log: (m) => console.warn(m),
  });
  const limiters = createRateLimiters(config);
  let catalog: CatalogContext | undefined;
  const keyCache = new KeyCache(config.KEY_CACHE_TTL_SECONDS * 1000, config.KEY_CACHE_MAX_ENTRIES);
  const keyBroadcast = new KeyBroadcast(keyCache);
  // Usage's writes get the background bound, not a request's (a flush of a large batch may take longer).
  const writes = async () => (await db()).withStatementTimeout(BACKGROUND_STATEMENT_TIMEOUT_MS);
  const usage = config.USAGE_ENABLED
    ? new UsageRecorder(writes, {
        flushEveryMs: config.USAGE_FLUSH_MS,
        maxPending: config.USAGE_MAX_PENDING,
      })
    : undefined;
  const requestLog = config.REQUEST_LOG_ENABLED
    ? new RequestLog(writes, {
        flushEveryMs: config.USAGE_FLUSH_MS,
        maxPerSecond: config.REQUEST_LOG_MAX_PER_SECOND,
        queueMax: config.REQUEST_LOG_QUEUE_MAX,
        maxPerOrg: config.REQUEST_LOG_MAX_PER_ORG,
      })
    : undefined;
  const ctx = async (): Promise<CatalogContext> => {
    const database = await db();
    if (catalog?.db !== database) {
      void catalog?.signals?.close();
      // Counts run with their own bound (DB_COUNT_TIMEOUT_MS); a request waits for one as long as for a
      // connection and a statement together, then answers 503 while the count goes on and is remembered.
      catalog = {
        db: database,
        counting: database.withStatementTimeout(config.DB_COUNT_TIMEOUT_MS),
        countWaitMs: config.DB_CONNECT_TIMEOUT_MS + config.DB_STATEMENT_TIMEOUT_MS,
        counts,
        anchors,
        versions,
        memory,
        // Subscribes (LISTEN) on the first request that waits, not before.
        signals: new ChangeSignals(database),
      };
    }
    return catalog;
  };
  const background = createBackground(
    { config, db, catalog: () => ctx(), counting: usage !== undefined || requestLog !== undefined },
    opts.webhooks,
  );
  // Each area's part, in the order they were built (closed in reverse).
  const parts = new Map<string, { p: RuntimePart<unknown>; value: unknown }>();
  const rt: Runtime = {
    part<T>(p: RuntimePart<T>): T {
      const kept = parts.get(p.name);
      if (kept) return kept.value as T;
      const value = p.create(rt);
      parts.set(p.name, { p: p as RuntimePart<unknown>, value });
      return value;
    },
    config,
    db,
    // Built once per database handle, not per request (the hot path reads it on every list).
    catalog: ctx,
    background,
    limiters,
    keyCache,
    keyBroadcast,
    lastUsed: new LastUsedRecorder(db),
    usage,
    requestLog,
    close: async () => {
      for (const { p, value } of [...parts.values()].reverse()) await p.close?.(value);
      parts.clear();
      await background.stop();
      // What was counted and queued is written before the database goes.
      await usage?.close();
      await requestLog?.close();
      await keyBroadcast.stop();
      memory.close();
      await catalog?.signals?.close();
      await limiters.close();
      if (database) return;
      // A database it opened is closed; one it was given stays its own (and the caller's): a test that swaps this
      // runtime back in after close() keeps reading the database it built it on, never the configured one.
      if (opening) await (await opening.catch(() => undefined))?.close();
      opening = undefined;
    },
  };
  return rt;
}

const KEY = Symbol.for("public-catalog-api.runtime");
type G = typeof globalThis & { [KEY]?: Runtime };

// The runtime of this process, built from the environment's configuration on first use; its background work runs
// once it has opened the database (not in a build that only renders the portal's pages).
export function getRuntime(): Runtime {
  const g = globalThis as G;
  g[KEY] ??= createRuntime(getConfig(), undefined, { background: true });
  return g[KEY];
}

// Replaces the runtime of this process (tests, servers embedding the pipeline); undefined forgets it. The runtime
// replaced is not closed: whoever built it closes it.
export function setRuntime(rt: Runtime | undefined): void {
  if (rt) (globalThis as G)[KEY] = rt;
  else delete (globalThis as G)[KEY];
}

// Closes the runtime of this process if one was built (a server's exit), and forgets it.
export async function closeRuntime(): Promise<void> {
  const g = globalThis as G;
  const rt = g[KEY];
  delete g[KEY];
  await rt?.close();
}
