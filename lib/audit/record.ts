// The audit log's records: who did what, to which target, when; written in the same transaction as the change it
// records, by the console's actions and by the webhooks' engine (an endpoint it switches off). The console reads the
// log for its page (lib/console/audit-log.ts).
import type { Queryable } from "@/db/client";
import { ID_PREFIX, newId } from "@/db/schema";

// The actions recorded: on an organization's keys, members, settings and webhooks, on accounts, and in the product
// team's changelog editor (no organization).
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
  "account.session_signed_out",
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

// Who did it: a signed-in user, or the system itself (background work: no user, "system" in the log).
export type AuditActor = { id: string; email: string } | { id: null; email: "system" };

// The actor of what the system does on its own (an endpoint switched off because its deliveries kept failing).
export const SYSTEM_ACTOR = { id: null, email: "system" } as const satisfies AuditActor;

// One event to record.
export interface AuditEntry {
  orgId: string | null;
  actor: AuditActor;
  action: AuditAction;
  targetId?: string | null;
  details?: Record<string, unknown>;
}

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

// The action families of the log (an action's part before its dot), as a filter takes them ("api_key." matches
// every action of keys).
export const AUDIT_ACTION_FAMILIES = [...new Set(AUDIT_ACTIONS.map((a) => `${a.split(".")[0]}.`))];
