import "server-only";
import { isoSql } from "@/db/schema";
import type { CatalogContext } from "./context";
import { readList, type ListResult } from "./list";
import { defineQuery, listParams, type QueryOf } from "./list-query-grammar";
import type { Family } from "./schemas";
import { Where, addSearch, addUpdatedSince, orderBy, sortFields, type SortColumns } from "./sql";

// The sortable fields of families: the public sort enum of the query and the SQL behind each, one table.
export const FAMILY_SORTS = {
  code: { column: "f.code", cast: "text" },
  slug: { column: "f.slug", cast: "text" },
  label: { column: "f.label_sort", cast: "text" },
  updatedAt: { column: "f.updated_at", cast: "timestamptz" },
} as const satisfies SortColumns;

// The query of a families list.
export const familiesQuery = defineQuery(listParams(["code", "slug", "label"], sortFields(FAMILY_SORTS)));
export type FamiliesQuery = QueryOf<typeof familiesQuery>;

// Lists the families of one organization.
export async function listFamilies(
  ctx: CatalogContext,
  orgId: string,
  q: FamiliesQuery,
): Promise<ListResult<Family>> {
  const where = new Where("f.org_id", orgId);
  addSearch(where, "f.search", q.q);
  addUpdatedSince(where, "f.updated_at", q.updatedSince);
  return readList<Family, Family>(
    ctx,
    {
      resource: "families",
      from: "families f",
      columns: `f.id, f.slug, f.code, f.label, ${isoSql("f.updated_at")} as "updatedAt"`,
      where,
      count: where.count("families f"),
      order: orderBy(q.sort, FAMILY_SORTS, "f.id"),
      onePlan: true, // a small table per organization: any plan reads little
      map: (r) => ({ id: r.id, slug: r.slug, code: r.code, label: r.label, updatedAt: r.updatedAt }),
    },
    q.page,
    q.perPage,
  );
}
