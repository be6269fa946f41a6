import "server-only";
import { ATTRIBUTE_TYPES, isoSql } from "@/db/schema";
import type { CatalogContext } from "./context";
import { readList, type ListResult } from "./list";
import {
  boolParam,
  defineQuery,
  enumListParam,
  idParam,
  listParams,
  type QueryOf,
} from "./list-query-grammar";
import type { Attribute } from "./schemas";
import { Where, addSearch, addUpdatedSince, orderBy, sortFields, type SortColumns } from "./sql";

// The sortable fields of attributes: the public sort enum of the query and the SQL behind each, one table.
export const ATTRIBUTE_SORTS = {
  code: { column: "a.code", cast: "text" },
  slug: { column: "a.slug", cast: "text" },
  label: { column: "a.label_sort", cast: "text" },
  type: { column: "a.type", cast: "text" },
  updatedAt: { column: "a.updated_at", cast: "timestamptz" },
} as const satisfies SortColumns;

// The query of an attributes list.
export const attributesQuery = defineQuery({
  ...listParams(["code", "slug", "label"], sortFields(ATTRIBUTE_SORTS)),
  type: enumListParam(ATTRIBUTE_TYPES, "Only attributes of these types."),
  uniqueValue: boolParam("Only attributes whose value must be unique (true) or must not (false)."),
  isScopable: boolParam("Only scopable attributes (true) or only non-scopable ones (false)."),
  familyId: idParam("Only attributes attached to this family."),
});
export type AttributesQuery = QueryOf<typeof attributesQuery>;

// Lists the attributes of one organization.
export async function listAttributes(
  ctx: CatalogContext,
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
  addUpdatedSince(where, "a.updated_at", q.updatedSince);
  return readList<Attribute, Attribute>(
    ctx,
    {
      resource: "attributes",
      from: "attributes a",
      columns: `a.id, a.slug, a.code, a.label, a.type, a.unique_value as "uniqueValue",
                a.is_scopable as "isScopable", ${isoSql("a.updated_at")} as "updatedAt"`,
      where,
      count: where.count("attributes a"),
      order: orderBy(q.sort, ATTRIBUTE_SORTS, "a.id"),
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
    },
    q.page,
    q.perPage,
  );
}
