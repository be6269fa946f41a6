import "server-only";
import { BACKGROUND_STATEMENT_TIMEOUT_MS, type Database, type Queryable } from "@/db/client";
import { BackgroundTimer } from "@/lib/background-timer";
import type { CatalogContext } from "@/lib/catalog/context";
import { readProductDetails } from "@/lib/catalog/resources/product-detail";
import { selectionSql, type Selection } from "@/lib/catalog/sql";

// Products' documents (migration 0019): each product's detail kept as the JSON text the API answers, so that an
// export and the change feed serve stored text instead of building each product anew, which is several times slower
// than an export needs (measured: bench/README.md#products-documents). A document is used only where the change log
// proves it current in the reader's own snapshot: no event of its product after the document's cursor. Whatever the
// refresher's delay, a reader serves what a fresh read would.

// Events after the mark a reader checks at most (an export: once; a feed page: FEED_CHECK_MAX, each page): beyond
// them the refresher is far behind, and products are read anew.
export const DOCUMENT_CHECK_MAX = 50_000;
export const FEED_CHECK_MAX = 5_000;

// Events after the mark from which a build is cheaper than rewriting each changed product's document.
export const DOCUMENT_REBUILD_EVENTS = 200_000;

// Products a refresher's transaction writes at most.
export const DOCUMENT_BATCH = 2_000;

// What a reader knows of an organization's documents in its snapshot: the products changed after the mark, with the
// cursor of their last change (a document older than that is stale).
export interface DocumentView {
  readonly changed: ReadonlyMap<string, bigint>;
}

// The events of products of the organization ($1) after the cursor $2 (id, cursor), for the readers' check and the
// refresher's steps. The commits after a mark start after it (a mark is a head: heads move by whole commits), read
// by their primary key, and each one's events by theirs: the work is the events after the mark, whatever the feed
// holds before it. The per-commit read is kept apart from the join (offset 0): joined plainly, the planner, which
// expects few product events, hashed every event of the organization to find them: a cost that grows with the
// feed, on each of the refresher's steps. Measured: bench/README.md#products-documents
const PRODUCT_EVENTS_AFTER = `select ch.id, cm.first_cursor + (ch.ordinal - cm.ord_from) as cursor
      from catalog_change_commits cm
     cross join lateral (
       select ordinal, id from catalog_changes
        where org_id = cm.org_id and txid = cm.txid and ordinal between cm.ord_from and cm.ord_to
          and type = 'products'
       offset 0) ch
     where cm.org_id = $1 and cm.last_cursor > $2::bigint`;

// The products changed after the cursor $2, each with its last cursor, from at most $3 events; `events` says how
// many were read (at $3 the set may be cut).
const CHANGED_SQL = `with e as (${PRODUCT_EVENTS_AFTER} limit $3)
  select id, max(cursor)::text as cursor, (select count(*) from e)::int as events from e group by id`;

// Reads the products changed after `mark` (at most `max` events); undefined when there are more.
async function changedAfter(
  db: Queryable,
  orgId: string,
  mark: string,
  max: number,
): Promise<Map<string, bigint> | undefined> {
  const rows = await db.query<{ id: string; cursor: string; events: number }>(CHANGED_SQL, [
    orgId,
    mark,
    max,
  ]);
  if ((rows[0]?.events ?? 0) >= max) return undefined;
  return new Map(rows.map((r) => [r.id, BigInt(r.cursor)]));
}

// The organization's documents as a reader may use them in its snapshot (the retention's `floor` of that snapshot),
// or undefined when none may be: none built yet, built for another base URL, or the refresher too far behind.
export async function documentView(
  db: Queryable,
  orgId: string,
  baseUrl: string,
  floor: string,
  maxEvents = DOCUMENT_CHECK_MAX,
): Promise<DocumentView | undefined> {
  const [m] = await db.query<{ mark: string | null; base_url: string }>(
    "select mark::text as mark, base_url from catalog_product_document_marks where org_id = $1",
    [orgId],
  );
  if (!m || m.mark === null || m.base_url !== baseUrl || BigInt(floor) > BigInt(m.mark)) return undefined;
  const changed = await changedAfter(db, orgId, m.mark, maxEvents);
  return changed && { changed };
}

// A product's line of an export, or its item in the feed: its detail's JSON.
export interface ProductLine {
  id: string;
  json: string;
}

