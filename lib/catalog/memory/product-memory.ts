import "server-only";
import {
  BACKGROUND_STATEMENT_TIMEOUT_MS,
  setLocalSql,
  sqlLiteral,
  type Database,
  type Executor,
  type LocalSettings,
  type Queryable,
} from "@/db/client";
import { BoundedMap } from "@/lib/bounded-map";
import {
  INDEXED_SORTS,
  ProductIndex,
  type IndexedSort,
  type LoadRow,
  type ProductKeyRow,
} from "./product-index";

// The products of the biggest organizations kept in memory (ProductIndex), each caught up with its change feed
// before it answers: a deep page, an unfiltered total or a filter's total is then read without walking or counting
// a million rows. An organization's index is built in the background once one of its lists counted at least
// `minProducts` (CATALOG_MEMORY_MIN_PRODUCTS), from one snapshot (repeatable read) with the feed's head of that
// snapshot; the indexes together hold at most `maxProducts` (CATALOG_MEMORY_MAX_PRODUCTS; the least recently used
// organization goes first). An answer from an index is exact: the index answers at a cursor at or past the feed's
// head read for the request (memory-page.ts: heldPage, or relabelledPage for a page read in a channel).
// Measured: bench/README.md#products-in-memory

export interface ProductMemoryOptions {
  maxProducts: number;
  minProducts: number;
  /** Search texts a filtered page may test along an order (ProductIndex's `walkChecks`; its default otherwise). */
  walkChecks?: number;
  /** Where a failed build is told (none: silent). */
  log?: (message: string) => void;
}

// Past this many events since an index's cursor, it is built anew in the background rather than caught up in a
// request (a family relabelled logs each of its products).
const CATCH_UP_MAX_EVENTS = 20_000;
// Rows of one statement of a build (each batch read by keyset in the build's snapshot).
const BUILD_BATCH = 10_000;
// After a failed build, an organization is not tried again for this long.
const RETRY_AFTER_MS = 60_000;

// The feed's head and floor of the organization in $1.
const HEAD_SQL = `select coalesce((select head from catalog_change_heads where org_id = $1), 0)::text as head,
  coalesce((select floor from catalog_change_floors where org_id = $1), 0)::text as floor`;

// The feed's head as a column of another statement on the organization in $1 (one snapshot with its rows).
export const FEED_HEAD_COLUMN =
  "coalesce((select head from catalog_change_heads where org_id = $1), 0)::text as feed_head";

// The labels of a product's family and category (alias p) as the columns family_label and category_label: scalar
// subqueries, evaluated for the rows read only (one relation to plan instead of a join of three).
export const PRODUCT_LABELS_COLUMNS = `(select f.label from families f where f.org_id = p.org_id and f.id = p.family_id) as family_label,
  (select c.label from categories c where c.org_id = p.org_id and c.id = p.category_id) as category_label`;

// A product's keys and item columns (alias p) as ProductKeyRow.
const KEY_COLUMNS = `p.id, p.identifier, p.search, p.label_sort,
  (extract(epoch from p.updated_at) * 1000)::float8 as updated_ms, p.status, p.family_id, p.category_id, p.label,
  ${PRODUCT_LABELS_COLUMNS}`;

// The products changed after the cursor $2 (their current keys, or none: gone), with the snapshot's head and floor,
// when at most $3 events came since; `events` says how many did.
const CATCH_UP_SQL = `with s as (${HEAD_SQL}),
  c as (select txid, ord_from, ord_to, last_cursor - first_cursor + 1 as n
          from catalog_change_commits where org_id = $1 and last_cursor > $2::bigint),
  k as (select coalesce(sum(n), 0)::int as events from c),
  ids as (select distinct ch.id
            from c join catalog_changes ch
              on ch.org_id = $1 and ch.txid = c.txid and ch.ordinal between c.ord_from and c.ord_to
           where ch.type = 'products' and (select events from k) <= $3)
select s.head, s.floor, (select events from k) as events, ids.id as changed, p.id is not null as present,
       ${KEY_COLUMNS.replace("p.id, ", "")}
  from s left join ids on true left join products p on p.org_id = $1 and p.id = ids.id`;

