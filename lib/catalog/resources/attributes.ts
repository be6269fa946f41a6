import "server-only";
import { ATTRIBUTE_TYPES, ID_PREFIX, isoSql } from "@/db/schema";
import type { CatalogContext } from "@/lib/catalog/context";
import { readList, type ListResult } from "@/lib/catalog/list/engine";
import {
  boolParam,
  defineQuery,
  enumListParam,
  idParam,
  listParams,
  type QueryOf,
} from "@/lib/catalog/list/query-grammar";
import { addNamed, idsParam } from "@/lib/catalog/list/reads-by-ids";
import type { Attribute, AttributeDetail, AttributeOption } from "./schemas";
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

// The sortable fields of attributes: the public sort enum of the query and the SQL behind each, one table.
export const ATTRIBUTE_SORTS = {
  code: { column: "a.code", cast: "text" },
  slug: { column: "a.slug", cast: "text" },
  label: { column: "a.label_sort", cast: "text" },
  type: { column: "a.type", cast: "text" },
  updatedAt: { column: "a.updated_at", cast: "timestamptz" },
} as const satisfies SortColumns;

// The select list of an attribute's row (alias `a`), named as the Attribute list item's fields.
const ATTRIBUTE_COLUMNS = `a.id, a.slug, a.code, a.label, a.type, a.unique_value as "uniqueValue",
  a.is_scopable as "isScopable", ${isoSql("a.updated_at")} as "updatedAt"`;

// An Attribute list item from a row of ATTRIBUTE_COLUMNS (only its fields: a row may carry more columns).
const attributeOf = (r: Attribute): Attribute => ({
  id: r.id,
  slug: r.slug,
  code: r.code,
  label: r.label,
  type: r.type,
  uniqueValue: r.uniqueValue,
  isScopable: r.isScopable,
  updatedAt: r.updatedAt,
});

// The attribute types whose values are option codes: their detail lists the options.
const OPTION_TYPES: readonly string[] = ["SELECT", "MULTI_SELECT"] satisfies Attribute["type"][];

// The query of an attributes list.
export const attributesQuery = defineQuery({
  ...listParams(["code", "slug", "label"], sortFields(ATTRIBUTE_SORTS)),
  type: enumListParam(ATTRIBUTE_TYPES, "Only attributes of these types."),
  uniqueValue: boolParam("Only attributes whose value must be unique (true) or must not (false)."),
  isScopable: boolParam("Only scopable attributes (true) or only non-scopable ones (false)."),
  familyId: idParam("Only attributes attached to this family."),
  ids: idsParam(`${ID_PREFIX.attribute}_4K5l6M7n8O9p0Q1r,${ID_PREFIX.attribute}_1r0Q9p8O7n6M5l4K`),
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
  const named = addNamed(where, "a.id", q.ids);
  return readList<Attribute, Attribute>(
    ctx,
    {
      resource: "attributes",
      from: "attributes a",
      columns: ATTRIBUTE_COLUMNS,
      where,
      count: where.count("attributes a"),
      order: orderBy(q.sort, ATTRIBUTE_SORTS, "a.id"),
      onePlan: true, // a small table per organization: any plan reads little
      named,
      map: attributeOf,
    },
    q.page,
    q.perPage,
  );
}

// The query of an attribute's detail: no parameter (any one is refused as unknown, as a list refuses it).
export const attributeDetailQuery = defineQuery({});
export type AttributeDetailQuery = QueryOf<typeof attributeDetailQuery>;

// One attribute of one organization read whole, in one statement by primary key: the list item's fields and, for
// SELECT and MULTI_SELECT only, its options ordered by position then code. Undefined for an id the organization
// does not have (another organization's included).
export async function getAttributeDetail(
  ctx: CatalogContext,
  orgId: string,
  id: string,
): Promise<AttributeDetail | undefined> {
  const [row] = await ctx.db.query<AttributeDetailRow>(`${ATTRIBUTE_DETAILS_SQL} and a.id = $2`, [orgId, id]);
  return row && attributeDetailOf(row);
}

// Attributes of the organization read whole, in id order: the export's batches and the change feed's items.
export async function readAttributeDetails(
  ctx: CatalogContext,
  orgId: string,
  sel: Selection,
): Promise<AttributeDetail[]> {
  const s = selectionSql("a.id", sel);
  const rows = await ctx.db.query<AttributeDetailRow>(`${ATTRIBUTE_DETAILS_SQL} and ${s.sql}`, [
    orgId,
    ...s.params,
  ]);
  return rows.map(attributeDetailOf);
}

// Attributes read whole (organization $1; the condition on a.id follows): a SELECT or MULTI_SELECT one with its
// options in their order, then by code.
const ATTRIBUTE_DETAILS_SQL = `select ${ATTRIBUTE_COLUMNS},
    case when a.type in (${OPTION_TYPES.map((t) => `'${t}'`).join(", ")}) then coalesce(
      (select json_agg(json_build_object('code', o.code, 'label', o.label) order by o.position, o.code)
         from attribute_options o where o.org_id = a.org_id and o.attribute_id = a.id),
      '[]'::json) end as options
  from attributes a where a.org_id = $1`;

type AttributeDetailRow = Attribute & { options: AttributeOption[] | null };
function attributeDetailOf(row: AttributeDetailRow): AttributeDetail {
  const attribute = attributeOf(row);
  return row.options ? { ...attribute, options: row.options } : attribute;
}
