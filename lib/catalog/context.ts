import "server-only";
import type { LocalSettings, Queryable } from "@/db/client";
import type { ChangeSignals } from "@/lib/catalog/feed/change-signals";
import { CountCache } from "@/lib/catalog/list/count-cache";
import { VersionReads } from "@/lib/catalog/list/version-reads";
import { AnchorCache } from "@/lib/catalog/list/page-anchors";
import type { ProductMemory } from "@/lib/catalog/memory/product-memory";

// What every catalog read needs: the database and the process's caches of exact totals and deep-page anchors.
// The runtime holds one of each (lib/runtime.ts); a test builds its own with catalogContext(db).
export interface CatalogContext {
  db: Queryable;
  /** Where exact counts run: shared and remembered work, with a longer bound than a request's statements. */
  counting: Queryable;
  /** How long a request waits for a count it shares (the count goes on and is remembered); none: no bound. */
  countWaitMs?: number;
  counts: CountCache;
  anchors: AnchorCache;
  /** Version reads (every resource of an organization in one), shared by the requests that ask at the same moment. */
  versions: VersionReads;
  /** The biggest organizations' products in memory (the runtime's; none: every list reads and counts with SQL). */
  memory?: ProductMemory;
  /** Wakes the change feed's waiting requests (the runtime's; none: a request does not wait). */
  signals?: ChangeSignals;
  /** Row security's settings that `db` and `counting` run under (lib/catalog/row-security.ts); a transaction opened
   * apart (an export's) sets them itself. None: the connecting role's reads. */
  rowSecurity?: LocalSettings;
}

// A catalog context on a database (counts on the same handle, no wait bound), with new caches unless given.
export function catalogContext(
  db: Queryable,
  parts: Partial<Omit<CatalogContext, "db">> = {},
): CatalogContext {
  return {
    db,
    counting: parts.counting ?? db,
    countWaitMs: parts.countWaitMs,
    counts: parts.counts ?? new CountCache(),
    anchors: parts.anchors ?? new AnchorCache(),
    versions: parts.versions ?? new VersionReads(),
    signals: parts.signals,
    memory: parts.memory,
  };
}
