import "server-only";
import type { Queryable } from "@/db/client";
import type { FamiliesQuery, Family } from "@/lib/public-api/schemas";
import { VERSION_COLUMN } from "./count-cache";
import { Where, addSearch, isoSql, orderBy, paginate, type ListResult } from "./list";

const SORT_COLUMNS = { code: "f.code", slug: "f.slug", label: "f.label_sort", updatedAt: "f.updated_at" };

// Lists the families of one organization.
export async function listFamilies(
  db: Queryable,
  orgId: string,
  q: FamiliesQuery,
): Promise<ListResult<Family>> {
  const where = new Where("f.org_id", orgId);
  addSearch(where, "f.search", q.q);
  return paginate<Family, Family>(db, {
    page: q.page,
    perPage: q.perPage,
    pageSql: `select f.id, f.slug, f.code, f.label, ${isoSql("f.updated_at")} as "updatedAt", ${VERSION_COLUMN}
                from families f where ${where} order by ${orderBy(q.sort, SORT_COLUMNS, "f.id")}`,
    countSql: `select count(*)::int as total from families f where ${where}`,
    params: where.params,
    onePlan: true, // a small table per organization: any plan reads little
    map: (r) => ({ id: r.id, slug: r.slug, code: r.code, label: r.label, updatedAt: r.updatedAt }),
  });
}
