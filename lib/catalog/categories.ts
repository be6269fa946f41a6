import "server-only";
import type { Queryable } from "@/db/client";
import type { CategoriesQuery, Category } from "@/lib/public-api/schemas";
import { VERSION_COLUMN } from "./count-cache";
import { Where, addSearch, isoSql, orderBy, paginate, type ListResult } from "./list";

const SORT_COLUMNS = { slug: "c.slug", label: "c.label_sort", updatedAt: "c.updated_at" };

// Lists the categories of one organization (parentId=null: the roots).
export async function listCategories(
  db: Queryable,
  orgId: string,
  q: CategoriesQuery,
): Promise<ListResult<Category>> {
  const where = new Where("c.org_id", orgId);
  if (q.parentId === "null") where.and("c.parent_id is null");
  else if (q.parentId) where.and("c.parent_id = ?", q.parentId);
  if (q.isMaster !== undefined) where.and("c.is_master = ?", q.isMaster);
  addSearch(where, "c.search", q.q);
  return paginate<Category, Category>(db, {
    page: q.page,
    perPage: q.perPage,
    pageSql: `select c.id, c.slug, c.label, c.parent_id as "parentId", c.is_master as "isMaster",
                     ${isoSql("c.updated_at")} as "updatedAt", ${VERSION_COLUMN}
                from categories c where ${where} order by ${orderBy(q.sort, SORT_COLUMNS, "c.id")}`,
    countSql: `select count(*)::int as total from categories c where ${where}`,
    params: where.params,
    onePlan: true, // a small table per organization: any plan reads little
    map: (r) => ({
      id: r.id,
      slug: r.slug,
      label: r.label,
      parentId: r.parentId,
      isMaster: r.isMaster,
      updatedAt: r.updatedAt,
    }),
  });
}
