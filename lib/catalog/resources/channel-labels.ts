import "server-only";
import type { Queryable } from "@/db/client";
import { UnknownReferenceError } from "@/lib/catalog/catalog-errors";
import { versionColumn } from "@/lib/catalog/list/count-cache";
import { FEED_HEAD_COLUMN } from "@/lib/catalog/memory/product-memory";
import type { Statement } from "@/lib/catalog/sql";

// A product's label read in a channel: the channel's value of the organization's `name` attribute when it is not
// empty, else the product's own label, else its identifier. Here both as a column of a product's row and as the
// statement that reads a page's channel labels alone (the rest of the page held in memory).

// The label of a product (alias p, organization $1) as its item shows it: with a channel (the placeholder of its id),
// the channel's value of the organization's `name` attribute, else the product's label, else its identifier.
export function productLabelSql(channel: string | undefined): string {
  if (!channel) return "coalesce(nullif(p.label, ''), p.identifier)";
  return `coalesce(nullif((select pv.value #>> '{}' from product_values pv
                where pv.product_id = p.id and pv.channel_id = ${channel}
                  and pv.attribute_id = (select a.id from attributes a where a.org_id = $1 and a.code = 'name')), ''),
              nullif(p.label, ''), p.identifier)`;
}

// Whether the channel (the placeholder of its id) is one of the organization's ($1), as the column channel_known: a
// label can only be read in a channel of the organization (else UnknownReferenceError).
export function channelKnownColumn(channel: string): string {
  return `exists (select 1 from channels where org_id = $1 and id = ${channel}) as channel_known`;
}

// The channel labels of the products $3 of the organization $1 in the channel $2, in one row and one snapshot: the
// non-empty values of the `name` attribute by product id (a product without one shows its own label), whether the
// channel is the organization's, the feed's head and the products' version. `coalesce(channel_id, '')` is the
// unique index's own expression: each product is one probe of it.
const CHANNEL_LABELS_SQL = `select
  (select json_object_agg(pv.product_id, pv.value #>> '{}') from product_values pv
    where pv.product_id = any($3::text[]) and coalesce(pv.channel_id, '') = $2 and pv.org_id = $1
      and pv.attribute_id = (select a.id from attributes a where a.org_id = $1 and a.code = 'name')
      and (pv.value #>> '{}') <> '') as labels,
  ${channelKnownColumn("$2")}, ${FEED_HEAD_COLUMN}, ${versionColumn("products")}`;

// What the statement of a page's channel labels read.
export interface ChannelLabels {
  labels: Readonly<Record<string, string>> | null;
  channel_known: boolean;
  feed_head: string;
  catalog_version: string;
}

// The statement of the channel labels of the products `ids` (CHANNEL_LABELS_SQL).
export function channelLabelsStatement(orgId: string, channelId: string, ids: readonly string[]): Statement {
  return { sql: CHANNEL_LABELS_SQL, params: [orgId, channelId, ids] };
}

// Throws UnknownReferenceError when the channel is not one of the organization's (`known`: as a page's statement read
// it; else with a statement of its own).
export async function checkChannel(
  db: Queryable,
  orgId: string,
  channelId: string,
  known: boolean | undefined,
): Promise<void> {
  const isKnown =
    known ??
    (await db.query("select 1 from channels where org_id = $1 and id = $2", [orgId, channelId])).length > 0;
  if (!isKnown) throw new UnknownReferenceError("channelId", channelId);
}
