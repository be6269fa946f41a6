// The mirror's tables in the target database: a schema of their own, one table per resource (the item as the API
// reads it, with a few columns of it for SQL), and the feed's state (its cursor, where it comes from) in a table of
// its own. SQL that Postgres 15 and PGlite both run.
import type { Queryable } from "@/db/database";

// The resources a mirror holds, the smallest first: the first export gives the cursor the feed is followed from
// (every later export reads a later snapshot, so following from it misses nothing).
export const MIRROR_RESOURCES = [
  "channels",
  "products",
  "families",
  "attributes",
  "categories",
  "media",
] as const;

// One of the resources a mirror holds (the export's and the feed's `type`).
export type MirrorResource = (typeof MIRROR_RESOURCES)[number];

// The schema the tables go in unless `--schema` names another.
export const DEFAULT_SCHEMA = "catalog_mirror";

// The columns of each resource's table beside id, item and updated_at, each with the expression that reads it from
// the item (`x`, jsonb).
const EXTRA_COLUMNS: Readonly<Record<MirrorResource, readonly { name: string; from: string }[]>> = {
  products: [
    { name: "identifier", from: "x->>'identifier'" },
    { name: "family_id", from: "x->'family'->>'id'" },
    { name: "category_id", from: "x->'category'->>'id'" },
  ],
  families: [{ name: "code", from: "x->>'code'" }],
  attributes: [{ name: "code", from: "x->>'code'" }],
  categories: [{ name: "parent_id", from: "x->>'parentId'" }],
  media: [{ name: "type", from: "x->>'type'" }],
  channels: [{ name: "code", from: "x->>'code'" }],
};

// A schema name the command accepts: a plain lower-case SQL identifier.
export function validSchemaName(name: string): boolean {
  return /^[a-z_][a-z0-9_]{0,62}$/.test(name);
}

// The tables of a mirror in one schema: their DDL and the statements that write them.
export class MirrorTables {
  readonly schema: string;

  constructor(schema: string) {
    if (!validSchemaName(schema)) throw new Error(`not a schema name: ${schema}`);
    this.schema = schema;
  }

  /** A table of the schema, quoted. */
  table(name: MirrorResource | "feed_state"): string {
    return `"${this.schema}"."${name}"`;
  }

  /** Creates the schema and its tables when absent. */
  async create(db: Queryable): Promise<void> {
    await db.query(`create schema if not exists "${this.schema}"`);
    for (const r of MIRROR_RESOURCES) {
      const extra = EXTRA_COLUMNS[r].map((c) => `, ${c.name} text`).join("");
      await db.query(
        `create table if not exists ${this.table(r)} (id text primary key, item jsonb not null, ` +
          `updated_at timestamptz${extra})`,
      );
    }
    // One row: the feed's cursor the tables are at, what they mirror, when the last event applied committed.
    await db.query(
      `create table if not exists ${this.table("feed_state")} (
         singleton boolean primary key default true check (singleton),
         base_url text not null,
         key_prefix text not null,
         cursor text not null,
         loaded_at timestamptz not null,
         events_applied bigint not null default 0,
         last_event_at timestamptz,
         applied_at timestamptz)`,
    );
  }

  /** Whether the schema's state table exists (a mirror was loaded there, or is being loaded). */
  async exists(db: Queryable): Promise<boolean> {
    const [row] = await db.query<{ t: string | null }>("select to_regclass($1)::text as t", [
      this.table("feed_state"),
    ]);
    return !!row?.t;
  }

  /** The stored state, or undefined when the tables are absent or were never loaded. */
  async state(db: Queryable): Promise<MirrorState | undefined> {
    if (!(await this.exists(db))) return undefined;
    const [row] = await db.query<MirrorState>(
      `select base_url as "baseUrl", key_prefix as "keyPrefix", cursor, events_applied::int as "eventsApplied",
              to_char(last_event_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "lastEventAt"
         from ${this.table("feed_state")}`,
    );
    return row;
  }

  /** Empties every resource's table and the state (a load starts over). */
  async truncate(db: Queryable): Promise<void> {
    const all = [...MIRROR_RESOURCES.map((r) => this.table(r)), this.table("feed_state")];
    await db.query(`truncate ${all.join(", ")}`);
  }

  /** Puts items of one resource by id (a JSON array of them in one parameter: one statement per batch). */
  async upsert(db: Queryable, resource: MirrorResource, itemsJson: string): Promise<void> {
    const extra = EXTRA_COLUMNS[resource];
    const names = ["id", "item", "updated_at", ...extra.map((c) => c.name)];
    const values = ["x->>'id'", "x", "(x->>'updatedAt')::timestamptz", ...extra.map((c) => c.from)];
    await db.query(
      `insert into ${this.table(resource)} (${names.join(", ")})
       select ${values.join(", ")} from jsonb_array_elements($1::jsonb) as x
       on conflict (id) do update set ${names
         .slice(1)
         .map((n) => `${n} = excluded.${n}`)
         .join(", ")}`,
      [itemsJson],
    );
  }

  /** Removes items of one resource by id. */
  async remove(db: Queryable, resource: MirrorResource, ids: readonly string[]): Promise<void> {
    await db.query(`delete from ${this.table(resource)} where id = any($1::text[])`, [ids]);
  }

  /** Writes the state after a load: the cursor to follow from, what is mirrored. */
  async writeLoaded(db: Queryable, s: { baseUrl: string; keyPrefix: string; cursor: string }): Promise<void> {
    await db.query(`delete from ${this.table("feed_state")}`);
    await db.query(
      `insert into ${this.table("feed_state")} (base_url, key_prefix, cursor, loaded_at) values ($1, $2, $3, now())`,
      [s.baseUrl, s.keyPrefix, s.cursor],
    );
  }

  /** Moves the state on after a page of the feed: its cursor, how many events, the last one's time. */
  async writeApplied(
    db: Queryable,
    s: { cursor: string; events: number; lastEventAt: string | undefined; keyPrefix: string },
  ): Promise<void> {
    await db.query(
      `update ${this.table("feed_state")}
          set cursor = $1, events_applied = events_applied + $2,
              last_event_at = coalesce($3::timestamptz, last_event_at), applied_at = now(), key_prefix = $4`,
      [s.cursor, s.events, s.lastEventAt ?? null, s.keyPrefix],
    );
  }

  /** How many items each table holds. */
  async counts(db: Queryable): Promise<Record<MirrorResource, number>> {
    const selects = MIRROR_RESOURCES.map((r) => `(select count(*)::int from ${this.table(r)}) as "${r}"`);
    const [row] = await db.query<Record<MirrorResource, number>>(`select ${selects.join(", ")}`);
    return row!;
  }
}

// The stored state of a mirror.
export interface MirrorState {
  baseUrl: string;
  keyPrefix: string;
  cursor: string;
  eventsApplied: number;
  lastEventAt: string | null;
}