// Products of the organization read whole as JSON text, in id order (the selection's): each from its document where
// the view proves it current, else read anew (readProductDetails). Without a view, every one is read anew.
export async function readProductLines(
  ctx: CatalogContext,
  org: { id: string; slug: string },
  sel: Selection,
  baseUrl: string,
  view: DocumentView | undefined,
): Promise<ProductLine[]> {
  if (!view) return fresh(ctx, org, sel, baseUrl);
  const s = selectionSql("p.id", sel);
  const rows = await ctx.db.query<{ id: string; cursor: string | null; body: string | null }>(
    `select p.id, d.cursor::text as cursor, d.body
       from products p
       left join catalog_product_documents d on d.org_id = p.org_id and d.id = p.id
      where p.org_id = $1 and ${s.sql}`,
    [org.id, ...s.params],
  );
  const stale = new Set(
    rows
      .filter((r) => r.body === null || (view.changed.get(r.id) ?? -1n) > BigInt(r.cursor!))
      .map((r) => r.id),
  );
  if (stale.size === 0) return rows.map((r) => ({ id: r.id, json: r.body! }));
  const read = new Map((await fresh(ctx, org, { ids: [...stale] }, baseUrl)).map((l) => [l.id, l.json]));
  // A product read anew that is gone meanwhile cannot be: one snapshot (a caller outside one may lose it: skipped).
  return rows.flatMap((r) => {
    const json = stale.has(r.id) ? read.get(r.id) : r.body!;
    return json === undefined ? [] : [{ id: r.id, json }];
  });
}

// Products read anew and serialized.
async function fresh(
  ctx: CatalogContext,
  org: { id: string; slug: string },
  sel: Selection,
  baseUrl: string,
): Promise<ProductLine[]> {
  return (await readProductDetails(ctx, org, sel, baseUrl)).map((p) => ({
    id: p.id,
    json: JSON.stringify(p),
  }));
}

// The refresher's mark row.
interface Mark {
  mark: string | null;
  base_url: string;
  build_after: string | null;
  build_mark: string | null;
}

// What a step did: wrote and has more to do (a build's batch, a full batch of changes), wrote and brought the mark to
// the head it read (caught-up), nothing to do (idle), or another refresher holds the organization (busy).
export type RefreshStep = "wrote" | "caught-up" | "idle" | "busy";

// One step of the refresher for one organization, in one repeatable-read transaction (one snapshot: the documents it
// writes carry that snapshot's head as their cursor): a batch of a build when one is under way (or due), else the
// documents of the products changed after the mark, then the mark moved to the head. Two instances never work on one
// organization at once (a transaction advisory lock; the other's step is "busy").
export async function refreshProductDocuments(
  db: Pick<Database, "transaction">,
  ctx: CatalogContext,
  org: { id: string; slug: string },
  baseUrl: string,
  batch = DOCUMENT_BATCH,
  rebuildEvents = DOCUMENT_REBUILD_EVENTS,
): Promise<RefreshStep> {
  return db.transaction(
    async (tx) => {
      await tx.query("set transaction isolation level repeatable read");
      const [lock] = await tx.query<{ locked: boolean }>(
        "select pg_try_advisory_xact_lock(hashtext('catalog_product_documents'), hashtext($1)) as locked",
        [org.id],
      );
      if (!lock?.locked) return "busy";
      const [state] = await tx.query<{ head: string; floor: string }>(
        `select coalesce((select head from catalog_change_heads where org_id = $1), 0)::text as head,
              coalesce((select floor from catalog_change_floors where org_id = $1), 0)::text as floor`,
        [org.id],
      );
      const { head, floor } = state!;
      const inTx: CatalogContext = { ...ctx, db: tx };
      const write = async (lines: ProductLine[]) => {
        if (lines.length === 0) return;
        await tx.query(
          `insert into catalog_product_documents (org_id, id, cursor, body)
         select $1, t.id, $2::bigint, t.body from unnest($3::text[], $4::text[]) t(id, body)
         on conflict (org_id, id) do update set cursor = excluded.cursor, body = excluded.body`,
          [org.id, head, lines.map((l) => l.id), lines.map((l) => l.json)],
        );
      };
      const setMark = (m: Partial<Mark>) =>
        tx.query(
          `insert into catalog_product_document_marks (org_id, base_url, mark, build_after, build_mark)
         values ($1, $2, $3::bigint, $4, $5::bigint)
         on conflict (org_id) do update set base_url = excluded.base_url, mark = excluded.mark,
           build_after = excluded.build_after, build_mark = excluded.build_mark`,
          [org.id, baseUrl, m.mark ?? null, m.build_after ?? null, m.build_mark ?? null],
        );
      let [m] = await tx.query<Mark>(
        `select mark::text as mark, base_url, build_after, build_mark::text as build_mark
         from catalog_product_document_marks where org_id = $1`,
        [org.id],
      );
      // Documents that cannot be checked (another base URL in their links, or events after their mark pruned) are
      // used no more (mark null) until a build has written every product's again: one of a deleted product stays, never
      // read (a reader starts from the products). A first build begins with none.
      if (!m || m.base_url !== baseUrl || (m.mark !== null && BigInt(floor) > BigInt(m.mark))) {
        m = { mark: null, base_url: baseUrl, build_after: "", build_mark: head };
        await setMark(m);
      }
      if (m.build_after !== null) {
        const lines = await fresh(inTx, org, { after: m.build_after, limit: batch }, baseUrl);
        await write(lines);
        // The build's last batch: every product had its document written after build_mark, so the mark is that.
        if (lines.length < batch) await setMark({ mark: m.build_mark });
        else await setMark({ ...m, build_after: lines[lines.length - 1]!.id });
        return "wrote";
      }
      if (BigInt(head) <= BigInt(m.mark!)) return "idle";
      // Too many changes since the mark: a build rewrites every document, batch by batch (cheaper than checking
      // each change); readers meanwhile check the changes after the old mark (too many: they read products anew).
      const [many] = await tx.query<{ n: number }>(
        `select count(*)::int as n from (${PRODUCT_EVENTS_AFTER} limit $3) e`,
        [org.id, m.mark, rebuildEvents],
      );
      if (many!.n >= rebuildEvents) {
        await setMark({ mark: m.mark, build_after: "", build_mark: head });
        return "wrote";
      }
      // The next batch of products whose document is older than their last change (or missing while the product
      // is there; or there while the product is not), in id order. Each step rewrites its batch at its head, so
      // what it did drops out of the next step's; the step that finds less than a batch has seen every change up
      // to its head: that is the mark.
      const due = await tx.query<{ id: string }>(
        `with e as (select id, max(cursor) as cursor from (${PRODUCT_EVENTS_AFTER}) x group by id)
         select e.id from e
           left join catalog_product_documents d on d.org_id = $1 and d.id = e.id
          where d.cursor < e.cursor
             or (d.cursor is null and exists (select 1 from products p where p.org_id = $1 and p.id = e.id))
          order by e.id
          limit $3`,
        [org.id, m.mark, batch],
      );
      const ids = due.map((r) => r.id);
      const lines = await fresh(inTx, org, { ids }, baseUrl);
      await write(lines);
      const present = new Set(lines.map((l) => l.id));
      const gone = ids.filter((id) => !present.has(id));
      if (gone.length)
        await tx.query("delete from catalog_product_documents where org_id = $1 and id = any($2::text[])", [
          org.id,
          gone,
        ]);
      if (ids.length === batch) return "wrote";
      await setMark({ mark: head });
      return "caught-up";
    },
    { statementTimeoutMs: BACKGROUND_STATEMENT_TIMEOUT_MS },
  );
}

