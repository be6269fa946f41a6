import "server-only";
import { isoSql, type AttributeType } from "@/db/schema";
import type { CatalogContext } from "@/lib/catalog/context";
import { UnknownReferenceError } from "@/lib/catalog/catalog-errors";
import { defineQuery, idParam, type QueryOf } from "@/lib/catalog/list/query-grammar";
import { MEDIA_COLUMNS, mediaItem, type MediaRow } from "./media";
import { mediaUrls } from "./media-urls";
import { channelKnownColumn } from "./channel-labels";
import { productColumns, productItem, type ProductRow } from "./products";
import type { MediaRef, ProductDetail, ProductValue } from "./schemas";
import { selectionSql, type Selection, type Statement } from "@/lib/catalog/sql";

// The query of a product's detail: the channel its label and scopable values are read in.
export const productDetailQuery = defineQuery({
  channelId: idParam(
    "Channel used to read scoped values: `label` becomes the channel's name and each scopable attribute's value the channel's (else the unscoped one). Must be a channel of the key's organization (else 400).",
  ),
});
export type ProductDetailQuery = QueryOf<typeof productDetailQuery>;

// One stored value as the statement reads it: its attribute's code and type, the value, and for a MEDIA value the
// organization's public media it names ([id, file name] each, in the value's order; a private or unknown id has none).
interface ValueRow {
  code: string;
  type: AttributeType;
  value: unknown;
  media: [string, string][] | null;
}

interface Row extends Partial<ProductRow> {
  channel_known: boolean;
  created_at: string | null;
  attribute_values: ValueRow[] | null;
  media: MediaRow[] | null;
}

// The values of the product p (organization $1) read in a channel (the placeholder of its id) or unscoped: per
// attribute, the channel's value when there is one, else the unscoped one (channel_id null), by the
// (product_id, attribute_id, channel) unique index; in attribute code order.
function valuesSql(channel: string | undefined): string {
  const rows = channel
    ? `select distinct on (pv.attribute_id) pv.attribute_id, pv.value
         from product_values pv
        where pv.product_id = p.id and (pv.channel_id is null or pv.channel_id = ${channel})
        order by pv.attribute_id, pv.channel_id nulls last`
    : `select pv.attribute_id, pv.value from product_values pv where pv.product_id = p.id and pv.channel_id is null`;
  return `(select jsonb_agg(jsonb_build_object('code', a.code, 'type', a.type, 'value', v.value, 'media',
            case when a.type = 'MEDIA' then
              (select jsonb_agg(jsonb_build_array(m.id, m.file_name) order by e.n)
                 from jsonb_array_elements_text(case when jsonb_typeof(v.value) = 'array' then v.value
                                                     else jsonb_build_array(v.value) end) with ordinality e(id, n)
                 join media m on m.id = e.id and m.org_id = $1 and m.is_public)
            end) order by a.code)
     from (${rows}) v
     join attributes a on a.id = v.attribute_id and a.org_id = $1)`;
}

// The product p's public media (organization $1), each once, in link position order (by the media_links_product
// index, then each media by its primary key).
const MEDIA_SQL = `(select jsonb_agg(to_jsonb(x) - 'position' order by x.position, x.id)
     from (select distinct on (m.id) ml.position, ${MEDIA_COLUMNS}
             from media_links ml
             join media m on m.id = ml.media_id and m.org_id = ml.org_id and m.is_public
            where ml.org_id = $1 and ml.product_id = p.id
            order by m.id, ml.position) x)`;

// The detail's statement: one row always (whether the channel is the organization's is known even without the
// product), the product's columns null when the organization has no product of this id. $2 is the id, $3 the channel.
function detailSql(channel: string | undefined): string {
  return `select ${channel ? channelKnownColumn(channel) : "true as channel_known"}, d.*
  from (select 1) one
  left join lateral (
    select ${productColumns(channel)}, ${isoSql("p.created_at")} as created_at,
           ${valuesSql(channel)} as attribute_values,
           ${MEDIA_SQL} as media
      from products p
     where p.org_id = $1 and p.id = $2) d on true`;
}
const DETAIL_SQL = detailSql(undefined);
const DETAIL_IN_CHANNEL_SQL = detailSql("$3");

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

// A stored value in the public shape of its attribute's type, or undefined when it has none (a value another
// application stored in another shape, a MEDIA value none of whose media is public): a value is shown only in the
// shape its type documents.
function publicValue(
  v: ValueRow,
  mediaRef: (id: string, fileName: string) => MediaRef,
): ProductValue | undefined {
  const { value } = v;
  switch (v.type) {
    case "TEXT":
    case "TEXTAREA":
    case "DATE":
    case "SELECT":
      return typeof value === "string" ? value : undefined;
    case "NUMBER":
      return typeof value === "number" ? value : undefined;
    case "BOOLEAN":
      return typeof value === "boolean" ? value : undefined;
    case "PRICE":
      return isPlainObject(value) && Object.values(value).every((a) => typeof a === "number")
        ? (value as Record<string, number>)
        : undefined;
    case "MULTI_SELECT":
      return Array.isArray(value) && value.every((c) => typeof c === "string")
        ? (value as string[])
        : undefined;
    case "MEDIA": {
      const refs = (v.media ?? []).map(([id, fileName]) => mediaRef(id, fileName));
      if (refs.length === 0) return undefined;
      return Array.isArray(value) ? refs : refs[0];
    }
    default:
      return undefined;
  }
}