// The column each sort orders by (the id last), and a product's position (from 0) in each sort's ascending order,
// as the lists' statements sort (alias p).
const SORT_COLUMN: Record<IndexedSort, string> = {
  updatedAt: "updated_at",
  label: "label_sort",
  identifier: "identifier",
  status: "status",
};
const POSITION_COLUMNS = INDEXED_SORTS.map(
  (s) => `(row_number() over (order by p.${SORT_COLUMN[s]}, p.id) - 1)::int as "at_${s}"`,
).join(",\n  ");

// What the memory reads with: a request's database handle and its row-security settings (a catalog context).
export interface MemoryReader {
  db: Queryable;
  rowSecurity?: LocalSettings;
}

export class ProductMemory {
  private readonly indexes = new Map<string, ProductIndex>();
  private readonly building = new Set<string>();
  private readonly catchingUp = new Map<string, Promise<ProductIndex | undefined>>();
  private readonly failed = new Map<string, number>();
  private readonly folds = new BoundedMap<string, string>(10_000);
  private queue: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly database: () => Promise<Database>,
    readonly options: ProductMemoryOptions,
  ) {}

  /** Whether indexes are kept at all. */
  get enabled(): boolean {
    return this.options.maxProducts > 0;
  }

  /** The organization's index as it is (possibly behind its feed), or none. */
  index(orgId: string): ProductIndex | undefined {
    const idx = this.indexes.get(orgId);
    if (idx) {
      this.indexes.delete(orgId);
      this.indexes.set(orgId, idx);
    }
    return idx;
  }

  /** What the indexes hold: organizations, products, approximate bytes. */
  stats(): { organizations: number; products: number; approximateBytes: number } {
    let products = 0;
    let approximateBytes = 0;
    for (const idx of this.indexes.values()) {
      products += idx.size;
      approximateBytes += idx.approximateBytes();
    }
    return { organizations: this.indexes.size, products, approximateBytes };
  }

  /**
   * A list of the organization counted `total` products: builds its index in the background when it is big enough,
   * fits the bound and has none (one build at a time in the process).
   */
  consider(ctx: MemoryReader, orgId: string, total: number): void {
    if (!this.enabled || this.closed || total < this.options.minProducts || total > this.options.maxProducts)
      return;
    if (this.indexes.has(orgId) || this.building.has(orgId)) return;
    if ((this.failed.get(orgId) ?? 0) > Date.now()) return;
    this.building.add(orgId);
    this.queue = this.queue
      .then(() => (this.closed ? undefined : this.build(ctx, orgId)))
      .catch((err: unknown) => {
        this.failed.set(orgId, Date.now() + RETRY_AFTER_MS);
        this.options.log?.(`products in memory: ${orgId} not kept (${(err as Error).message})`);
      })
      .finally(() => this.building.delete(orgId));
  }

  /** The organization's index caught up to exactly `head` (a statement's feed head), or none. */
  async at(ctx: MemoryReader, orgId: string, head: string): Promise<ProductIndex | undefined> {
    const idx = this.indexes.get(orgId);
    if (!idx) return undefined;
    if (idx.cursor === head) return idx;
    if (BigInt(idx.cursor) > BigInt(head)) return undefined;
    const caught = await this.catchUp(ctx, orgId);
    return caught?.cursor === head ? caught : undefined;
  }

  /** Applies the organization's changes since its index's cursor (one catch-up at a time per organization). */
  catchUp(ctx: MemoryReader, orgId: string): Promise<ProductIndex | undefined> {
    const running = this.catchingUp.get(orgId);
    if (running) return running;
    const p = this.readChanges(ctx, orgId).finally(() => this.catchingUp.delete(orgId));
    this.catchingUp.set(orgId, p);
    return p;
  }

  /** Resolves once the builds asked so far are done (or failed). */
  settled(): Promise<void> {
    return this.queue;
  }

  /** The organization's feed head now. */
  async head(ctx: MemoryReader, orgId: string): Promise<string> {
    const [row] = await ctx.db.query<{ head: string }>(HEAD_SQL, [orgId]);
    return String(row?.head ?? "0");
  }

  /** catalog_fold of a search term (one statement the first time a process sees the term). */
  async fold(db: Queryable, q: string): Promise<string> {
    const kept = this.folds.get(q);
    if (kept !== undefined) return kept;
    const [row] = await db.query<{ f: string }>("select catalog_fold($1::text) as f", [q]);
    const f = String(row?.f ?? "");
    this.folds.set(q, f);
    return f;
  }

  /** Drops every index (tests, a runtime closed). */
  close(): void {
    this.closed = true;
    this.indexes.clear();
  }

  private async readChanges(ctx: MemoryReader, orgId: string): Promise<ProductIndex | undefined> {
    const idx = this.indexes.get(orgId);
    if (!idx) return undefined;
    const rows = await ctx.db.query<
      ProductKeyRow & {
        head: string;
        floor: string;
        events: number;
        changed: string | null;
        present: boolean;
      }
    >(CATCH_UP_SQL, [orgId, idx.cursor, CATCH_UP_MAX_EVENTS]);
    const first = rows[0];
    if (!first || this.indexes.get(orgId) !== idx) return undefined;
    if (first.head === idx.cursor) return idx;
    if (BigInt(first.floor) > BigInt(idx.cursor) || first.events > CATCH_UP_MAX_EVENTS) {
      // Too far behind to catch up here: built anew from a snapshot, the plain statements answer meanwhile.
      this.indexes.delete(orgId);
      this.consider(ctx, orgId, idx.size);
      return undefined;
    }
    const changed = new Map<string, ProductKeyRow | null>();
    for (const r of rows) {
      if (r.changed !== null) changed.set(r.changed, r.present ? { ...r, id: r.changed } : null);
    }
    idx.apply(changed, first.head);
    return idx;
  }

  // Reads the organization's products from one snapshot and keeps their index, within the bound.
  private async build(ctx: MemoryReader, orgId: string): Promise<void> {
    const db = await this.database();
    const idx = await db.transaction(
      async (tx) => {
        await tx.query("set transaction isolation level repeatable read, read only");
        if (ctx.rowSecurity) await tx.query(setLocalSql(ctx.rowSecurity));
        const [state] = await tx.query<{ head: string }>(HEAD_SQL, [orgId]);
        const built = new ProductIndex(state!.head, { walkChecks: this.options.walkChecks });
        await everyProduct(tx, orgId, (rows) => {
          if (built.size + rows.length > this.options.maxProducts)
            throw new Error("over CATALOG_MEMORY_MAX_PRODUCTS");
          built.loadRows(rows);
        });
        if (built.size < this.options.minProducts) return undefined;
        built.finishLoad();
        return built;
      },
      { statementTimeoutMs: BACKGROUND_STATEMENT_TIMEOUT_MS },
    );
    if (!idx || this.closed) return;
    // Room within the bound: the least recently used organizations go.
    let held = idx.size;
    for (const other of this.indexes.values()) held += other.size;
    for (const [other, kept] of this.indexes) {
      if (held <= this.options.maxProducts) break;
      this.indexes.delete(other);
      held -= kept.size;
    }
    this.indexes.set(orgId, idx);
  }
}

// Every product's keys and positions in every order (the database sorts them, in one statement: the build's process
// then looks up no id, and places each product as it reads it), in batches given to `take`.
async function everyProduct(tx: Executor, orgId: string, take: (rows: LoadRow[]) => void): Promise<void> {
  await tx.query(
    `declare product_keys no scroll cursor for select ${KEY_COLUMNS}, ${POSITION_COLUMNS} from products p where p.org_id =${sqlLiteral(orgId).startsWith(" ") ? "" : " "}${sqlLiteral(orgId)}`,
  );
  for (;;) {
    const batch = await tx.query<LoadRow>(`fetch ${BUILD_BATCH} from product_keys`);
    for (const r of batch) r.updated_ms = Number(r.updated_ms);
    take(batch);
    if (batch.length < BUILD_BATCH) break;
    await new Promise((resolve) => setImmediate(resolve));
  }
  await tx.query("close product_keys");
}
