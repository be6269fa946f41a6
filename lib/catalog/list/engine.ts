import "server-only";
import type { CatalogContext } from "@/lib/catalog/context";
import { countKey, exactTotalAt, versionColumn, type CatalogResource } from "./count-cache";
import { FEED_HEAD_COLUMN } from "@/lib/catalog/memory/product-memory";
import type { Statement } from "@/lib/catalog/sql";

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

// A single-key sort that deep pages can seek in: `(column, id)` compared as a row against an anchor.
export interface SeekSpec {
  /** The sort column (SQL) and the type its text form is cast back to. */
  column: string;
  cast: string;
  idColumn: string;
  order: "asc" | "desc";
}

// One list of one organization, described once; the strategies below read a page of it.
export interface ListSpec<Row, Item> {
  /** The resource listed: its version (per organization) keys the page's total, anchors and tag. */
  resource: CatalogResource;
  /** The table and its alias: `products p`. */
  from: string;
  /** The select list of a page's rows (the resource's version and, when seeking, the anchor are added). */
  columns: string;
  /** The page's conditions and every parameter of the page statement ($1 is the organization). */
  where: { toString(): string; readonly params: readonly unknown[] };
  /** The exact total's statement (`Where.count`): it may differ from the page's conditions (a search walk counts
   * with the trigram-indexed condition) and has only its own parameters. */
  count: Statement;
  /** ORDER BY, the id last. */
  order: string;
  /** Deep pages seek from remembered anchors (a single-key sort). */
  seek?: SeekSpec;
  /** Many skipped rows: the page's ids are picked first from the (org, sort, id) index alone, then only those rows
   * are read (`join` reads them back as `k.id`), so the skipped rows cost index entries, not rows and labels. */
  deferredJoin?: { id: string; join: string };
  /**
   * One plan serves every value of the parameters (no selective filter: the organization alone, or a small table),
   * so the first page's statement may keep a generic plan (see firstPageRows).
   */
  onePlan: boolean;
  /**
   * An index holds the filter's matches in the page's order (one media type, whose indexes hold each sort): a walk
   * reads only the entries the page needs, so the matches are never read first (matchesFirst), and a deep page picks
   * its ids from that index alone (deferredJoin).
   */
  inOrder?: boolean;
  /**
   * The exact total at a feed head (none: the head now), from memory (lib/catalog/memory): the page's rows then also
   * read the feed's head and, when this gives the total at that head, no count runs. Undefined: counted as without.
   */
  memoryTotal?: (head?: string) => Promise<number | undefined>;
  /**
   * The conditions name the rows (reads by ids, lib/catalog/list/reads-by-ids.ts: at most a page's worth): every
   * match is read in one statement, the page is a slice of them and the total their number. No count, cached total,
   * anchor or plan choice is used or remembered: none is keyed by the names.
   */
  named?: boolean;
  /** Checks the page's rows before they are shaped (may query, may throw a catalog error). */
  validate?: (rows: Row[]) => Promise<void>;
  map: (row: Row) => Item;
}

// Which page: its number, size and the rows it skips.
interface Window {
  page: number;
  perPage: number;
  offset: number;
}

// Offset from which a page of a single-key sort seeks from a remembered anchor instead of skipping rows.
export const SEEK_MIN_OFFSET = 1_000;
// From this many skipped rows, a list with a deferred join picks its page's ids before reading the rows.
export const DEFERRED_JOIN_MIN_OFFSET = 200;

// Reads one page of a list and its exact total, by the strategy that fits, and shapes the response.
export async function readList<Row, Item>(
  ctx: CatalogContext,
  spec: ListSpec<Row, Item>,
  page: number,
  perPage: number,
): Promise<ListResult<Item>> {
  const w: Window = { page, perPage, offset: (page - 1) * perPage };
  const { rows, total } = spec.named
    ? await everyNamedRow(ctx, spec, w)
    : spec.seek && w.offset >= SEEK_MIN_OFFSET
      ? await deepPageFromAnchor(ctx, spec, spec.seek, w)
      : spec.memoryTotal
        ? await pageWithMemoryTotal(ctx, spec, spec.memoryTotal, w)
        : ctx.counts.has(countKey(spec.count))
          ? await pageWithCachedTotal(ctx, spec, w)
          : await pageWithFirstCount(ctx, spec, w);
  await spec.validate?.(rows);
  return { data: rows.map(spec.map), pagination: pagination(page, perPage, total) };
}

// The pagination object of a page and a total.
export function pagination(page: number, perPage: number, total: number): Pagination {
  return {
    page,
    perPage,
    total,
    totalPages: total === 0 ? 0 : Math.ceil(total / perPage),
    hasAny: total > 0,
  };
}

