// The endpoint of the preview feature `export` (DESIGN §5): GET /public/v1/export/{resource}, a whole resource of the
// key's organization as NDJSON from one snapshot, its last line the change-feed cursor of that snapshot. The router
// serves it only while the feature is on; the OpenAPI document and the reference read this table.
import {
  exportQuery,
  openExport,
  type ExportEnd,
  type ExportQuery,
  type ExportSnapshot,
} from "@/lib/catalog/export";
import { MIRRORED, type Mirrored } from "@/lib/catalog/items";
import type { ReadScope } from "@/lib/keys/scopes";
import { getRuntime, type Runtime } from "@/lib/runtime";
import { PublicApiError } from "./api-errors";
import { CHANNELS_ENDPOINT } from "./detail-endpoints";
import { ENDPOINTS } from "./endpoints";
import { EXPOSED, NDJSON } from "./headers";
import { ApiAnswer, type ApiContext } from "./pipeline";
import { apiState } from "./state";

// Exports one key may stream at once. An export holds a database connection for its length (the whole database on
// PGlite): a key that opens more waits for one to end rather than take the pool.
export const EXPORTS_PER_KEY = 2;
// Seconds a key over EXPORTS_PER_KEY is asked to wait: it cannot be known when an export ends.
export const EXPORT_RETRY_AFTER = 5;
// A client that reads nothing for this long loses its export: the transaction ends and the connection goes back to
// the pool (a stalled reader must not hold the database's snapshot, and its connection, without end).
export const EXPORT_IDLE_MS = 60_000;

// The scope each exported resource needs: its list's, channels with any read scope (as GET /channels).
export function exportScope(resource: Mirrored): ReadScope | readonly ReadScope[] {
  return resource === "channels" ? CHANNELS_ENDPOINT.scope : ENDPOINTS[resource].scope;
}

// The endpoint: its path (the router answers 404 for a resource not in `resources`), query and handler.
export const EXPORT_ENDPOINT = {
  path: "/public/v1/export/{resource}" as const,
  resources: MIRRORED,
  summary: "Export a resource",
  description:
    'Streams every item of a resource of the key\'s organization as NDJSON (`application/x-ndjson`): one JSON object per line, in `id` order, each in the shape its resource\'s reads answer (products, families and attributes whole, as their detail reads; categories, media and channels as their list items), all read from one snapshot of the catalog. The last line is `{"end":true,"cursor":"…","count":…}`: `cursor` is the change feed\'s position of that snapshot (the feed from it carries every change made since), `count` the items of this answer. A stream without that line was cut: ask again with `after=<id of the last line>`.',
  query: exportQuery,
  scope: (params: Readonly<Record<string, string>>) => exportScope(params.resource as Mirrored),
  handler: (ctx: ApiContext<ExportQuery>) => exportAnswer(ctx, getRuntime()),
};

// The answer of an export: its snapshot opened (a failure to open it is still an error answer: 503, 500), then a
// 200 whose body streams it. The key's slot is taken first and given back when the stream ends, however it ends.
async function exportAnswer(ctx: ApiContext<ExportQuery>, rt: Runtime): Promise<ApiAnswer> {
  const release = takeSlot(rt.part(apiState).exports, ctx.key.id);
  let snapshot: ExportSnapshot;
  try {
    const db = await rt.db();
    const resource = ctx.params.resource as Mirrored;
    snapshot = await openExport(db, ctx.catalog, ctx.org, resource, ctx.query, ctx.config.baseUrl);
  } catch (err) {
    release();
    throw err;
  }
  const body = ndjsonStream(snapshot, { idleMs: EXPORT_IDLE_MS, requestId: ctx.requestId, onEnd: release });
  // The snapshot's cursor before its first line too: a client whose stream is cut has it all the same. A copy loaded
  // in several requests (resumed with `after`, or one per resource) follows the feed from the earliest of their
  // cursors: from a later one, a change made between the two snapshots to an item the earlier request had sent would
  // be missed.
  return new ApiAnswer(200, body, {
    "Content-Type": NDJSON,
    [EXPORT_CURSOR_HEADER]: snapshot.cursor,
    "Access-Control-Expose-Headers": `${EXPOSED}, ${EXPORT_CURSOR_HEADER}`,
  });
}

