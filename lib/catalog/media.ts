import "server-only";
import type { Queryable } from "@/db/client";
import type { Media, MediaQuery } from "@/lib/public-api/schemas";
import { VERSION_COLUMN } from "./count-cache";
import { Where, addSearch, isoSql, orderBy, paginate, type ListResult } from "./list";
import { mediaUrls } from "./media-urls";

const SORT_COLUMNS = {
  originalName: "m.original_name_sort",
  slug: "m.slug",
  type: "m.type",
  category: "m.category_sort",
  updatedAt: "m.updated_at",
};

interface Row {
  id: string;
  slug: string;
  originalName: string;
  type: Media["type"];
  category: string;
  fileName: string;
  updatedAt: string;
}

// Lists the public media of one organization, with absolute file and thumbnail URLs.
export async function listMedia(
  db: Queryable,
  org: { id: string; slug: string },
  q: MediaQuery,
  baseUrl: string,
): Promise<ListResult<Media>> {
  const where = new Where("m.org_id", org.id).and("m.is_public");
  if (q.type?.length) where.and("m.type = any(?::text[])", [...new Set(q.type)]);
  if (q.category) where.and("m.category_sort = catalog_fold(?)", q.category);
  // link_count is kept by media_links' triggers (migration 0004); a partial index holds the public orphans.
  if (q.orphansOnly) where.and("m.link_count = 0");
  addSearch(where, "m.search", q.q);
  return paginate<Row, Media>(db, {
    page: q.page,
    perPage: q.perPage,
    pageSql: `select m.id, m.slug, m.original_name as "originalName", m.type, m.category,
                     m.file_name as "fileName", ${isoSql("m.updated_at")} as "updatedAt", ${VERSION_COLUMN}
                from media m where ${where} order by ${orderBy(q.sort, SORT_COLUMNS, "m.id")}`,
    countSql: `select count(*)::int as total from media m where ${where}`,
    params: where.params,
    // A type, a category or a search can be rare or everywhere: one plan only without them.
    onePlan: !q.q && !q.category && !q.type?.length,
    map: (r) => ({
      id: r.id,
      slug: r.slug,
      originalName: r.originalName,
      type: r.type,
      category: r.category,
      ...mediaUrls(baseUrl, org.slug, r.fileName),
      updatedAt: r.updatedAt,
    }),
  });
}
