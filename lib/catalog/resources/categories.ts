import "server-only";
import { ID_PREFIX, isoSql } from "@/db/schema";
import type { CatalogContext } from "@/lib/catalog/context";
import { readList, type ListResult } from "@/lib/catalog/list/engine";
import { boolParam, defineQuery, idParam, listParams, type QueryOf } from "@/lib/catalog/list/query-grammar";
import { addNamed, idsParam } from "@/lib/catalog/list/reads-by-ids";
import type { Category } from "./schemas";
import {
  Where,
  addSearch,
  addUpdatedSince,
  orderBy,
  selectionSql,
  sortFields,
  type Selection,
  type SortColumns,
} from "@/lib/catalog/sql";

// The sortable fields of categories: the public sort enum of the query and the SQL behind each, one table.
export const CATEGORY_SORTS = {
  slug: { column: "c.slug", cast: "text" },
  label: { column: "c.label_sort", cast: "text" },
  updatedAt: { column: "c.updated_at", cast: "timestamptz" },
} as const satisfies SortColumns;

// The query of a categories list.
export const categoriesQuery = defineQuery({
  ...listParams(["slug", "label"], sortFields(CATEGORY_SORTS)),
  parentId: idParam("Only the children of this category; `null` lists the root categories."),
  isMaster: boolParam("Only master categories (true) or only the others (false)."),
  ids: idsParam(`${ID_PREFIX.category}_9a8B7c6D5e4F3g2H,${ID_PREFIX.category}_2H3g4F5e6D7c8B9a`),
});
export type CategoriesQuery = QueryOf<typeof categoriesQuery>;

// Lists the categories of one organization (parentId=null: the roots).
export async function listCategories(
  ctx: CatalogContext,
  orgId: string,
  q: CategoriesQuery,
): Promise<ListResult<Category>> {
  const where = new Where("c.org_id", orgId);
  if (q.parentId === "null") where.and("c.parent_id is null");
  else if (q.parentId) where.and("c.parent_id = ?", q.parentId);
  if (q.isMaster !== undefined) where.and("c.is_master = ?", q.isMaster);
  addSearch(where, "c.search", q.q);
  addUpdatedSince(where, "c.updated_at", q.updatedSince);
  const named = addNamed(where, "c.id", q.ids);
  return readList<Category, Category>(
    ctx,
    {
      resource: "categories",
      from: "categories c",
      columns: CATEGORY_COLUMNS,
      where,
      count: where.count("categories c"),
      order: orderBy(q.sort, CATEGORY_SORTS, "c.id"),
      onePlan: true, // a small table per organization: any plan reads little
      named,
      map: categoryItem,
    },
    q.page,
    q.perPage,
  );
}

// The select list of a category item (alias c), its columns named as the item's fields.
const CATEGORY_COLUMNS = `c.id, c.slug, c.label, c.parent_id as "parentId", c.is_master as "isMaster",
                ${isoSql("c.updated_at")} as "updatedAt"`;

// A category item from its row (CATEGORY_COLUMNS): exactly the item's fields.
const categoryItem = (r: Category): Category => ({
  id: r.id,
  slug: r.slug,
  label: r.label,
  parentId: r.parentId,
  isMaster: r.isMaster,
  updatedAt: r.updatedAt,
});

// Categories of the organization as their list shows them, in id order: the export's batches and the change feed's
// items.
export async function readCategories(
  ctx: CatalogContext,
  orgId: string,
  sel: Selection,
): Promise<Category[]> {
  const s = selectionSql("c.id", sel);
  const rows = await ctx.db.query<Category>(
    `select ${CATEGORY_COLUMNS} from categories c where c.org_id = $1 and ${s.sql}`,
    [orgId, ...s.params],
  );
  return rows.map(categoryItem);
}