// One product of the organization read whole: its list item's fields (label read in the channel, as the list
// does), when it was created, its values by attribute code (a scopable attribute's in the channel asked, else
// unscoped; MEDIA values as public media references) and its public media. Undefined when the organization has no
// product of this id; an unknown channel is UnknownReferenceError, as for the list. One statement.
export async function getProductDetail(
  ctx: CatalogContext,
  org: { id: string; slug: string },
  id: string,
  q: ProductDetailQuery,
  baseUrl: string,
): Promise<ProductDetail | undefined> {
  const [row] = q.channelId
    ? await ctx.db.query<Row>(DETAIL_IN_CHANNEL_SQL, [org.id, id, q.channelId])
    : await ctx.db.query<Row>(DETAIL_SQL, [org.id, id]);
  if (!row) return undefined;
  if (!row.channel_known) throw new UnknownReferenceError("channelId", q.channelId!);
  if (row.id == null) return undefined;
  return detailOf(row, org, baseUrl);
}

// Products of the organization read whole (unscoped values), in id order: the export's batches and the change
// feed's items. Set-based, four statements whatever the batch's size: the products, then their values, the files of
// their MEDIA values and their linked media, each read as one range of an index (product_values' and media_links'
// start with the product id; an export's batch is a range of ids) rather than by one subquery per product (too slow
// for an export), and put together here. Measured: bench/README.md#feed-and-export-statements
export async function readProductDetails(
  ctx: CatalogContext,
  org: { id: string; slug: string },
  sel: Selection,
  baseUrl: string,
): Promise<ProductDetail[]> {
  const s = selectionSql("p.id", sel);
  const rows = await ctx.db.query<Row>(
    `select ${productColumns(undefined)}, ${isoSql("p.created_at")} as created_at
       from products p where p.org_id = $1 and ${s.sql}`,
    [org.id, ...s.params],
  );
  if (rows.length === 0) return [];
  // The batch's products as a condition on a product_id column, from $2: the range of an export's batch, else its ids.
  const ofBatch = (column: string): Statement =>
    "after" in sel
      ? { sql: `${column} > $2 and ${column} <= $3`, params: [sel.after, rows[rows.length - 1]!.id] }
      : { sql: `${column} = any($2::text[])`, params: [rows.map((r) => r.id!)] };
  const v = ofBatch("pv.product_id");
  const values = await ctx.db.query<ValueRow & { product_id: string }>(
    `select pv.product_id, a.code, a.type, pv.value
       from product_values pv
       join attributes a on a.org_id = pv.org_id and a.id = pv.attribute_id
      where pv.org_id = $1 and ${v.sql} and pv.channel_id is null
      order by pv.product_id, a.code`,
    [org.id, ...v.params],
  );
  const mediaIds = new Set<string>();
  for (const r of values)
    if (r.type === "MEDIA")
      for (const id of Array.isArray(r.value) ? r.value : [r.value])
        if (typeof id === "string") mediaIds.add(id);
  const files = new Map<string, string>();
  if (mediaIds.size > 0)
    for (const m of await ctx.db.query<{ id: string; file_name: string }>(
      "select id, file_name from media where org_id = $1 and is_public and id = any($2::text[])",
      [org.id, [...mediaIds]],
    ))
      files.set(m.id, m.file_name);
  const l = ofBatch("ml.product_id");
  const links = await ctx.db.query<MediaRow & { product_id: string }>(
    `select x.* from (
       select distinct on (ml.product_id, m.id) ml.product_id, ml.position, ${MEDIA_COLUMNS}
         from media_links ml
         join media m on m.id = ml.media_id and m.org_id = ml.org_id and m.is_public
        where ml.org_id = $1 and ${l.sql}
        order by ml.product_id, m.id, ml.position) x
     order by x.product_id, x.position, x.id`,
    [org.id, ...l.params],
  );
  const valuesOf = groupBy(values, (r) => r.product_id);
  const mediaOf = groupBy(links, (r) => r.product_id);
  return rows.map((r) =>
    detailOf(
      {
        ...r,
        attribute_values: (valuesOf.get(r.id!) ?? []).map((x) => ({
          code: x.code,
          type: x.type,
          value: x.value,
          media:
            x.type === "MEDIA"
              ? (Array.isArray(x.value) ? x.value : [x.value]).flatMap((id) =>
                  typeof id === "string" && files.has(id) ? [[id, files.get(id)!] as [string, string]] : [],
                )
              : null,
        })),
        media: mediaOf.get(r.id!) ?? [],
      },
      org,
      baseUrl,
    ),
  );
}

// Rows by a key, each group in the rows' order.
function groupBy<T>(rows: readonly T[], key: (r: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const r of rows) {
    const k = key(r);
    const g = groups.get(k);
    if (g) g.push(r);
    else groups.set(k, [r]);
  }
  return groups;
}

// A product's detail from its statement's row.
function detailOf(row: Row, org: { id: string; slug: string }, baseUrl: string): ProductDetail {
  const mediaRef = (mediaId: string, fileName: string): MediaRef => ({
    id: mediaId,
    ...mediaUrls(baseUrl, org.slug, fileName),
  });
  // Own keys whatever the code ("__proto__" too), in the statement's code order.
  const values: ProductDetail["values"] = Object.fromEntries(
    (row.attribute_values ?? []).flatMap((v) => {
      const shown = publicValue(v, mediaRef);
      return shown === undefined ? [] : [[v.code, shown]];
    }),
  );
  return {
    ...productItem(row as ProductRow),
    createdAt: row.created_at!,
    values,
    media: (row.media ?? []).map((m) => mediaItem(m, baseUrl, org.slug)),
  };
}
