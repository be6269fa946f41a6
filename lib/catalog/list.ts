import "server-only";
import type { Queryable } from "@/db/client";
import type { SortKey } from "@/lib/public-api/params";
import { exactTotal } from "./count-cache";

// The pagination object of every list response.
export interface Pagination {
  page: number;
  perPage: number;
  total: number;
  totalPages: number;
  hasAny: boolean;
}

// A list response body.
export interface ListResult<T> {
  data: T[];
  pagination: Pagination;
}

// Builds a WHERE clause and its parameters; $1 is always the organization.
export class Where {
  readonly params: unknown[];
  private readonly parts: string[];
  constructor(orgColumn: string, orgId: string) {
    this.params = [orgId];
    this.parts = [`${orgColumn} = $1`];
  }
  /** Adds a parameter and returns its placeholder. */
  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }
  /** Adds a condition; `?` marks are replaced by placeholders of the given values, in order. */
  and(sql: string, ...values: unknown[]): this {
    let i = 0;
    this.parts.push(sql.replace(/\?/g, () => this.param(values[i++])));
    return this;
  }
  toString(): string {
    return this.parts.join(" and ");
  }
}

// A LIKE pattern that matches the text as a substring, with LIKE's wildcards escaped.
export function likeSubstring(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

// Adds the accent-insensitive substring search on a stored `search` column.
export function addSearch(where: Where, searchColumn: string, q: string | undefined): void {
  if (q) where.and(`${searchColumn} like catalog_fold(?)`, likeSubstring(q));
}

// ORDER BY for sort keys, with the id as the last tie-breaker (in the first key's direction, so one index serves both).
export function orderBy(sort: SortKey[], columns: Record<string, string>, idColumn: string): string {
  const parts = sort.map((k) => `${columns[k.field]} ${k.order}`);
  parts.push(`${idColumn} ${sort[0]?.order ?? "asc"}`);
  return parts.join(", ");
}

// The SQL of a UTC timestamp as YYYY-MM-DDTHH:mm:ss.sssZ (same text on every driver).
export function isoSql(column: string): string {
  return `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

// Runs the page query and the exact total (from the count cache while the catalog is unchanged), and shapes the list response.
export async function paginate<Row, Item>(
  db: Queryable,
  opts: {
    page: number;
    perPage: number;
    /**
     * SELECT … FROM … WHERE … ORDER BY … without LIMIT/OFFSET (appended), or a function that places the
     * LIMIT and OFFSET placeholders itself (e.g. inside a subquery that picks the page's ids first).
     */
    pageSql: string | ((limit: string, offset: string) => string);
    /** `select count(*)::int as total from … where …`; $1 is the organization. */
    countSql: string;
    params: unknown[];
    /** Parameters of the count when it uses fewer than the page query (default: the same). */
    countParams?: unknown[];
    map: (row: Row) => Item;
  },
): Promise<ListResult<Item>> {
  const { page, perPage, params } = opts;
  const offset = (page - 1) * perPage;
  const n = params.length;
  const limitP = `$${n + 1}`;
  const offsetP = `$${n + 2}`;
  const sql =
    typeof opts.pageSql === "function"
      ? opts.pageSql(limitP, offsetP)
      : `${opts.pageSql} limit ${limitP} offset ${offsetP}`;
  const [rows, total] = await Promise.all([
    db.query<Row>(sql, [...params, perPage, offset]),
    exactTotal(db, opts.countSql, opts.countParams ?? params),
  ]);
  return {
    data: rows.map(opts.map),
    pagination: {
      page,
      perPage,
      total,
      totalPages: total === 0 ? 0 : Math.ceil(total / perPage),
      hasAny: total > 0,
    },
  };
}
