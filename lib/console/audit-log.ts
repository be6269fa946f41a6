// The console's view of an organization's audit log (owners and admins): a page of events under filters, the
// filters' choices, the CSV export of everything the filters keep, and the history of a changelog entry.
import { z } from "zod";
import type { Database, Queryable } from "@/db/client";
import { isoSql } from "@/db/schema";
import { AUDIT_ACTION_FAMILIES, AUDIT_ACTIONS } from "@/lib/audit/record";
import { requireRole, type Actor, type Membership } from "./access";
import { parseInput } from "./keys";

// One recorded event, as listed (timestamps ISO with milliseconds).
export const auditEventSchema = z.object({
  id: z.string(),
  actorId: z.string().nullable(),
  actorEmail: z.string(),
  action: z.string(),
  targetId: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
});
export type AuditEvent = z.infer<typeof auditEventSchema>;

// Most events a list returns at once.
export const AUDIT_LIST_MAX = 500;

const DAY = /^\d{4}-\d\d-\d\d$/;
const day = (what: string) =>
  z
    .string()
    .regex(DAY, `${what}: a day as YYYY-MM-DD (UTC).`)
    .refine((d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)), `${what}: not a day of the calendar.`);

// Where a page of the log starts: after the event (created_at, id) of the page before, as an opaque string.
function encodeCursor(e: Pick<AuditEvent, "createdAt" | "id">): string {
  return Buffer.from(`${e.createdAt}|${e.id}`, "utf8").toString("base64url");
}
const cursorSchema = z
  .string()
  .max(200)
  .transform((v, ctx) => {
    const [at, id, ...rest] = Buffer.from(v, "base64url").toString("utf8").split("|");
    if (rest.length || !at || !id || Number.isNaN(Date.parse(at))) {
      ctx.addIssue({ code: "custom", message: "before: a cursor of a page of this log." });
      return z.NEVER;
    }
    return { at, id };
  });

// The log's filters and page, as the console's page and route take them (query parameters): an actor's email, an
// action or a family of actions ("api_key."), the days from and to (inclusive, UTC), the cursor of the page before,
// and the page's size.
export const auditFilterSchema = z
  .object({
    actor: z.string().trim().max(320).optional(),
    action: z
      .string()
      .refine(
        (a) => (AUDIT_ACTIONS as readonly string[]).includes(a) || AUDIT_ACTION_FAMILIES.includes(a),
        'action: one of the log\'s actions, or a family of them such as "api_key.".',
      )
      .optional(),
    from: day("from").optional(),
    to: day("to").optional(),
    before: cursorSchema.optional(),
    limit: z.coerce.number().int().min(1).max(AUDIT_LIST_MAX).default(50),
  })
  .refine((f) => !f.from || !f.to || f.from <= f.to, {
    message: "from: a day on or before to.",
    path: ["from"],
  });
export type AuditFilter = z.output<typeof auditFilterSchema>;

// A page of the log: its events, newest first, and the cursor of the next page (null on the last).
export interface AuditPage {
  events: AuditEvent[];
  next: string | null;
}

// An organization's events matching the filter, newest first, one page (keyset: (created_at, id) below the cursor,
// along the (org_id, created_at desc, id desc) index).
export async function listAudit(
  db: Queryable,
  orgId: string,
  filter: Partial<AuditFilter> = {},
): Promise<AuditPage> {
  const n = Math.min(Math.max(1, Math.trunc(filter.limit ?? 50) || 1), AUDIT_LIST_MAX);
  const action = filter.action ?? null;
  const rows = await db.query<AuditEvent>(
    `select id, actor_id as "actorId", actor_email as "actorEmail", action, target_id as "targetId", details,
            ${isoSql("created_at")} as "createdAt"
       from audit_events
      where org_id = $1
        and ($2::text is null or lower(actor_email) = lower($2))
        and ($3::text is null or action = $3 or (right($3, 1) = '.' and starts_with(action, $3)))
        and ($4::date is null or created_at >= ($4::date)::timestamp at time zone 'UTC')
        and ($5::date is null or created_at < ($5::date + 1)::timestamp at time zone 'UTC')
        and ($6::timestamptz is null or (created_at, id) < ($6::timestamptz, $7::text))
      order by created_at desc, id desc
      limit $8`,
    [
      orgId,
      filter.actor || null,
      action,
      filter.from ?? null,
      filter.to ?? null,
      filter.before?.at ?? null,
      filter.before?.id ?? null,
      n + 1,
    ],
  );
  const events = rows.slice(0, n).map(parseDetails);
  return { events, next: rows.length > n ? encodeCursor(events[n - 1]!) : null };
}

