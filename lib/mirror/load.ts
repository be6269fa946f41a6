// The mirror's load: every resource's export into its table and the feed's cursor beside them, all in one
// transaction, so that an interrupted load leaves nothing (a run after it starts over). The exports are streamed in
// batches (one multi-row statement each, the next batch read while the one before is written): memory stays bounded
// whatever the catalog's size.
import type { CatalogClient } from "@/clients/typescript/src/index";
import type { Database, Queryable } from "@/db/database";
import { abortable } from "./abortable";
import { describeFailure, isStatus, MirrorStopped } from "./failures";
import type { Progress } from "./progress";
import { MIRROR_RESOURCES, type MirrorResource, type MirrorTables } from "./tables";

// A batch is written when it holds this many items or this many characters of JSON, whichever comes first.
export const BATCH_ITEMS = 1_000;
export const BATCH_CHARS = 4_000_000;

// What a mirror belongs to: the server and the key it reads with (its display prefix).
export interface MirrorIdentity {
  baseUrl: string;
  keyPrefix: string;
}

// A small export read whole: its items (as JSON text) and its end line's cursor.
export interface SmallExport {
  items: string[];
  cursor: string;
}

// Reads a small resource's export whole (channels: a few lines). The load reads it first, outside its transaction:
// it proves the server, the key and the export preview before anything is written, and its cursor, the earliest of
// the load's snapshots, is the one the feed is followed from.
export async function readSmallExport(
  client: CatalogClient,
  resource: MirrorResource,
  signal: AbortSignal,
): Promise<SmallExport> {
  const items: string[] = [];
  for await (const line of abortable(client.export(resource, { signal }), signal)) {
    if ("end" in line) return { items, cursor: line.cursor };
    items.push(JSON.stringify(line.item));
  }
  if (signal.aborted) throw new MirrorStopped();
  throw new Error(`the export of ${resource} ended without its end line`);
}

// Loads the mirror: the tables created if absent and emptied, `first` (the channels read before) and every other
// resource's export written, the state set to follow the feed from `first`'s cursor; one transaction. Returns the
// items loaded per resource. A resource the key may not read (403) is left empty, and said.
export async function loadMirror(o: {
  db: Database;
  client: CatalogClient;
  tables: MirrorTables;
  identity: MirrorIdentity;
  first: SmallExport;
  signal: AbortSignal;
  progress: Progress;
}): Promise<Record<MirrorResource, number>> {
  const counts = Object.fromEntries(MIRROR_RESOURCES.map((r) => [r, 0])) as Record<MirrorResource, number>;
  await o.db.transaction(
    async (tx) => {
      await o.tables.create(tx);
      await o.tables.truncate(tx);
      const started = Date.now();
      for (let i = 0; i < o.first.items.length; i += BATCH_ITEMS)
        await o.tables.upsert(tx, "channels", `[${o.first.items.slice(i, i + BATCH_ITEMS).join(",")}]`);
      counts.channels = o.first.items.length;
      o.progress.loaded("channels", counts.channels, started);
      for (const resource of MIRROR_RESOURCES) {
        if (resource === "channels") continue;
        try {
          counts[resource] = await streamInto(tx, o, resource);
        } catch (err) {
          if (!isStatus(err, 403)) throw err;
          o.progress.say(`${resource}: not mirrored, the key may not read it (${describeFailure(err)})`);
        }
      }
      await o.tables.writeLoaded(tx, { ...o.identity, cursor: o.first.cursor });
    },
    { statementTimeoutMs: 0 },
  );
  return counts;
}

// Streams one resource's export into its table; returns how many items it had.
async function streamInto(
  tx: Queryable,
  o: { client: CatalogClient; tables: MirrorTables; signal: AbortSignal; progress: Progress },
  resource: MirrorResource,
): Promise<number> {
  const started = Date.now();
  let parts: string[] = [];
  let chars = 0;
  let n = 0;
  // The batch being written while the next one is read; its failure is seen when it is awaited.
  let writing: Promise<void> = Promise.resolve();
  const send = async () => {
    const json = `[${parts.join(",")}]`;
    parts = [];
    chars = 0;
    await writing;
    writing = o.tables.upsert(tx, resource, json);
    writing.catch(() => undefined);
  };
  let ended = false;
  try {
    for await (const line of abortable(o.client.export(resource, { signal: o.signal }), o.signal)) {
      if ("end" in line) {
        ended = true;
        break;
      }
      const text = JSON.stringify(line.item);
      parts.push(text);
      chars += text.length;
      n++;
      if (parts.length >= BATCH_ITEMS || chars >= BATCH_CHARS) {
        await send();
        o.progress.loading(resource, n, started);
      }
    }
    // Stopped (Ctrl-C) or cut: never a partial resource committed.
    if (o.signal.aborted) throw new MirrorStopped();
    if (!ended) throw new Error(`the export of ${resource} ended without its end line`);
    if (parts.length) await send();
    await writing;
  } catch (err) {
    await writing.catch(() => undefined);
    throw err;
  }
  o.progress.loaded(resource, n, started);
  return n;
}