// How often the refresher looks for organizations whose documents are behind their feed (one statement for all).
export const REFRESH_EVERY_MS = 1_000;

// The organizations whose documents are due: none yet, another base URL ($1), a build under way, or a feed head past
// the mark.
const DUE_SQL = `select o.id, o.slug
  from organizations o
  left join catalog_change_heads h on h.org_id = o.id
  left join catalog_product_document_marks m on m.org_id = o.id
 where m.org_id is null or m.base_url <> $1 or m.build_after is not null or coalesce(h.head, 0) > coalesce(m.mark, -1)
 order by o.id`;

// The runtime's refresher: every REFRESH_EVERY_MS (BackgroundTimer), the organizations due, each brought up to its
// head by steps (refreshProductDocuments), the event loop given back between steps so that requests go on during a
// build. An organization caught up with the head its step read waits for the next tick: commits that keep coming do
// not keep it stepping (measured: bench/README.md#products-documents). A failure is logged and
// the next tick tries again.
export class DocumentRefresher {
  private readonly timer: BackgroundTimer;

  constructor(
    private readonly open: () => Promise<Database>,
    private readonly ctx: () => Promise<CatalogContext>,
    private readonly baseUrl: string,
    everyMs = REFRESH_EVERY_MS,
  ) {
    this.timer = new BackgroundTimer(() => this.runOnce(), { firstMs: 0, everyMs });
  }

  /** Plans the first tick (once; a second start does nothing). */
  start(): void {
    this.timer.start();
  }

  /** Cancels the next tick and waits for one under way (which ends after its current step). */
  async stop(): Promise<void> {
    await this.timer.stop();
  }

  /** One tick now: every organization due brought up to its head (steps taken; after a failure, logged, those so far). */
  async runOnce(): Promise<number> {
    let steps = 0;
    try {
      const db = await this.open();
      const ctx = await this.ctx();
      for (const org of await db.query<{ id: string; slug: string }>(DUE_SQL, [this.baseUrl])) {
        // Ends early once the timer is stopped (the runtime closes).
        while (!this.timer.stopping) {
          const step = await refreshProductDocuments(db, ctx, org, this.baseUrl);
          if (step === "wrote" || step === "caught-up") steps++;
          if (step !== "wrote") break;
          await new Promise((r) => setImmediate(r));
        }
      }
    } catch (err) {
      console.error("[documents] refresh failed; it runs again later:", (err as Error).message);
    }
    return steps;
  }
}