// Page of a list whose conditions name its rows: all of them read in the list's order, in one statement (one
// snapshot: the page and its total agree), the page sliced from them.
async function everyNamedRow<Row>(ctx: CatalogContext, spec: ListSpec<Row, unknown>, w: Window) {
  const all = await ctx.db.query<Row>(
    `select ${spec.columns} from ${spec.from} where ${spec.where} order by ${spec.order}`,
    spec.where.params,
  );
  return { rows: all.slice(w.offset, w.offset + w.perPage), total: all.length };
}

// Page with its total from memory: the page alone, its rows carrying the resource's version and the feed's head;
// the total remembered at that version, else the memory's at that head (then remembered at that version too, for
// the plan choices that read the count cache), else counted as without memory. An empty page carries no head: the
// memory's total now answers when the page is past it (an empty page then too, so both are of that moment).
async function pageWithMemoryTotal<Row>(
  ctx: CatalogContext,
  spec: ListSpec<Row, unknown>,
  memoryTotal: (head?: string) => Promise<number | undefined>,
  w: Window,
) {
  const rows = await firstPageRows(ctx, spec, w);
  if (rows.length === 0) {
    const now = await memoryTotal();
    if (now !== undefined && now <= w.offset) return { rows, total: now };
  }
  const version = versionOf(rows);
  const key = countKey(spec.count);
  const head = (rows[0] as { feed_head?: string } | undefined)?.feed_head;
  const cached = version === undefined ? undefined : ctx.counts.get(key, version);
  if (cached !== undefined) return { rows, total: cached };
  const fromMemory = head === undefined ? undefined : await memoryTotal(head);
  if (fromMemory !== undefined && version !== undefined) {
    ctx.counts.set(key, version, fromMemory);
    return { rows, total: fromMemory };
  }
  const { total } = await exactTotalAt(ctx, spec.resource, spec.count, version);
  return { rows, total };
}

// The page statement: `limit` and `offset` are SQL (numbers or placeholders), `seek` a condition after the WHERE.
// `matchesFirst`: the rows matching the conditions are read first (by the index their filter has, behind an
// `offset 0` fence the planner does not look through), then sorted, instead of walking the sort's index and testing
// each row: a walk that is planned for matches spread evenly reads most of the table when they gather at the other
// end. Measured: bench/README.md#filters-with-few-matches-in-sql
function pageSql<Row>(
  spec: ListSpec<Row, unknown>,
  limit: string,
  offset: string,
  seek: string,
  skipped: number,
  matchesFirst = false,
): string {
  const anchor = spec.seek ? `${spec.seek.column}::text as anchor_sort, ` : "";
  const head = spec.memoryTotal ? `${FEED_HEAD_COLUMN}, ` : "";
  const columns = `${spec.columns}, ${anchor}${head}${versionColumn(spec.resource)}`;
  const window = `order by ${spec.order} limit ${limit} offset ${offset}`;
  if (matchesFirst) {
    const alias = spec.from.trim().split(/\s+/).pop();
    return `select ${columns} from (select * from ${spec.from} where ${spec.where} ${seek} offset 0) ${alias} ${window}`;
  }
  const picked = `from ${spec.from} where ${spec.where} ${seek} ${window}`;
  if (spec.deferredJoin && skipped >= DEFERRED_JOIN_MIN_OFFSET) {
    return `select ${columns} from (select ${spec.deferredJoin.id} ${picked}) k ${spec.deferredJoin.join} order by ${spec.order}`;
  }
  return `select ${columns} ${picked}`;
}

// Whether a filtered page reads its matches first (pageSql): when the total last counted for its filter is small
// (MATCHES_FIRST_MIN), or at most MATCHES_FIRST_RATIO times the rows the page needs (then reading them all costs at
// most that many times what any plan must read, and no walk is left to the matches' spread).
export const MATCHES_FIRST_MIN = 2_000;
export const MATCHES_FIRST_RATIO = 10;
function matchesFirst(ctx: CatalogContext, spec: ListSpec<unknown, unknown>, w: Window): boolean {
  if (spec.onePlan || spec.inOrder) return false;
  const total = ctx.counts.peek(countKey(spec.count));
  return (
    total !== undefined && total <= Math.max(MATCHES_FIRST_MIN, MATCHES_FIRST_RATIO * (w.offset + w.perPage))
  );
}

