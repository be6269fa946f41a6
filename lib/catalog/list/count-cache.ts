import "server-only";
import type { Queryable } from "@/db/client";
import { BoundedMap } from "@/lib/bounded-map";
import { CountPendingError } from "@/lib/catalog/catalog-errors";
import { FEED_HEAD_COLUMN } from "@/lib/catalog/memory/product-memory";
import type { Statement } from "@/lib/catalog/sql";

interface Entry {
  version: string;
  total: number;
}

// A total and the version of its resource it was counted at.
export interface Counted {
  total: number;
  version: string;
}

// Exact list totals remembered per (organization, filter) under the version of their resource they were counted at.
// A total is reused only when the organization's current version of that resource (bumped by triggers in the same
// transaction as every change the list shows or counts, migration 0011) is still the one it was counted with, so it
// stays exact.
export class CountCache {
  private readonly entries: BoundedMap<string, Entry>;
  private readonly running = new Map<string, Promise<Counted>>();
  constructor(maxEntries = 10_000) {
    this.entries = new BoundedMap(maxEntries);
  }

  /**
   * Runs a count once for all the requests that need it at the same time: a cold list under load would otherwise
   * start one full count per request (each one as long as the first) and exhaust the pool. The result is remembered.
   */
  countOnce(key: string, count: () => Promise<Counted>): Promise<Counted> {
    const running = this.running.get(key);
    if (running) return running;
    const p: Promise<Counted> = count()
      .then((c) => {
        this.set(key, c.version, c.total);
        return c;
      })
      .finally(() => {
        if (this.running.get(key) === p) this.running.delete(key);
      });
    this.running.set(key, p);
    return p;
  }

  /** The remembered total of a count key, when it was counted at this version. */
  get(key: string, version: string): number | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.version !== version) {
      this.entries.delete(key);
      return undefined;
    }
    // Refresh recency (Maps iterate in insertion order; the oldest are dropped first).
    this.entries.touch(key);
    return e.total;
  }

  /**
   * The last total remembered for a key, at whatever version it was counted (no recency refresh): an estimate,
   * for choices that do not change a response (such as a statement's plan), never for a response's total.
   */
  peek(key: string): number | undefined {
    return this.entries.get(key)?.total;
  }

  /** Whether a total is remembered for this key (at any version). */
  has(key: string): boolean {
    return this.entries.has(key);
  }

  set(key: string, version: string, total: number): void {
    this.entries.set(key, { version, total });
  }

  clear(): void {
    this.entries.clear();
    this.running.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}

// The lists of the catalog, each with its own version per organization (migration 0011): a version moves when
// something that list's answers show, filter or count changes, and only then (a product created leaves the families'
// version as it was). `details` is no list: it moves with what only the preview's details show (a product's values
// and media links, attributes' options: migration 0015).
export const CATALOG_RESOURCES = [
  "products",
  "families",
  "attributes",
  "categories",
  "media",
  "channels",
  "details",
] as const;
export type CatalogResource = (typeof CATALOG_RESOURCES)[number];

// What a version read saw, in one snapshot: the organization's versions of the resources asked (joined by dots, '0'
// for one before its first change) and its change feed's head.
export interface VersionsRead {
  version: string;
  feedHead: string;
}

// SQL of the organization's current versions, every resource in one object (resource → version as text; a resource
// before its first change has none), and of the feed's head: one range of the primary key, whatever the resources a
// request shows, so that one read serves the requests of all of them.
const ORG_VERSIONS_SQL = `select coalesce((select json_object_agg(resource, version::text) from catalog_resource_versions
    where org_id = $1), '{}'::json) as versions, ${FEED_HEAD_COLUMN}`;

// What a read of an organization's versions saw, in one snapshot.
export interface OrgVersions {
  versions: Readonly<Record<string, string>>;
  feedHead: string;
}

// The organization's current versions of every resource and its feed's head, in one statement.
export async function orgVersions(db: Queryable, orgId: string): Promise<OrgVersions> {
  const [row] = await db.query<{ versions: Record<string, string>; feed_head: string }>(ORG_VERSIONS_SQL, [
    orgId,
  ]);
  return { versions: row?.versions ?? {}, feedHead: String(row?.feed_head ?? "0") };
}

