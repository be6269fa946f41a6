import "server-only";
import type { Queryable } from "@/db/client";
import type { SortKey } from "@/lib/public-api/params";
import { countCacheFor, countKey, exactTotalAt } from "./count-cache";
import { anchorCacheFor } from "./page-anchors";

// The pagination object of every list response.
export interface Pagination {
  page: number;
  perPage: number;
  total: number;
  totalPages: number;
  hasAny: boolean;
}

// A list response body.
export interface ListResult<T> {
  data: T[];
  pagination: Pagination;
}

// Builds a WHERE clause and its parameters; $1 is always the organization.
export class Where {
  readonly params: unknown[];
  private readonly parts: string[];
  /**
   * `opaqueOrg`: the organization is compared as `(select $1::text)`, a value the planner cannot see, so that every
   * organization gets the same estimates. Postgres keeps a prepared statement's generic plan only when it is
   * estimated no dearer than the custom plans were; for the largest organization of a table a custom plan is
   * always estimated cheaper (more rows match, so a LIMIT is reached sooner), and the statement would be
   * re-planned on every execution even when every value wants the same plan. For statements whose plan is chosen
   * in code (see searchWalks).
   */
  constructor(orgColumn: string, orgId: string, opaqueOrg = false) {
    this.params = [orgId];
    this.parts = [opaqueOrg ? `${orgColumn} = (select $1::text)` : `${orgColumn} = $1`];
  }
  /** Adds a parameter and returns its placeholder. */
  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }
  /** Adds a condition; `?` marks are replaced by placeholders of the given values, in order. */
  and(sql: string, ...values: unknown[]): this {
    let i = 0;
    this.parts.push(sql.replace(/\?/g, () => this.param(values[i++])));
    return this;
  }
  toString(): string {
    return this.parts.join(" and ");
  }
}