// The distinct actors of an organization's log (its filter's choices), by email, at most AUDIT_LIST_MAX.
export async function listAuditActors(db: Queryable, orgId: string): Promise<string[]> {
  const rows = await db.query<{ email: string }>(
    `select distinct actor_email as email from audit_events where org_id = $1 order by actor_email limit $2`,
    [orgId, AUDIT_LIST_MAX],
  );
  return rows.map((r) => r.email);
}

// Most rows a CSV export of the log carries (the filter narrows a larger log).
export const AUDIT_CSV_MAX = 100_000;

// The columns of the log's CSV export, in order.
export const AUDIT_CSV_COLUMNS = ["createdAt", "actorEmail", "action", "targetId", "details", "id"] as const;

// One cell of a CSV (RFC 4180): quoted when it holds a comma, a quote or a line break; a cell a spreadsheet would
// take for a formula (=, +, -, @, tab, carriage return first) is prefixed with an apostrophe (OWASP's CSV injection).
export function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

// The organization's events matching the filter (its cursor and limit aside), newest first, as CSV lines (a header
// first), read page by page: at most AUDIT_CSV_MAX rows.
export async function* auditCsvLines(
  db: Queryable,
  orgId: string,
  filter: Partial<AuditFilter>,
): AsyncGenerator<string> {
  yield `${AUDIT_CSV_COLUMNS.join(",")}\r\n`;
  let before = undefined as AuditFilter["before"];
  let sent = 0;
  while (sent < AUDIT_CSV_MAX) {
    const page = await listAudit(db, orgId, { ...filter, before, limit: AUDIT_LIST_MAX });
    for (const e of page.events.slice(0, AUDIT_CSV_MAX - sent)) {
      const cells = [e.createdAt, e.actorEmail, e.action, e.targetId ?? "", JSON.stringify(e.details), e.id];
      yield `${cells.map(csvCell).join(",")}\r\n`;
    }
    sent += page.events.length;
    if (!page.next) break;
    const last = page.events[page.events.length - 1]!;
    before = { at: last.createdAt, id: last.id };
  }
}

// The product team's events (no organization) about one target whose action starts with `actionPrefix` (e.g.
// "changelog."), newest first, at most AUDIT_LIST_MAX: a changelog entry's history. `org_id is null` lets the
// (org_id, created_at) index narrow the scan to the product team's events.
export async function listStaffAuditForTarget(
  db: Queryable,
  targetId: string,
  actionPrefix: string,
): Promise<AuditEvent[]> {
  const rows = await db.query<AuditEvent>(
    `select id, actor_id as "actorId", actor_email as "actorEmail", action, target_id as "targetId", details,
            ${isoSql("created_at")} as "createdAt"
       from audit_events where org_id is null and target_id = $1 and starts_with(action, $2)
      order by created_at desc, id desc
      limit $3`,
    [targetId, actionPrefix, AUDIT_LIST_MAX],
  );
  return rows.map(parseDetails);
}

// node-postgres parses jsonb; PGlite too; a driver that hands back text is parsed here.
function parseDetails(r: AuditEvent): AuditEvent {
  return {
    ...r,
    details: typeof r.details === "string" ? (JSON.parse(r.details) as AuditEvent["details"]) : r.details,
  };
}

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