// SQL of several organizations' current versions and feed heads (as ORG_VERSIONS_SQL's, a row each, in one snapshot).
const ORGS_VERSIONS_SQL = `select o.org_id,
    coalesce((select json_object_agg(v.resource, v.version::text) from catalog_resource_versions v
      where v.org_id = o.org_id), '{}'::json) as versions,
    coalesce((select h.head from catalog_change_heads h where h.org_id = o.org_id), 0)::text as feed_head
  from unnest($1::text[]) as o(org_id)`;

// The current versions of every resource and the feed's head of each organization named, in one statement.
export async function orgsVersions(
  db: Queryable,
  orgIds: readonly string[],
): Promise<Map<string, OrgVersions>> {
  const rows = await db.query<{ org_id: string; versions: Record<string, string>; feed_head: string }>(
    ORGS_VERSIONS_SQL,
    [orgIds],
  );
  return new Map(rows.map((r) => [r.org_id, { versions: r.versions, feedHead: String(r.feed_head) }]));
}

// The versions of the resources asked, in their order (what a list's or a detail's page-cache entries are keyed by),
// from a read of all of them.
export function versionsOf(read: OrgVersions, resources: readonly CatalogResource[]): VersionsRead {
  return {
    version: resources.map((r) => read.versions[r] ?? "0").join("."),
    feedHead: read.feedHead,
  };
}

// The organization's current versions of the resources and its feed's head, in one statement.
export async function catalogVersions(
  db: Queryable,
  orgId: string,
  resources: readonly CatalogResource[],
): Promise<VersionsRead> {
  return versionsOf(await orgVersions(db, orgId), resources);
}

// SQL of the resource's version as a column of another statement on the organization in $1 (one snapshot with its
// rows). The resource is one of CATALOG_RESOURCES, written as a literal (no parameter to renumber).
export function versionColumn(resource: CatalogResource, as = "catalog_version"): string {
  return `coalesce((select version::text from catalog_resource_versions where org_id = $1 and resource = '${resource}'), '0') as ${as}`;
}

// Runs a count statement and reads the resource's version in the same statement (one snapshot), so the pair is
// consistent.
export async function countWithVersion(
  db: Queryable,
  resource: CatalogResource,
  count: Statement,
): Promise<Counted> {
  const rows = await db.query<{ total: number; version: string }>(
    `with c as (${count.sql}) select (select total from c) as total, ${versionColumn(resource, "version")}`,
    count.params,
  );
  return { total: Number(rows[0]?.total ?? 0), version: String(rows[0]?.version ?? "0") };
}

// What an exact total is counted with: a catalog context's database, counting handle, wait bound and cache (the
// catalog's context has them all, lib/catalog/context.ts).
export interface CountingContext {
  db: Queryable;
  counting: Queryable;
  countWaitMs?: number;
  counts: CountCache;
}

// The exact total of a count statement of a resource's list and the resource's version it holds for: from the cache
// when that version has not moved since, else counted (once for all concurrent requests, on the context's `counting`
// handle, and remembered). `params[0]` must be the organization id. With `version` (the version the caller's page
// rows were read at), the total is of that same version: a count shared with a request that began before a change is
// not reused after it. A caller waits at most `countWaitMs` for a shared count (CountPendingError), which goes on.
export async function exactTotalAt(
  ctx: CountingContext,
  resource: CatalogResource,
  count: Statement,
  version?: string,
): Promise<Counted> {
  const { counts, db } = ctx;
  const key = countKey(count);
  if (version !== undefined) {
    const hit = counts.get(key, version);
    if (hit !== undefined) return { total: hit, version };
  } else if (counts.has(key)) {
    const current = (await catalogVersions(db, String(count.params[0]), [resource])).version;
    const hit = counts.get(key, current);
    if (hit !== undefined) return { total: hit, version: current };
  }
  const counted = await waitAtMost(
    counts.countOnce(key, () => countWithVersion(ctx.counting, resource, count)),
    ctx.countWaitMs,
  );
  if (version === undefined || counted.version === version) return counted;
  const own = await waitAtMost(countWithVersion(ctx.counting, resource, count), ctx.countWaitMs);
  counts.set(key, own.version, own.total);
  return own;
}

// The promise's value, or CountPendingError after `ms` (the promise goes on; its failure is then nobody's).
function waitAtMost<T>(p: Promise<T>, ms: number | undefined): Promise<T> {
  if (ms === undefined) return p;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CountPendingError(ms)), ms);
  });
  p.catch(() => undefined);
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

// The cache key of a count statement and its parameters (one filter of one organization).
export function countKey(count: Statement): string {
  return `${count.sql}\u0000${JSON.stringify(count.params)}`;
}
