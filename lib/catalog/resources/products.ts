import "server-only";
import { ID_PREFIX, isoSql } from "@/db/schema";
import type { CatalogContext } from "@/lib/catalog/context";
import { countKey, type VersionsRead } from "@/lib/catalog/list/count-cache";
import { pagination, readList, type ListResult } from "@/lib/catalog/list/engine";
import { RenderedList } from "@/lib/catalog/list/rendered-list";
import { filterWalks, searchWalks, walkFits } from "@/lib/catalog/list/search-walk";
import { heldPage, relabelledPage } from "@/lib/catalog/memory/memory-page";
import type { ProductRow } from "@/lib/catalog/memory/product-columns";
import type { MemoryFilter, ProductIndex } from "@/lib/catalog/memory/product-index";
import { PRODUCT_LABELS_COLUMNS } from "@/lib/catalog/memory/product-memory";
import { defineQuery, idParam, listParams, type QueryOf } from "@/lib/catalog/list/query-grammar";
import { addNamed, identifiersParam, idsParam } from "@/lib/catalog/list/reads-by-ids";
import {
  channelKnownColumn,
  channelLabelsStatement,
  checkChannel,
  productLabelSql,
  type ChannelLabels,
} from "./channel-labels";
import type { Product } from "./schemas";
import { Where, addSearch, addUpdatedSince, orderBy, sortFields, type SortColumns } from "@/lib/catalog/sql";

// The sortable fields of products: the public sort enum of the query and the SQL behind each, one table.
export const PRODUCT_SORTS = {
  identifier: { column: "p.identifier", cast: "text" },
  label: { column: "p.label_sort", cast: "text" },
  status: { column: "p.status", cast: "text" },
  updatedAt: { column: "p.updated_at", cast: "timestamptz" },
} as const satisfies SortColumns;
// The text orders as expressions no index holds (`|| ''` keeps a text's collation and order): a page sorted by one
// reads the filter's matches by the filter's index, then sorts them (see filterWalks). updatedAt stays: the filters'
// own indexes hold that order, and such a page is never read first.
const unindexed = (s: SortColumns[string]) => ({ ...s, column: `(${s.column} || '')` });
const UNINDEXED_PRODUCT_SORTS = {
  identifier: unindexed(PRODUCT_SORTS.identifier),
  label: unindexed(PRODUCT_SORTS.label),
  status: unindexed(PRODUCT_SORTS.status),
  updatedAt: PRODUCT_SORTS.updatedAt,
} satisfies Record<keyof typeof PRODUCT_SORTS, SortColumns[string]>;
// Sorts that an index (org_id, column, id) serves in order, so a search may walk it (see searchWalks). Not label: a
// search's words are words of the labels, so its matches gather in one stretch of the label order instead of being
// spread along it. Measured: bench/README.md#search-walk
const WALKABLE_SORTS = new Set(["updatedAt", "status"]);

// The columns of a product item (productColumns), as a row: the type the index in memory gives its rows in too.
export type { ProductRow } from "@/lib/catalog/memory/product-columns";

interface Row extends ProductRow {
  channel_known?: boolean;
}

// The select list of a product item (alias p, organization $1; `channel`: the placeholder of the channel its label is
// read in). Labels of the family and category as scalar subqueries: a join of four costs more to plan than to run
// on a first page.
export function productColumns(channel?: string): string {
  return `p.id, p.identifier, ${productLabelSql(channel)} as label, p.status, p.family_id, p.category_id,
        ${PRODUCT_LABELS_COLUMNS}, ${isoSql("p.updated_at")} as updated_at`;
}

// A product item from its row (productColumns).
export function productItem(r: ProductRow): Product {
  return {
    id: r.id,
    identifier: r.identifier,
    label: r.label,
    status: r.status,
    family: { id: r.family_id, label: r.family_label },
    category: { id: r.category_id, label: r.category_label },
    updatedAt: r.updated_at,
  };
}

// A product item's JSON from its row, as the index in memory keeps it (one function: the index keeps what one
// renders).
const productItemJson = (r: ProductRow): string => JSON.stringify(productItem(r));

// The query of a products list: page, search, sort and filters.
export const productsQuery = defineQuery({
  ...listParams(["identifier", "label"], sortFields(PRODUCT_SORTS)),
  categoryId: idParam(
    "Only products of this category (an id of the key's organization; any other gives an empty list).",
  ),
  channelId: idParam(
    "Channel used to read scoped values: `label` becomes the channel's name. Must be a channel of the key's organization (else 400).",
  ),
  familyId: idParam(
    "Only products of this family (an id of the key's organization; any other gives an empty list).",
  ),
  ids: idsParam(`${ID_PREFIX.product}_7Yq2nC4kP0sLx9Ta,${ID_PREFIX.product}_3Hj8kL2mN5pQ9rSt`),
  identifiers: identifiersParam,
});
export type ProductsQuery = QueryOf<typeof productsQuery>;

