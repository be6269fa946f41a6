import "server-only";
import type { Queryable } from "@/db/client";
import type { Attribute, AttributesQuery } from "@/lib/public-api/schemas";
import { VERSION_COLUMN } from "./count-cache";
import { Where, addSearch, isoSql, orderBy, paginate, type ListResult } from "./list";

const SORT_COLUMNS = {
  code: "a.code",
  slug: "a.slug",
  label: "a.label_sort",
  type: "a.type",
  updatedAt: "a.updated_at",
};

// Lists the attributes of one organization.
export async function listAttributes(
  db: Queryable,
  orgId: string,
  q: AttributesQuery,
): Promise<ListResult<Attribute>> {
  const where = new Where("a.org_id", orgId);
  if (q.type?.length) where.and("a.type = any(?::text[])", [...new Set(q.type)]);
  if (q.uniqueValue !== undefined) where.and("a.unique_value = ?", q.uniqueValue);
  if (q.isScopable !== undefined) where.and("a.is_scopable = ?", q.isScopable);
  if (q.familyId) {
    where.and(
      "exists (select 1 from family_attributes fa where fa.org_id = a.org_id and fa.family_id = ? and fa.attribute_id = a.id)",
      q.familyId,
    );
  }
  addSearch(where, "a.search", q.q);
  return paginate<Attribute, Attribute>(db, {
    page: q.page,
    perPage: q.perPage,
    pageSql: `select a.id, a.slug, a.code, a.label, a.type, a.unique_value as "uniqueValue",
                     a.is_scopable as "isScopable", ${isoSql("a.updated_at")} as "updatedAt", ${VERSION_COLUMN}
                from attributes a where ${where} order by ${orderBy(q.sort, SORT_COLUMNS, "a.id")}`,
    countSql: `select count(*)::int as total from attributes a where ${where}`,
    params: where.params,
    onePlan: true, // a small table per organization: any plan reads little
    map: (r) => ({
      id: r.id,
      slug: r.slug,
      code: r.code,
      label: r.label,
      type: r.type,
      uniqueValue: r.uniqueValue,
      isScopable: r.isScopable,
      updatedAt: r.updatedAt,
    }),
  });
}