// The header of an export's answer that carries its snapshot's change-feed cursor (the end line's), sent first.
export const EXPORT_CURSOR_HEADER = "X-Export-Cursor";

// The 429 of a key that already streams EXPORTS_PER_KEY exports.
export function tooManyExports(): PublicApiError {
  return new PublicApiError(
    "PUBLIC_API_RATE_LIMIT_EXCEEDED",
    `Trop d'exports en cours pour cette clé API : ${EXPORTS_PER_KEY} au plus à la fois. Réessayez quand l'un d'eux est terminé.`,
    { retryAfter: EXPORT_RETRY_AFTER, headers: { "Retry-After": String(EXPORT_RETRY_AFTER) } },
  );
}

// Takes one of a key's export slots, or throws tooManyExports; returns the function that gives it back (once).
function takeSlot(running: Map<string, number>, keyId: string): () => void {
  const n = running.get(keyId) ?? 0;
  if (n >= EXPORTS_PER_KEY) throw tooManyExports();
  running.set(keyId, n + 1);
  let given = false;
  return () => {
    if (given) return;
    given = true;
    const left = (running.get(keyId) ?? 1) - 1;
    if (left > 0) running.set(keyId, left);
    else running.delete(keyId);
  };
}

const encoder = new TextEncoder();

// The body of an export: each batch of the snapshot as lines, read only when the client has taken the one before
// (no queue: highWaterMark 0, so memory stays one batch whatever the resource's size), then the end line. The
// snapshot ends when the last line is read, when the client goes away (cancel), when it reads nothing for `idleMs`,
// or when a batch fails: then the stream errors without its end line (the status is already sent; the client knows
// by the missing line) and the failure is logged.
export function ndjsonStream(
  snapshot: ExportSnapshot,
  opts: { idleMs: number; requestId: string; onEnd: () => void },
): ReadableStream<Uint8Array> {
  let count = 0;
  let ended = false;
  let idle: ReturnType<typeof setTimeout> | undefined;
  // The key's slot is given back at once, its connection when the snapshot's transaction has ended: a client that
  // cuts an export and starts the next one is not refused while the first one's rollback runs.
  const end = async (error?: unknown) => {
    if (ended) return;
    ended = true;
    clearTimeout(idle);
    opts.onEnd();
    await snapshot.close(error);
  };
  // The idle guard, armed whenever the stream waits for its reader.
  const watch = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    idle = setTimeout(() => {
      console.error(
        `[public-api] ${opts.requestId} export ended: its client read nothing for ${opts.idleMs} ms`,
      );
      void end().then(() => controller.error(new Error("export idle")));
    }, opts.idleMs);
    idle.unref?.();
  };
  return new ReadableStream<Uint8Array>(
    {
      start: watch,
      async pull(controller) {
        clearTimeout(idle);
        try {
          const lines = await snapshot.next();
          if (ended) return;
          // The snapshot ends before the client gets the end line: by then its slot and connection are free.
          if (lines.length === 0) {
            await end();
            const last: ExportEnd = { end: true, cursor: snapshot.cursor, count };
            controller.enqueue(encoder.encode(`${JSON.stringify(last)}\n`));
            controller.close();
            return;
          }
          count += lines.length;
          controller.enqueue(encoder.encode(`${lines.join("\n")}\n`));
          watch(controller);
        } catch (err) {
          // A batch that fails because the client went away meanwhile (cancel ended the snapshot) is no failure.
          if (ended) return;
          console.error(`[public-api] ${opts.requestId} export cut after ${count} items:`, err);
          await end(err);
          controller.error(err);
        }
      },
      cancel: () => end(),
    },
    { highWaterMark: 0 },
  );
}