// Lists the products of one organization (label read in a channel when channelId is given). `seen`: the products'
// version and the feed's head as the request's version read saw them (one statement), when it made one.
export async function listProducts(
  ctx: CatalogContext,
  orgId: string,
  q: ProductsQuery,
  seen?: VersionsRead,
): Promise<ListResult<Product>> {
  // Reads by ids: the named products and their total in one statement, past every fast path (none is keyed by
  // names: the index's pages and totals, the counts remembered per filter, the walks' and reads' plan choices).
  if (q.ids || q.identifiers) return listNamed(ctx, orgId, q);
  const ordered = await orderedFromMemory(ctx, orgId, q, seen);
  if (ordered) return ordered;
  const result = await listWithStatements(ctx, orgId, q);
  ctx.memory?.consider(ctx, orgId, result.pagination.total);
  return result;
}

// The conditions of a products list's filters (`search`: how its search is tested, see addSearch).
function productWhere(orgId: string, q: ProductsQuery, search: "index" | "walk" = "index"): Where {
  const w = new Where("p.org_id", orgId, search === "walk");
  if (q.familyId) w.and("p.family_id = ?", q.familyId);
  if (q.categoryId) w.and("p.category_id = ?", q.categoryId);
  addSearch(w, "p.search", q.q, search);
  addUpdatedSince(w, "p.updated_at", q.updatedSince);
  return w;
}

// A products list restricted to the products its `ids` and `identifiers` name (both: those named by both), its
// filters applied as to any list.
function listNamed(ctx: CatalogContext, orgId: string, q: ProductsQuery): Promise<ListResult<Product>> {
  const where = productWhere(orgId, q);
  addNamed(where, "p.id", q.ids);
  addNamed(where, "p.identifier", q.identifiers);
  const count = where.count("products p");
  return readList<Row, Product>(
    ctx,
    {
      resource: "products",
      from: "products p",
      columns: itemColumns(where, q.channelId),
      where,
      count,
      order: orderBy(q.sort, PRODUCT_SORTS, "p.id"),
      onePlan: true,
      named: true,
      validate: q.channelId
        ? (rows) => checkChannel(ctx.db, orgId, q.channelId!, rows[0]?.channel_known)
        : undefined,
      map: productItem,
    },
    q.page,
    q.perPage,
  );
}

// The updatedSince instant in milliseconds (the grammar gives it in UTC, to the millisecond).
const sinceOf = (q: ProductsQuery): number | undefined =>
  q.updatedSince ? Date.parse(q.updatedSince) : undefined;

// The channel's label columns and check (the channel's placeholder in `w`), or the plain columns.
function itemColumns(w: Where, channelId: string | undefined): string {
  if (!channelId) return productColumns();
  const ch = w.param(channelId);
  return `${productColumns(ch)}, ${channelKnownColumn(ch)}`;
}

// A page of the organization's products in one indexed sort, filtered or not, from its index in memory: any page
// is read from the index alone, or with a channel (whose labels it does not hold) with one statement of the page's
// channel labels. None when the organization has no index, the index does not hold the page as SQL would read it,
// or a search term's fold holds one of LIKE's wildcards: the plain statements answer.
async function orderedFromMemory(
  ctx: CatalogContext,
  orgId: string,
  q: ProductsQuery,
  seen: VersionsRead | undefined,
): Promise<ListResult<Product> | undefined> {
  const single = q.sort.length === 1 ? q.sort[0]! : undefined;
  if (!single || !ctx.memory?.index(orgId)) return undefined;
  const filtered = !!(q.q || q.familyId || q.categoryId || q.updatedSince);
  const f = filtered ? await memoryFilter(ctx, q) : {};
  if (!f) return undefined;
  const offset = (q.page - 1) * q.perPage;
  const pick = (idx: ProductIndex) => ({
    slots: idx.pageSlots(single.field, single.order, offset, q.perPage, f),
    total: idx.count(f),
  });
  if (q.channelId) {
    const channelId = q.channelId;
    const page = await relabelledPage<ChannelLabels>(
      ctx,
      orgId,
      pick,
      (ids) => channelLabelsStatement(orgId, channelId, ids),
      productItemJson,
    );
    if (!page) return undefined;
    await checkChannel(ctx.db, orgId, channelId, page.read.channel_known);
    // The unfiltered total, remembered at the labels' version.
    if (!filtered) rememberTotal(ctx, orgId, page.read.catalog_version, page.total);
    return new RenderedList<Product>(page.items, pagination(q.page, q.perPage, page.total));
  }
  const held = await heldPage(ctx, orgId, pick, productItemJson, seen?.feedHead);
  if (!held) return undefined;
  // The unfiltered total, remembered at the version read with that head: what a search's plan choice weighs its
  // matches against.
  if (seen && held.cursor === seen.feedHead && !filtered) rememberTotal(ctx, orgId, seen.version, held.total);
  return new RenderedList<Product>(held.items, pagination(q.page, q.perPage, held.total));
}

