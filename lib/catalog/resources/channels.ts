import "server-only";
import { ID_PREFIX, isoSql } from "@/db/schema";
import type { CatalogContext } from "@/lib/catalog/context";
import { readList, type ListResult } from "@/lib/catalog/list/engine";
import { defineQuery, listParams, type QueryOf } from "@/lib/catalog/list/query-grammar";
import { addNamed, idsParam } from "@/lib/catalog/list/reads-by-ids";
import type { Channel } from "./schemas";
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

// The sortable fields of channels: the public sort enum of the query and the SQL behind each, one table. A label
// sorts by its folded form in byte order, as the other lists' label_sort columns do (channels have none: a handful
// of rows per organization, sorted as read).
export const CHANNEL_SORTS = {
  code: { column: "c.code", cast: "text" },
  label: { column: `(catalog_fold(c.label) collate "C")`, cast: "text" },
  updatedAt: { column: "c.updated_at", cast: "timestamptz" },
} as const satisfies SortColumns;

// The query of a channels list.
export const channelsQuery = defineQuery({
  ...listParams(["code", "label"], sortFields(CHANNEL_SORTS)),
  ids: idsParam(`${ID_PREFIX.channel}_6h7J8k9L0m1N2o3P,${ID_PREFIX.channel}_3P2o1N0m9L8k7J6h`),
});
export type ChannelsQuery = QueryOf<typeof channelsQuery>;

// The folded text a search of channels looks in: the other lists' generated `search` column, computed as read
// (a handful of channels per organization, read by the (org_id, code) index).
const CHANNEL_SEARCH = "(catalog_fold(c.code) || chr(31) || catalog_fold(c.label))";

// Lists the channels of one organization.
export async function listChannels(
  ctx: CatalogContext,
  orgId: string,
  q: ChannelsQuery,
): Promise<ListResult<Channel>> {
  const where = new Where("c.org_id", orgId);
  addSearch(where, CHANNEL_SEARCH, q.q);
  addUpdatedSince(where, "c.updated_at", q.updatedSince);
  const named = addNamed(where, "c.id", q.ids);
  return readList<Channel, Channel>(
    ctx,
    {
      resource: "channels",
      from: "channels c",
      columns: CHANNEL_COLUMNS,
      where,
      count: where.count("channels c"),
      order: orderBy(q.sort, CHANNEL_SORTS, "c.id"),
      onePlan: true, // a handful of rows per organization: any plan reads little
      named,
      map: channelItem,
    },
    q.page,
    q.perPage,
  );
}

// The select list of a channel item (alias c), its columns named as the item's fields.
const CHANNEL_COLUMNS = `c.id, c.code, c.label, c.locale, ${isoSql("c.updated_at")} as "updatedAt"`;

// A channel item from its row (CHANNEL_COLUMNS): exactly the item's fields.
const channelItem = (r: Channel): Channel => ({
  id: r.id,
  code: r.code,
  label: r.label,
  locale: r.locale,
  updatedAt: r.updatedAt,
});

// Channels of the organization as their list shows them, in id order: the export's batches and the change feed's
// items.
export async function readChannels(ctx: CatalogContext, orgId: string, sel: Selection): Promise<Channel[]> {
  const s = selectionSql("c.id", sel);
  const rows = await ctx.db.query<Channel>(
    `select ${CHANNEL_COLUMNS} from channels c where c.org_id = $1 and ${s.sql}`,
    [orgId, ...s.params],
  );
  return rows.map(channelItem);
}
