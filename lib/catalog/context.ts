import "server-only";
import type { Queryable } from "@/db/client";
import { CountCache } from "./count-cache";
import { AnchorCache } from "./page-anchors";

// What every catalog read needs: the database and the process's caches of exact totals and deep-page anchors.
// The runtime holds one of each (lib/runtime.ts); a test builds its own with catalogContext(db).
export interface CatalogContext {
  db: Queryable;
  counts: CountCache;
  anchors: AnchorCache;
}

// A catalog context on a database, with new caches unless given.
export function catalogContext(
  db: Queryable,
  caches: { counts?: CountCache; anchors?: AnchorCache } = {},
): CatalogContext {
  return { db, counts: caches.counts ?? new CountCache(), anchors: caches.anchors ?? new AnchorCache() };
}