// The page's rows, LIMIT and OFFSET as parameters after the list's own.
function rowsAt<Row>(ctx: CatalogContext, spec: ListSpec<Row, unknown>, w: Window): Promise<Row[]> {
  const n = spec.where.params.length;
  const first = matchesFirst(ctx, spec as ListSpec<unknown, unknown>, w);
  return ctx.db.query<Row>(pageSql(spec, `$${n + 1}`, `$${n + 2}`, "", w.offset, first), [
    ...spec.where.params,
    w.perPage,
    w.offset,
  ]);
}

// First page with a generic plan. A LIMIT or OFFSET given as a parameter makes Postgres assume a tenth of the rows
// will be read, so it re-plans every execution of a prepared statement (pg_prepared_statements showed 0 generic,
// 12 custom plans); written as numbers on the first page of a list whose every parameter value is served by one
// plan, the statement keeps its plan (no planning per request). Measured: bench/README.md#generic-plans-of-first-pages
// Lists with a selective filter keep parameters, so that Postgres may plan each value (a generic plan would walk a
// million rows for a rare word).
function firstPageRows<Row>(ctx: CatalogContext, spec: ListSpec<Row, unknown>, w: Window): Promise<Row[]> {
  if (spec.onePlan && w.offset === 0 && Number.isSafeInteger(w.perPage)) {
    return ctx.db.query<Row>(pageSql(spec, String(w.perPage), "0", "", 0), spec.where.params);
  }
  return rowsAt(ctx, spec, w);
}

// The resource's version a page's rows were read at (versionColumn), when the page has rows.
function versionOf(rows: readonly unknown[]): string | undefined {
  const v = (rows[0] as { catalog_version?: unknown } | undefined)?.catalog_version;
  return v === undefined || v === null ? undefined : String(v);
}

// Page with a cached total: counted before, so the page alone (one statement whose rows carry the resource's
// version), then its total from the cache if that version is the one the total was counted at (an empty page
// carries no version: the version is read apart). A polled first page costs one statement.
async function pageWithCachedTotal<Row>(ctx: CatalogContext, spec: ListSpec<Row, unknown>, w: Window) {
  const rows = await firstPageRows(ctx, spec, w);
  const { total } = await exactTotalAt(ctx, spec.resource, spec.count, versionOf(rows));
  return { rows, total };
}

// Page with its first count: never counted, so the page and the count at once (the count shared by every
// concurrent request of the same list), then the count again if a change fell between the two.
async function pageWithFirstCount<Row>(ctx: CatalogContext, spec: ListSpec<Row, unknown>, w: Window) {
  const [rows, counted] = await Promise.all([
    firstPageRows(ctx, spec, w),
    exactTotalAt(ctx, spec.resource, spec.count),
  ]);
  const version = versionOf(rows);
  const total =
    version === undefined || version === counted.version
      ? counted.total
      : (await exactTotalAt(ctx, spec.resource, spec.count, version)).total;
  return { rows, total };
}

// Deep page seeking from an anchor: past SEEK_MIN_OFFSET rows of a single-key sort, the total (and its version)
// first, so that an anchor remembered at this very version of the resource can be used: the page then starts from an index
// range at the nearest remembered row instead of skipping every row before it (page 5,000 of a million products:
// p99 within 3× of page 1). Each deep page read remembers its first row as an anchor for the next.
async function deepPageFromAnchor<Row>(
  ctx: CatalogContext,
  spec: ListSpec<Row, unknown>,
  seek: SeekSpec,
  w: Window,
) {
  const at = await exactTotalAt(ctx, spec.resource, spec.count);
  if (w.offset >= at.total) return { rows: [] as Row[], total: at.total };
  const list = `${countKey(spec.count)}\u0000${seek.column} ${seek.order}`;
  const anchor = ctx.anchors.nearest(list, at.version, w.offset);
  let rows: Row[];
  if (anchor) {
    const n = spec.where.params.length;
    const op = seek.order === "desc" ? "<=" : ">=";
    const cond = `and (${seek.column}, ${seek.idColumn}) ${op} ($${n + 3}::${seek.cast}, $${n + 4})`;
    const skipped = w.offset - anchor.pos;
    rows = await ctx.db.query<Row>(pageSql(spec, `$${n + 1}`, `$${n + 2}`, cond, skipped), [
      ...spec.where.params,
      w.perPage,
      skipped,
      anchor.sort,
      anchor.id,
    ]);
  } else {
    rows = await rowsAt(ctx, spec, w);
  }
  const first = rows[0] as { id?: string; anchor_sort?: string } | undefined;
  if (first?.id !== undefined && first.anchor_sort !== undefined) {
    ctx.anchors.set(list, at.version, { pos: w.offset, sort: first.anchor_sort, id: first.id });
  }
  return { rows, total: at.total };
}
