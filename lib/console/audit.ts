// The audit log: who did what, to which target, when. Written in the same transaction as the change it records.
import { z } from "zod";
import type { Queryable } from "@/db/client";
import { ID_PREFIX, isoSql, newId } from "@/db/schema";

// The actions recorded: an organization's keys, the product team's changelog editor and an account's "sign out
// everywhere" (both with no organization).
export const AUDIT_ACTIONS = [
  "api_key.created",
  "api_key.rolled",
  "api_key.revoked",
  "changelog.created",
  "changelog.edited",
  "changelog.published",
  "changelog.unpublished",
  "changelog.promoted",
  "account.signed_out_everywhere",
  "webhook_endpoint.created",
  "webhook_endpoint.updated",
  "webhook_endpoint.deleted",
  "webhook_endpoint.secret_rolled",
  "webhook_endpoint.disabled",
  "webhook_endpoint.replayed",
  "webhook_delivery.redelivered",
  "webhook_endpoint.test_sent",
  "member.invited",
  "member.invitation_revoked",
  "member.joined",
  "member.role_changed",
  "member.removed",
  "member.left",
  "account.password_changed",
  "account.password_reset_issued",
  "account.password_reset",
  "account.two_factor_enabled",
  "account.two_factor_disabled",
  "account.recovery_code_used",
  "account.recovery_codes_regenerated",
  "org.two_factor_required",
  "org.two_factor_not_required",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

// One event to record.
export interface AuditEntry {
  orgId: string | null;
  actor: { id: string; email: string };
  action: AuditAction;
  targetId?: string | null;
  details?: Record<string, unknown>;
}

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

// Records one event; call it with the transaction that makes the change.
export async function recordAudit(tx: Queryable, entry: AuditEntry): Promise<string> {
  const id = newId(ID_PREFIX.auditEvent);
  await tx.query(
    `insert into audit_events (id, org_id, actor_id, actor_email, action, target_id, details)
     values ($1, $2, $3, $4, $5, $6, $7::jsonb)`,
    [
      id,
      entry.orgId,
      entry.actor.id,
      entry.actor.email,
      entry.action,
      entry.targetId ?? null,
      JSON.stringify(entry.details ?? {}),
    ],
  );
  return id;
}

// An organization's events, newest first, at most `limit` (1..AUDIT_LIST_MAX).
export async function listAudit(db: Queryable, orgId: string, limit = 100): Promise<AuditEvent[]> {
  const n = Math.min(Math.max(1, Math.trunc(limit) || 1), AUDIT_LIST_MAX);
  const rows = await db.query<AuditEvent>(
    `select id, actor_id as "actorId", actor_email as "actorEmail", action, target_id as "targetId", details,
            ${isoSql("created_at")} as "createdAt"
       from audit_events where org_id = $1
      order by created_at desc, id desc
      limit $2`,
    [orgId, n],
  );
  return rows.map(parseDetails);
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
