import "server-only";
import type { CatalogContext } from "@/lib/catalog/context";
import { countKey, exactTotalAt, type CatalogResource } from "./count-cache";
import type { Statement } from "@/lib/catalog/sql";

// Rows a search's page may read along the sort index before the trigram index is the better way.
// Walking that many rows costs less than the trigram index takes for a pattern of common trigrams, however few rows
// hold it. The planner sees no exact count and estimates a pattern of several words at a hundred rows, so it picks
// the index for all of them. Measured: bench/README.md#search-walk
export const SEARCH_WALK_MAX_ROWS = 10_000;

/**
 * Whether a search's page is best read by walking the sort index and testing each row (addSearch "walk"):
 * when the list's rows that match are common enough that `rowsNeeded` (offset + page size) of them are found within
 * SEARCH_WALK_MAX_ROWS rows of the whole list, assuming matches spread evenly along the sort. Uses the totals
 * remembered in the count cache (of any version of the resource: this only picks a plan, every response's rows and total
 * stay exact): the search's count (`search`) and the unfiltered list's (`all`). Without a remembered total of the
 * unfiltered list, it is counted in the background (once, for the next requests) and the answer is no.
 */
export function searchWalks(
  ctx: CatalogContext,
  resource: CatalogResource,
  search: Statement,
  all: Statement,
  rowsNeeded: number,
): boolean {
  const matches = ctx.counts.peek(countKey(search));
  if (!matches) return false;
  return walkFindsRows(ctx, resource, matches, all, rowsNeeded) ?? false;
}

// Whether `rowsNeeded` of `matches` spread evenly along the whole list (`all`) are met within SEARCH_WALK_MAX_ROWS
// rows; undefined while the list's total is not remembered (then counted in the background, once, for later).
function walkFindsRows(
  ctx: CatalogContext,
  resource: CatalogResource,
  matches: number,
  all: Statement,
  rowsNeeded: number,
): boolean | undefined {
  const total = ctx.counts.peek(countKey(all));
  if (total === undefined) {
    exactTotalAt(ctx, resource, all).catch(() => {}); // an estimate for later; a failure costs nothing
    return undefined;
  }
  return walkFits(matches, total, rowsNeeded);
}

// Whether `rowsNeeded` of `matches` spread evenly along a list of `total` rows are met within SEARCH_WALK_MAX_ROWS
// rows of it.
export function walkFits(matches: number, total: number, rowsNeeded: number): boolean {
  return matches > 0 && (rowsNeeded * total) / matches <= SEARCH_WALK_MAX_ROWS;
}

/**
 * Whether a filtered list's page (a family, a category, an `updatedSince` window) may walk the sort's index and test
 * each row, as Postgres would: only when its matches are common enough, by the same measure as a search. The planner
 * estimates a family and a category together as independent, so a pair that holds few products or none (their
 * products correlate: a fashion category holds no product of a home family) is walked along the whole organization's
 * sort index, past the statement's bound (measured: bench/README.md#search-walk); a narrow `updatedSince`
 * window under a label sort is the same. Not common enough, the page reads the matches first (by the filter's index)
 * and sorts them. The filter's own count is remembered (it is the page's total), so this costs a statement only when
 * the list's total is not yet known. An unknown total of the unfiltered list is counted in the background; meanwhile
 * matches are read first only when they are few (at most SEARCH_WALK_MAX_ROWS: never slow), else walked.
 */
export async function filterWalks(
  ctx: CatalogContext,
  resource: CatalogResource,
  filtered: Statement,
  all: Statement,
  rowsNeeded: number,
): Promise<boolean> {
  const { total: matches } = await exactTotalAt(ctx, resource, filtered);
  if (matches === 0) return false;
  return walkFindsRows(ctx, resource, matches, all, rowsNeeded) ?? matches > SEARCH_WALK_MAX_ROWS;
}
