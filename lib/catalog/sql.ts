// The pieces of the catalog's SQL: a WHERE builder with its parameters, the search condition, ORDER BY, timestamps.

// A statement and its parameters ($1 is always the organization).
export interface Statement {
  sql: string;
  params: readonly unknown[];
}

// One sort key: a sortable field and its order.
export interface SortKey<F extends string = string> {
  field: F;
  order: "asc" | "desc";
}

// Builds a WHERE clause and its parameters; $1 is always the organization.
export class Where {
  readonly params: unknown[];
  private readonly parts: string[];
  /**
   * `opaqueOrg`: the organization is compared as `(select $1::text)`, a value the planner cannot see, so that every
   * organization gets the same estimates. Postgres keeps a prepared statement's generic plan only when it is
   * estimated no dearer than the custom plans were; for the largest organization of a table a custom plan is
   * always estimated cheaper (more rows match, so a LIMIT is reached sooner), and the statement would be
   * re-planned on every execution even when every value wants the same plan. For statements whose plan is chosen
   * in code (see searchWalks).
   */
  constructor(orgColumn: string, orgId: string, opaqueOrg = false) {
    this.params = [orgId];
    this.parts = [opaqueOrg ? `${orgColumn} = (select $1::text)` : `${orgColumn} = $1`];
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
  /** The count statement of these conditions over `from`, with the parameters they have now. */
  count(from: string): Statement {
    return { sql: `select count(*)::int as total from ${from} where ${this}`, params: [...this.params] };
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
// "index" (LIKE): the trigram index may serve it, the planner chooses per value. "walk" (strpos, the same test
// that no index serves, on the folded text computed once per statement): each row of a walk of the sort index is
// tested, the fastest plan for a word that many rows hold (see searchWalks).
export function addSearch(
  where: Where,
  searchColumn: string,
  q: string | undefined,
  how: "index" | "walk" = "index",
): void {
  if (!q) return;
  if (how === "walk") where.and(`strpos(${searchColumn}, (select catalog_fold(?::text))) > 0`, q);
  else where.and(`${searchColumn} like catalog_fold(?)`, likeSubstring(q));
}

// Adds the updatedSince filter (inclusive): the (org, updated_at, id) index of each list serves it, so a recent
// instant reads only the rows changed since.
export function addUpdatedSince(where: Where, updatedAtColumn: string, since: string | undefined): void {
  if (since) where.and(`${updatedAtColumn} >= ?::timestamptz`, since);
}

// A resource's sortable fields: each public field name (the sort enum of its query) with its SQL column and the
// type the column's text form is cast back to when a deep page seeks from an anchor. One table per resource.
export type SortColumns = Record<string, { column: string; cast: "text" | "timestamptz" }>;

// The public names of a resource's sortable fields, in the table's order.
export function sortFields<S extends SortColumns>(columns: S): [keyof S & string, ...(keyof S & string)[]] {
  return Object.keys(columns) as [keyof S & string, ...(keyof S & string)[]];
}

// ORDER BY for sort keys, with the id as the last tie-breaker (in the first key's direction, so one index serves both).
export function orderBy<S extends SortColumns>(
  sort: readonly SortKey<keyof S & string>[],
  columns: S,
  idColumn: string,
): string {
  const parts = sort.map((k) => `${columns[k.field]!.column} ${k.order}`);
  parts.push(`${idColumn} ${sort[0]?.order ?? "asc"}`);
  return parts.join(", ");
}

// Which objects of an organization to read whole (the export's batches, the change feed's items): these ids, or the
// next `limit` in id order after an id ('' for the first).
export type Selection = { ids: readonly string[] } | { after: string; limit: number };

// The condition, order and limit of a selection on a table's id column (after `where … and`), and its parameters
// from $2 ($1 is the organization).
export function selectionSql(idColumn: string, sel: Selection): Statement {
  return "ids" in sel
    ? { sql: `${idColumn} = any($2::text[]) order by ${idColumn}`, params: [sel.ids] }
    : { sql: `${idColumn} > $2 order by ${idColumn} limit $3`, params: [sel.after, sel.limit] };
}
