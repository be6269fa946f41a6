import "server-only";
import { ID_PREFIX, isoSql } from "@/db/schema";
import type { CatalogContext } from "@/lib/catalog/context";
import { readList, type ListResult } from "@/lib/catalog/list/engine";
import { defineQuery, listParams, type QueryOf } from "@/lib/catalog/list/query-grammar";
import { addNamed, idsParam } from "@/lib/catalog/list/reads-by-ids";
import type { Family, FamilyDetail } from "./schemas";
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

// The sortable fields of families: the public sort enum of the query and the SQL behind each, one table.
export const FAMILY_SORTS = {
  code: { column: "f.code", cast: "text" },
  slug: { column: "f.slug", cast: "text" },
  label: { column: "f.label_sort", cast: "text" },
  updatedAt: { column: "f.updated_at", cast: "timestamptz" },
} as const satisfies SortColumns;

// The query of a families list.
export const familiesQuery = defineQuery({
  ...listParams(["code", "slug", "label"], sortFields(FAMILY_SORTS)),
  ids: idsParam(`${ID_PREFIX.family}_1b2C3d4E5f6G7h8I,${ID_PREFIX.family}_8h7G6f5E4d3C2b1A`),
});
export type FamiliesQuery = QueryOf<typeof familiesQuery>;

// The select list of a family item (alias f), its columns named as the item's fields.
const FAMILY_COLUMNS = `f.id, f.slug, f.code, f.label, ${isoSql("f.updated_at")} as "updatedAt"`;

// A family item from its row (FAMILY_COLUMNS): exactly the item's fields, whatever else the row holds.
function familyItem(r: Family): Family {
  return { id: r.id, slug: r.slug, code: r.code, label: r.label, updatedAt: r.updatedAt };
}

// Lists the families of one organization.
export async function listFamilies(
  ctx: CatalogContext,
  orgId: string,
  q: FamiliesQuery,
): Promise<ListResult<Family>> {
  const where = new Where("f.org_id", orgId);
  addSearch(where, "f.search", q.q);
  addUpdatedSince(where, "f.updated_at", q.updatedSince);
  const named = addNamed(where, "f.id", q.ids);
  return readList<Family, Family>(
    ctx,
    {
      resource: "families",
      from: "families f",
      columns: FAMILY_COLUMNS,
      where,
      count: where.count("families f"),
      order: orderBy(q.sort, FAMILY_SORTS, "f.id"),
      onePlan: true, // a small table per organization: any plan reads little
      named,
      map: familyItem,
    },
    q.page,
    q.perPage,
  );
}

// The query of a family's detail: no parameter.
export const familyDetailQuery = defineQuery({});
export type FamilyDetailQuery = QueryOf<typeof familyDetailQuery>;

// One statement by primary keys: families, and their attributes (family_attributes' primary key starts with the
// family) in the family's order, then by code; the condition on f.id follows.
const FAMILY_DETAILS_SQL = `select ${FAMILY_COLUMNS},
  (select coalesce(jsonb_agg(jsonb_build_object('id', a.id, 'code', a.code, 'label', a.label, 'type', a.type,
                                                'required', fa.is_required)
                             order by fa.position, a.code), '[]'::jsonb)
     from family_attributes fa
     join attributes a on a.org_id = fa.org_id and a.id = fa.attribute_id
    where fa.family_id = f.id and fa.org_id = f.org_id) as attributes
  from families f
 where f.org_id = $1`;

// One family of the organization read whole: its item's fields and its attributes, each with whether a product of
// the family needs a value for it; undefined when the organization has no family of this id.
export async function getFamilyDetail(
  ctx: CatalogContext,
  orgId: string,
  id: string,
): Promise<FamilyDetail | undefined> {
  const [row] = await ctx.db.query<FamilyDetailRow>(`${FAMILY_DETAILS_SQL} and f.id = $2`, [orgId, id]);
  return row && familyDetailOf(row);
}

type FamilyDetailRow = Family & { attributes: FamilyDetail["attributes"] };
const familyDetailOf = (row: FamilyDetailRow): FamilyDetail => ({
  ...familyItem(row),
  attributes: row.attributes,
});

// Families of the organization read whole, in id order: the export's batches and the change feed's items.
export async function readFamilyDetails(
  ctx: CatalogContext,
  orgId: string,
  sel: Selection,
): Promise<FamilyDetail[]> {
  const s = selectionSql("f.id", sel);
  const rows = await ctx.db.query<FamilyDetailRow>(`${FAMILY_DETAILS_SQL} and ${s.sql}`, [
    orgId,
    ...s.params,
  ]);
  return rows.map(familyDetailOf);
}
