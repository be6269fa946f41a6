import "server-only";
import type { Queryable } from "@/db/client";
import { PublicApiError } from "@/lib/public-api/errors";
import type { Product, ProductsQuery } from "@/lib/public-api/schemas";
import { VERSION_COLUMN } from "./count-cache";
import { Where, addSearch, isoSql, orderBy, paginate, searchWalks, type ListResult } from "./list";

const SORT_COLUMNS = {
  identifier: "p.identifier",
  label: "p.label_sort",
  status: "p.status",
  updatedAt: "p.updated_at",
};
// Sorts that an index (org_id, column, id) serves in order, so a search may walk it (see searchWalks).
const WALKABLE_SORTS = new Set(["updatedAt", "label", "status"]);
// From this many skipped rows, the page's ids are picked from the index before the rows are read.
const DEFERRED_JOIN_MIN_OFFSET = 200;
// The type each sort column's text form is cast back to when a deep page seeks from an anchor.
const SORT_CASTS = { identifier: "text", label: "text", status: "text", updatedAt: "timestamptz" };

interface Row {
  id: string;
  identifier: string;
  label: string;
  status: Product["status"];
  family_id: string;
  family_label: string;
  category_id: string;
  category_label: string;
  updated_at: string;
  channel_known?: boolean;
}

// Lists the products of one organization (label read in a channel when channelId is given).
export async function listProducts(
  db: Queryable,
  orgId: string,
  q: ProductsQuery,
): Promise<ListResult<Product>> {
  const filters = (search: "index" | "walk") => {
    const w = new Where("p.org_id", orgId, search === "walk");
    if (q.familyId) w.and("p.family_id = ?", q.familyId);
    if (q.categoryId) w.and("p.category_id = ?", q.categoryId);
    addSearch(w, "p.search", q.q, search);
    return w;
  };
  const countOf = (w: Where) => `select count(*)::int as total from products p where ${w}`;
  const counted = filters("index");
  const countSql = countOf(counted);
  const countParams = [...counted.params];
  // A search of the organization's products in an indexed order, for a word common enough: the page walks the
  // sort index and keeps one generic plan (the count, remembered, stays the trigram-indexed one).
  const walk =
    !!q.q &&
    !q.familyId &&
    !q.categoryId &&
    q.sort.length === 1 &&
    WALKABLE_SORTS.has(q.sort[0]!.field) &&
    searchWalks(
      db,
      { countSql, params: countParams },
      { countSql: countOf(new Where("p.org_id", orgId)), params: [orgId] },
      q.page * q.perPage,
    );
  const where = walk ? filters("walk") : counted;

  let label = "coalesce(nullif(p.label, ''), p.identifier)";
  let channelKnown = "";
  if (q.channelId) {
    // The label in the channel, and whether the channel is the organization's (checked in the page statement
    // itself, so that a channel page costs no extra round trip).
    const ch = where.param(q.channelId);
    label = `coalesce(nullif((select pv.value #>> '{}' from product_values pv
                where pv.product_id = p.id and pv.channel_id = ${ch}
                  and pv.attribute_id = (select a.id from attributes a where a.org_id = $1 and a.code = 'name')), ''),
              nullif(p.label, ''), p.identifier)`;
    channelKnown = `, exists (select 1 from channels where org_id = $1 and id = ${ch}) as channel_known`;
  }
  const order = orderBy(q.sort, SORT_COLUMNS, "p.id");
  const single = q.sort.length === 1 ? q.sort[0]! : undefined;
  const sortColumn = single ? SORT_COLUMNS[single.field as keyof typeof SORT_COLUMNS] : "null";
  // Labels of the family and category as scalar subqueries (evaluated for the page's rows only): one relation to
  // plan instead of a join of four, which on a first page costs more to plan than to run.
  const columns = `p.id, ${sortColumn}::text as anchor_sort, p.identifier, ${label} as label, p.status,
        p.family_id, (select f.label from families f where f.org_id = p.org_id and f.id = p.family_id) as family_label,
        p.category_id, (select c.label from categories c where c.org_id = p.org_id and c.id = p.category_id) as category_label,
        ${isoSql("p.updated_at")} as updated_at, ${VERSION_COLUMN}${channelKnown}`;
  const pageSql = (limit: string, offset: string, seek: string, skipped: number) =>
    skipped < DEFERRED_JOIN_MIN_OFFSET
      ? `select ${columns} from products p where ${where} ${seek} order by ${order} limit ${limit} offset ${offset}`
      : // Many rows skipped: the page's ids are picked first from the (org, sort, id) index alone, then only
        // those rows are read, so the skipped rows cost index entries, not rows and labels.
        `select ${columns}
           from (select p.id from products p where ${where} ${seek} order by ${order} limit ${limit} offset ${offset}) k
           join products p on p.org_id = $1 and p.id = k.id
          order by ${order}`;
  return paginate<Row, Product>(db, {
    page: q.page,
    perPage: q.perPage,
    pageSql,
    countSql,
    params: where.params,
    countParams,
    seek: single
      ? {
          column: sortColumn,
          cast: SORT_CASTS[single.field as keyof typeof SORT_CASTS],
          idColumn: "p.id",
          order: single.order,
        }
      : undefined,
    // The organization alone (and the channel, which only picks labels) is served by one plan, as is a search that
    // walks; a family, a category or a search can be rare or everywhere, each wanting its own plan.
    onePlan: walk || (!q.familyId && !q.categoryId && !q.q),
    validate: q.channelId
      ? async (rows) => {
          const known =
            rows.length > 0
              ? rows[0]!.channel_known === true
              : (await db.query("select 1 from channels where org_id = $1 and id = $2", [orgId, q.channelId]))
                  .length > 0;
          if (!known) {
            throw new PublicApiError(
              "PUBLIC_API_INVALID_QUERY",
              `Paramètre « channelId » invalide : canal inconnu pour cette organisation (reçu « ${q.channelId!.slice(0, 60)} »).`,
            );
          }
        }
      : undefined,
    map: (r) => ({
      id: r.id,
      identifier: r.identifier,
      label: r.label,
      status: r.status,
      family: { id: r.family_id, label: r.family_label },
      category: { id: r.category_id, label: r.category_label },
      updatedAt: r.updated_at,
    }),
  });
}