// A LIKE pattern that matches the text as a substring, with LIKE's wildcards escaped.
export function likeSubstring(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

// Adds the accent-insensitive substring search on a stored `search` column.
// "index" (LIKE): the trigram index may serve it, the planner chooses per value. "walk" (strpos, the same test
// that no index serves, on the folded text computed once per statement): each row of a walk of the sort index is
// tested, the fastest plan for a word that many rows hold (see searchWalks).
export function addSearch(
  where: Where,
  searchColumn: string,
  q: string | undefined,
  how: "index" | "walk" = "index",
): void {
  if (!q) return;
  if (how === "walk") where.and(`strpos(${searchColumn}, (select catalog_fold(?::text))) > 0`, q);
  else where.and(`${searchColumn} like catalog_fold(?)`, likeSubstring(q));
}

// Rows a search's page may read along the sort index before the trigram index is the better way.
// Measured on the bench's million products (2 cores, Postgres 15): a walk costs ~0.7 µs a row (10,000 rows ≈ 7 ms),
// while the trigram index took 12–35 ms for patterns made of common trigrams, however few rows held them (1,138
// rows: 33 ms by the index, 12.5 ms walking 17,500 rows; 4,568 rows: 32 ms against 2.9 ms). The planner sees no
// exact count and estimates a pattern of several words at a hundred rows, so it picks the index for all of them.
export const SEARCH_WALK_MAX_ROWS = 10_000;

/**
 * Whether a search's page is best read by walking the sort index and testing each row (addSearch "walk"):
 * when the list's rows that match are common enough that `rowsNeeded` (offset + page size) of them are found within
 * SEARCH_WALK_MAX_ROWS rows of the whole list, assuming matches spread evenly along the sort. Uses the totals
 * remembered in the count cache (of any catalog version: this only picks a plan, every response's rows and total
 * stay exact): the search's (`search`) and the unfiltered list's (`all`). Without a remembered total of the
 * unfiltered list, it is counted in the background (once, for the next requests) and the answer is no.
 */
export function searchWalks(
  db: Queryable,
  search: { countSql: string; params: readonly unknown[] },
  all: { countSql: string; params: readonly unknown[] },
  rowsNeeded: number,
): boolean {
  const cache = countCacheFor(db);
  const matches = cache.peek(countKey(search.countSql, search.params));
  if (!matches) return false;
  const total = cache.peek(countKey(all.countSql, all.params));
  if (total === undefined) {
    exactTotalAt(db, all.countSql, all.params).catch(() => {}); // an estimate for later; a failure costs nothing
    return false;
  }
  return (rowsNeeded * total) / matches <= SEARCH_WALK_MAX_ROWS;
}

// ORDER BY for sort keys, with the id as the last tie-breaker (in the first key's direction, so one index serves both).
export function orderBy(sort: SortKey[], columns: Record<string, string>, idColumn: string): string {
  const parts = sort.map((k) => `${columns[k.field]} ${k.order}`);
  parts.push(`${idColumn} ${sort[0]?.order ?? "asc"}`);
  return parts.join(", ");
}

// The SQL of a UTC timestamp as YYYY-MM-DDTHH:mm:ss.sssZ (same text on every driver).
export function isoSql(column: string): string {
  return `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

// Offset from which a page of a single-key sort seeks from a remembered anchor instead of skipping rows.
export const SEEK_MIN_OFFSET = 1_000;

// A single-key sort that deep pages can seek in: `(column, id)` compared as a row against an anchor.
export interface SeekSpec {
  /** The sort column (SQL) and the type its text form is cast back to. */
  column: string;
  cast: string;
  idColumn: string;
  order: "asc" | "desc";
}

// The catalog version a page's rows were read at (VERSION_COLUMN), when the page has rows.
function versionOf(rows: readonly unknown[]): string | undefined {
  const v = (rows[0] as { catalog_version?: unknown } | undefined)?.catalog_version;
  return v === undefined || v === null ? undefined : String(v);
}

// Runs the page query and the exact total (from the count cache while the catalog is unchanged), and shapes the list response.
export async function paginate<Row, Item>(
  db: Queryable,
  opts: {
    page: number;
    perPage: number;
    /**
     * SELECT … FROM … WHERE … ORDER BY … without LIMIT/OFFSET (appended), whose rows carry the catalog version
     * (VERSION_COLUMN: with a cached total, a non-empty page is then one statement), or a function that places the
     * LIMIT and OFFSET placeholders itself (e.g. inside a subquery that picks the page's ids first), and the
     * seek condition (`and (col, id) <= (…)`, or "") right after its WHERE conditions.
     */
    pageSql: string | ((limit: string, offset: string, seek: string, skipped: number) => string);
    /** `select count(*)::int as total from … where …`; $1 is the organization. */
    countSql: string;
    params: unknown[];
    /** Parameters of the count when it uses fewer than the page query (default: the same). */
    countParams?: unknown[];
    /** Deep pages may seek (pageSql must be a function and its rows must carry `id` and `anchor_sort`, the sort value as text). */
    seek?: SeekSpec;
    /**
     * One plan serves every value of the parameters (no selective filter: the organization alone, or a small
     * table), so the first page's statement may keep a generic plan (see pageQuery).
     */
    onePlan?: boolean;
    /** Checks the page's rows before they are shaped (may query, may throw a PublicApiError). */
    validate?: (rows: Row[]) => Promise<void>;
    map: (row: Row) => Item;
  },
): Promise<ListResult<Item>> {
  const { page, perPage, params } = opts;
  const offset = (page - 1) * perPage;
  const n = params.length;
  const countParams = opts.countParams ?? params;
  const build = (seek: string, skipped: number, limit = `$${n + 1}`, off = `$${n + 2}`) =>
    typeof opts.pageSql === "function"
      ? opts.pageSql(limit, off, seek, skipped)
      : `${opts.pageSql} limit ${limit} offset ${off}`;
  // The first page's statement. A LIMIT or OFFSET given as a parameter makes Postgres assume a tenth of the rows
  // will be read, so it re-plans every execution of a prepared statement; written as numbers on the first page of
  // a list whose every parameter value is served by one plan, the statement keeps its plan (about 0.2 ms of
  // planning less per request). Lists with a selective filter keep parameters, so that Postgres may plan each value.
  const pageQuery = () =>
    opts.onePlan && offset === 0 && Number.isSafeInteger(perPage)
      ? db.query<Row>(build("", 0, String(perPage), "0"), params)
      : db.query<Row>(build("", offset), [...params, perPage, offset]);

  let rows: Row[];
  let total: number;
  if (opts.seek && typeof opts.pageSql === "function" && offset >= SEEK_MIN_OFFSET) {
    // Deep page: the version first, so that an anchor of this very catalog version can be used.
    const at = await exactTotalAt(db, opts.countSql, countParams);
    total = at.total;
    if (offset >= total) rows = [];
    else {
      const s = opts.seek;
      const list = `${countKey(opts.countSql, countParams)}\u0000${s.column} ${s.order}`;
      const anchors = anchorCacheFor(db);
      const anchor = anchors.nearest(list, at.version, offset);
      if (anchor) {
        const op = s.order === "desc" ? "<=" : ">=";
        const seek = `and (${s.column}, ${s.idColumn}) ${op} ($${n + 3}::${s.cast}, $${n + 4})`;
        rows = await db.query<Row>(build(seek, offset - anchor.pos), [
          ...params,
          perPage,
          offset - anchor.pos,
          anchor.sort,
          anchor.id,
        ]);
      } else {
        rows = await db.query<Row>(build("", offset), [...params, perPage, offset]);
      }
      const first = rows[0] as { id?: string; anchor_sort?: string } | undefined;
      if (first?.id !== undefined && first.anchor_sort !== undefined) {
        anchors.set(list, at.version, { pos: offset, sort: first.anchor_sort, id: first.id });
      }
    }
  } else if (countCacheFor(db).has(countKey(opts.countSql, countParams))) {
    // Counted before: the page alone, then its total from the cache if the catalog version it was read at is the
    // one the total was counted at (an empty page carries no version: it is read apart).
    rows = await pageQuery();
    total = (await exactTotalAt(db, opts.countSql, countParams, versionOf(rows))).total;
  } else {
    // Never counted: the page and the count at once, then the count again if a change fell between the two.
    const [page, counted] = await Promise.all([pageQuery(), exactTotalAt(db, opts.countSql, countParams)]);
    rows = page;
    const version = versionOf(rows);
    total =
      version === undefined || version === counted.version
        ? counted.total
        : (await exactTotalAt(db, opts.countSql, countParams, version)).total;
  }
  await opts.validate?.(rows);
  return {
    data: rows.map(opts.map),
    pagination: {
      page,
      perPage,
      total,
      totalPages: total === 0 ? 0 : Math.ceil(total / perPage),
      hasAny: total > 0,
    },
  };
}