// Remembers the organization's count of products at a version of its products.
function rememberTotal(ctx: CatalogContext, orgId: string, version: string, total: number): void {
  ctx.counts.set(countKey(new Where("p.org_id", orgId).count("products p")), version, total);
}

// A list's filters as the organization's index counts them; none when a search term's fold holds one of LIKE's
// wildcards (the statement's pattern would then not be a plain substring).
async function memoryFilter(ctx: CatalogContext, q: ProductsQuery): Promise<MemoryFilter | undefined> {
  const folded = q.q ? await ctx.memory!.fold(ctx.db, q.q) : undefined;
  if (folded !== undefined && /[%_\\]/.test(folded + q.q)) return undefined;
  return {
    familyId: q.familyId,
    categoryId: q.categoryId,
    updatedSinceMs: sinceOf(q),
    q: folded,
  };
}

// Every other products list: its page and total read with SQL, the total from memory when the organization has an
// index (counted otherwise).
async function listWithStatements(
  ctx: CatalogContext,
  orgId: string,
  q: ProductsQuery,
): Promise<ListResult<Product>> {
  const memory = ctx.memory;
  const idx = memory?.index(orgId);
  const counted = productWhere(orgId, q);
  const count = counted.count("products p");
  // A search of the organization's products in an indexed order, for a word common enough: the page walks the
  // sort index and keeps one generic plan (the count, remembered, stays the trigram-indexed one).
  const single = q.sort.length === 1 ? q.sort[0]! : undefined;
  const walk =
    !!q.q &&
    !q.familyId &&
    !q.categoryId &&
    !q.updatedSince &&
    !!single &&
    WALKABLE_SORTS.has(single.field) &&
    searchWalks(ctx, "products", count, new Where("p.org_id", orgId).count("products p"), q.page * q.perPage);
  const where = walk ? productWhere(orgId, q, "walk") : counted;
  // A family, a category or an updatedSince window sorted by another column than updatedAt (whose order their
  // indexes hold): walked along the sort's index only when the matches are common enough, else read first.
  // The index's counts (at whatever cursor) weigh the choice when there is one: a plan, not an answer.
  const readMatchesFirst =
    !q.q &&
    !!(q.familyId || q.categoryId || q.updatedSince) &&
    !!single &&
    single.field !== "updatedAt" &&
    !(idx
      ? walkFits(
          idx.count({
            familyId: q.familyId,
            categoryId: q.categoryId,
            updatedSinceMs: sinceOf(q),
          }),
          idx.size,
          q.page * q.perPage,
        )
      : await filterWalks(
          ctx,
          "products",
          count,
          new Where("p.org_id", orgId).count("products p"),
          q.page * q.perPage,
        ));

  // With a channel: the label in the channel, and whether the channel is the organization's (checked in the page
  // statement itself, so that a channel page costs no extra round trip).
  return readList<Row, Product>(
    ctx,
    {
      resource: "products",
      from: "products p",
      columns: itemColumns(where, q.channelId),
      where,
      count,
      order: orderBy(q.sort, readMatchesFirst ? UNINDEXED_PRODUCT_SORTS : PRODUCT_SORTS, "p.id"),
      seek: single
        ? {
            column: PRODUCT_SORTS[single.field].column,
            cast: PRODUCT_SORTS[single.field].cast,
            idColumn: "p.id",
            order: single.order,
          }
        : undefined,
      deferredJoin: { id: "p.id", join: "join products p on p.org_id = $1 and p.id = k.id" },
      // The organization alone (and the channel, which only picks labels) is served by one plan, as is a search
      // that walks; a family, a category or a search can be rare or everywhere, each wanting its own plan.
      onePlan: walk || (!q.familyId && !q.categoryId && !q.q && !q.updatedSince),
      memoryTotal:
        memory && idx
          ? async (head) => {
              const f = await memoryFilter(ctx, q);
              if (!f) return undefined;
              return (await memory.at(ctx, orgId, head ?? (await memory.head(ctx, orgId))))?.count(f);
            }
          : undefined,
      validate: q.channelId
        ? (rows) => checkChannel(ctx.db, orgId, q.channelId!, rows[0]?.channel_known)
        : undefined,
      map: productItem,
    },
    q.page,
    q.perPage,
  );
}
