import "server-only";
import { ID_PREFIX, MEDIA_TYPES, isoSql } from "@/db/schema";
import type { CatalogContext } from "@/lib/catalog/context";
import { readList, type ListResult } from "@/lib/catalog/list/engine";
import { mediaUrls } from "./media-urls";
import {
  boolParam,
  defineQuery,
  enumListParam,
  listParams,
  textParam,
  type QueryOf,
} from "@/lib/catalog/list/query-grammar";
import { addNamed, idsParam } from "@/lib/catalog/list/reads-by-ids";
import type { Media } from "./schemas";
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

// The sortable fields of media: the public sort enum of the query and the SQL behind each, one table.
export const MEDIA_SORTS = {
  originalName: { column: "m.original_name_sort", cast: "text" },
  slug: { column: "m.slug", cast: "text" },
  type: { column: "m.type", cast: "text" },
  category: { column: "m.category_sort", cast: "text" },
  updatedAt: { column: "m.updated_at", cast: "timestamptz" },
} as const satisfies SortColumns;

// The query of a media list.
export const mediaQuery = defineQuery({
  ...listParams(["originalName", "slug", "category"], sortFields(MEDIA_SORTS)),
  type: enumListParam(MEDIA_TYPES, "Only media of these types."),
  orphansOnly: boolParam("true: only media attached to nothing."),
  category: textParam("Only media of this media category (case- and accent-insensitive exact match)."),
  ids: idsParam(`${ID_PREFIX.media}_2S3t4U5v6W7x8Y9z,${ID_PREFIX.media}_9z8Y7x6W5v4U3t2S`),
});
export type MediaQuery = QueryOf<typeof mediaQuery>;

// The columns of a media item (MEDIA_COLUMNS), as a row.
export interface MediaRow {
  id: string;
  slug: string;
  originalName: string;
  type: Media["type"];
  category: string;
  fileName: string;
  updatedAt: string;
}

// The select list of a media item (alias m).
export const MEDIA_COLUMNS = `m.id, m.slug, m.original_name as "originalName", m.type, m.category,
                m.file_name as "fileName", ${isoSql("m.updated_at")} as "updatedAt"`;

// A media item from its row (MEDIA_COLUMNS), with absolute file and thumbnail URLs.
export function mediaItem(r: MediaRow, baseUrl: string, orgSlug: string): Media {
  return {
    id: r.id,
    slug: r.slug,
    originalName: r.originalName,
    type: r.type,
    category: r.category,
    ...mediaUrls(baseUrl, orgSlug, r.fileName),
    updatedAt: r.updatedAt,
  };
}

// Lists the public media of one organization, with absolute file and thumbnail URLs.
export async function listMedia(
  ctx: CatalogContext,
  org: { id: string; slug: string },
  q: MediaQuery,
  baseUrl: string,
): Promise<ListResult<Media>> {
  const where = new Where("m.org_id", org.id).and("m.is_public");
  // The public media have an index per order (migration 0029), and per type and order (0028): one type as an
  // equality, so that its indexes give the page in its order.
  const types = [...new Set(q.type ?? [])];
  if (types.length === 1) where.and("m.type = ?", types[0]);
  else if (types.length > 1) where.and("m.type = any(?::text[])", types);
  if (q.category) where.and("m.category_sort = catalog_fold(?)", q.category);
  // link_count is kept by media_links' triggers (migration 0004); partial indexes hold the public orphans (0004, 0028).
  if (q.orphansOnly) where.and("m.link_count = 0");
  addSearch(where, "m.search", q.q);
  addUpdatedSince(where, "m.updated_at", q.updatedSince);
  const named = addNamed(where, "m.id", q.ids);
  return readList<MediaRow, Media>(
    ctx,
    {
      resource: "media",
      from: "media m",
      columns: MEDIA_COLUMNS,
      where,
      count: where.count("media m"),
      order: orderBy(q.sort, MEDIA_SORTS, "m.id"),
      deferredJoin: { id: "m.id", join: "join media m on m.org_id = $1 and m.id = k.id" },
      // A type, a category or a search can be rare or everywhere: one plan only without them.
      onePlan: !q.q && !q.category && !q.type?.length && !q.updatedSince,
      // One type alone, in one sort: its partial indexes (org_id, type, sort, id) hold the page's order (the orphans'
      // in updatedAt only).
      inOrder:
        types.length === 1 &&
        q.sort.length === 1 &&
        !q.q &&
        !q.category &&
        !q.updatedSince &&
        (!q.orphansOnly || q.sort[0]!.field === "updatedAt"),
      named,
      map: (r) => mediaItem(r, baseUrl, org.slug),
    },
    q.page,
    q.perPage,
  );
}

// Public media of the organization as their list shows them, in id order: the export's batches and the change feed's
// items (a private media is in neither: the feed serves it as a delete).
export async function readMedia(
  ctx: CatalogContext,
  org: { id: string; slug: string },
  sel: Selection,
  baseUrl: string,
): Promise<Media[]> {
  const s = selectionSql("m.id", sel);
  const rows = await ctx.db.query<MediaRow>(
    `select ${MEDIA_COLUMNS} from media m where m.org_id = $1 and m.is_public and ${s.sql}`,
    [org.id, ...s.params],
  );
  return rows.map((r) => mediaItem(r, baseUrl, org.slug));
}
