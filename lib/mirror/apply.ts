// A page of the change feed applied to the mirror: its upserts put by id, its deletes removed by id, across types,
// and the page's cursor stored, in one transaction: after a crash the tables and their cursor agree, and the next
// run goes on from there (a page applied again changes nothing).
import type { ChangesPage } from "@/clients/typescript/src/index";
import type { Database } from "@/db/database";
import { MIRROR_RESOURCES, type MirrorResource, type MirrorTables } from "./tables";

// What a page did: how many events, of them upserts and deletes, and when its last event committed.
export interface PageApplied {
  events: number;
  upserts: number;
  deletes: number;
  lastEventAt?: string;
}

// Applies a page and stores its cursor (one transaction). An object that comes twice in the page is written once,
// as its last event has it: events come in commit order, so the last one is the object now.
export async function applyPage(
  db: Database,
  tables: MirrorTables,
  page: ChangesPage,
  keyPrefix: string,
): Promise<PageApplied> {
  const last = new Map<MirrorResource, Map<string, (typeof page.data)[number]>>();
  const known = new Set<string>(MIRROR_RESOURCES);
  for (const e of page.data) {
    // A resource this mirror has no table for (a later version of the feed): passed over.
    if (!known.has(e.type)) continue;
    const type = e.type as MirrorResource;
    let byId = last.get(type);
    if (!byId) last.set(type, (byId = new Map()));
    byId.delete(e.id); // kept in the order of its last event
    byId.set(e.id, e);
  }
  await db.transaction(async (tx) => {
    for (const [type, byId] of last) {
      const put: string[] = [];
      const gone: string[] = [];
      for (const e of byId.values()) {
        if (e.op === "delete" || e.item === null) gone.push(e.id);
        else put.push(JSON.stringify(e.item));
      }
      if (put.length) await tables.upsert(tx, type, `[${put.join(",")}]`);
      if (gone.length) await tables.remove(tx, type, gone);
    }
    const lastEventAt = page.data.at(-1)?.at;
    await tables.writeApplied(tx, { cursor: page.cursor, events: page.data.length, lastEventAt, keyPrefix });
  });
  const deletes = page.data.filter((e) => e.op === "delete").length;
  return {
    events: page.data.length,
    upserts: page.data.length - deletes,
    deletes,
    lastEventAt: page.data.at(-1)?.at,
  };
}
