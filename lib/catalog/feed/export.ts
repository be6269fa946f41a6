import "server-only";
import { z } from "zod";
import { BACKGROUND_STATEMENT_TIMEOUT_MS, type Database, type Executor } from "@/db/client";
import { feedState } from "./changes";
import type { CatalogContext } from "@/lib/catalog/context";
import { ITEM_READERS, type Mirrored } from "@/lib/catalog/resources/items";
import { documentView, readProductLines, type ProductLine } from "./product-documents";
import { defineQuery, idParam, type QueryOf } from "@/lib/catalog/list/query-grammar";
import { applyRowSecurity } from "@/lib/catalog/row-security";

// The export (preview feature `export`): a whole resource of one organization read from one snapshot, in
// id order, batch by batch, with the change feed's head of that same snapshot. Every change committed before the
// snapshot is in the items read and has a cursor up to that head; every change committed after it has a later
// cursor (migration 0016 gives cursors at commit, under the head's lock). So the export, then the feed from that
// cursor, is the catalog.

// The query of an export: where to resume.
export const exportQuery = defineQuery({
  after: idParam(
    "Resume an export that was cut: only the items whose `id` comes after this one (the `id` of the last line received), in the same id order.",
  ),
});
export type ExportQuery = QueryOf<typeof exportQuery>;

// The last line of an export: the mark that it is whole, the feed cursor of its snapshot, how many items it had.
export const exportEndSchema = z
  .object({
    end: z
      .literal(true)
      .meta({ description: "Always true: the export is whole (a stream without it was cut)." }),
    cursor: z.string().regex(/^\d+$/).meta({
      description:
        "The change feed's position of the export's snapshot: the feed from this cursor carries every change made since.",
      example: "5271",
    }),
    count: z
      .number()
      .int()
      .min(0)
      .meta({ description: "Items in this answer (after `after`).", example: 3000 }),
  })
  .strict()
  .meta({ description: "The last line of an export." });
export type ExportEnd = z.infer<typeof exportEndSchema>;

// Items read per statement: a batch of 1,000 products read whole is about 0.8 MB of JSON, read in well under a second
// even on rows just bulk loaded. The memory of an export stays that of two batches (one read ahead) whatever its
// size. Measured: bench/README.md#feed-and-export-statements
export const EXPORT_BATCH = 1_000;

// An export under way: its snapshot's feed head, its next batch, its end.
export interface ExportSnapshot {
  /** The organization's change-feed head in the snapshot: the feed from this cursor continues the export. */
  readonly cursor: string;
  /** The next items in id order, each as its line's JSON; none once the resource is read to its end. */
  next(): Promise<string[]>;
  /** Ends the snapshot's transaction and releases its connection (again: nothing); `error`: the connection failed
   * and is dropped rather than reused. */
  close(error?: unknown): Promise<void>;
}

// Opens the snapshot of an export: a read-only repeatable-read transaction (one snapshot for every statement) on a
// connection of its own, held until close(). Its first statement reads the feed head, so that the head and every
// batch see the same commits. Products come from their documents where the change log proves them current in this
// snapshot (lib/catalog/feed/product-documents.ts), else are read anew. While the client takes a batch, the next one is
// already being read (one batch ahead, no more: memory stays two batches whatever the resource's size), so that the
// database and the serving process work at the same time. On PGlite (one connection) the transaction holds the
// database for the export's length: other requests wait until it ends (the embedded demo's trade-off; a Postgres
// server gives it a pooled connection of its own).
export async function openExport(
  db: Pick<Database, "transaction">,
  ctx: CatalogContext,
  org: { id: string; slug: string },
  resource: Mirrored,
  q: ExportQuery,
  baseUrl: string,
): Promise<ExportSnapshot> {
  const { tx, end } = await holdTransaction(db, { statementTimeoutMs: BACKGROUND_STATEMENT_TIMEOUT_MS });
  try {
    await tx.query("set transaction isolation level repeatable read, read only");
    await applyRowSecurity(ctx, tx);
    const { head, floor } = await feedState({ ...ctx, db: tx }, org.id);
    const inTx: CatalogContext = { ...ctx, db: tx };
    const view = resource === "products" ? await documentView(tx, org.id, baseUrl, floor) : undefined;
    const read = async (after: string): Promise<ProductLine[]> =>
      resource === "products"
        ? readProductLines(inTx, org, { after, limit: EXPORT_BATCH }, baseUrl, view)
        : (await ITEM_READERS[resource](inTx, org, { after, limit: EXPORT_BATCH }, baseUrl)).map((i) => ({
            id: i.id,
            json: JSON.stringify(i),
          }));
    // A batch read: its lines and the id the next one starts after (undefined: the resource is read to its end).
    type Batch = { lines: string[]; after?: string };
    const batch = async (after: string): Promise<Batch> => {
      const lines = await read(after);
      return {
        lines: lines.map((l) => l.json),
        after: lines.length === EXPORT_BATCH ? lines[lines.length - 1]!.id : undefined,
      };
    };
    // A failure of a batch read ahead is the next call's (never an unhandled rejection when the client has gone).
    const ahead = (p: Promise<Batch>) => (p.catch(() => undefined), p);
    let pending: Promise<Batch> | undefined = ahead(batch(q.after ?? ""));
    let closed = false;
    return {
      cursor: head,
      next: async () => {
        if (!pending || closed) return [];
        const b = await pending;
        pending = b.after === undefined || closed ? undefined : ahead(batch(b.after));
        return b.lines;
      },
      // A batch still being read (the one read ahead when the client goes away) runs its statements one after the
      // other on this connection: the transaction ends after them, never between them, else the batch's next
      // statement would run on a connection back in the pool, inside another request's transaction (found by the
      // isolation sweep: another export's SET TRANSACTION then failed, a 500). No batch starts once closing.
      close: async (error) => {
        closed = true;
        await pending?.catch(() => undefined);
        await end(error);
      },
    };
  } catch (err) {
    await end(err);
    throw err;
  }
}

// A transaction kept open until `end` is called: Database.transaction runs a function, so the function waits for
// `end`. `end(error)` rolls it back and drops the connection; `end()` commits (nothing was written).
function holdTransaction(
  db: Pick<Database, "transaction">,
  opts: { statementTimeoutMs: number },
): Promise<{ tx: Executor; end: (error?: unknown) => Promise<void> }> {
  return new Promise((resolve, reject) => {
    let release!: (error: unknown) => void;
    const released = new Promise<unknown>((r) => (release = r));
    let opened = false;
    const done = db.transaction(async (tx) => {
      opened = true;
      resolve({
        tx,
        end: async (error) => {
          release(error);
          await done.catch(() => undefined);
        },
      });
      const error = await released;
      if (error !== undefined) throw error;
    }, opts);
    done.catch((err: unknown) => {
      if (!opened) reject(err);
    });
  });
}
