// The console's view of an organization's audit log (owners and admins): a page of events under filters, the
// filters' choices, and the CSV export of everything the filters keep.
import { requireRole, type Actor, type Membership } from "./access";
import {
  auditCsvLines,
  auditFilterSchema,
  listAudit,
  listAuditActors,
  type AuditFilter,
  type AuditPage,
} from "./audit";
import { parseInput } from "./keys";
import type { Database } from "@/db/client";

// The filters of a request's query string (empty values are no filter).
export function auditFilterOf(search: URLSearchParams): AuditFilter {
  return parseInput(auditFilterSchema, Object.fromEntries([...search].filter(([, v]) => v !== "")));
}

// A page of the organization's log under the query's filters, with the actors to choose from.
export async function listOrgAudit(
  db: Database,
  user: Actor,
  orgSlug: string,
  search: URLSearchParams = new URLSearchParams(),
): Promise<Membership & AuditPage & { actors: string[] }> {
  const membership = await requireRole(db, user, orgSlug, "admin");
  const filter = auditFilterOf(search);
  const [page, actors] = await Promise.all([
    listAudit(db, membership.org.id, filter),
    listAuditActors(db, membership.org.id),
  ]);
  return { ...membership, ...page, actors };
}

// The organization's log under the query's filters as a CSV download (text/csv, streamed page by page).
export async function orgAuditCsv(
  db: Database,
  user: Actor,
  orgSlug: string,
  search: URLSearchParams,
): Promise<Response> {
  const { org } = await requireRole(db, user, orgSlug, "admin");
  const filter = auditFilterOf(search);
  const lines = auditCsvLines(db, org.id, filter);
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await lines.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      } catch (err) {
        console.error("[console] audit CSV cut:", (err as Error).message);
        controller.error(err);
      }
    },
    async cancel() {
      await lines.return(undefined);
    },
  });
  const day = new Date().toISOString().slice(0, 10);
  return new Response(body, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="audit-${org.slug}-${day}.csv"`,
    },
  });
}
