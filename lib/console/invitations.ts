// An organization's invitations, the managers' side: owners and admins invite an email address by a single-use link
// that expires (only its SHA-256 stored; mailed too when SMTP_URL is set) and revoke open ones; only owners invite
// owners. Each change locks the organization's row first (member-access.ts) and records the audit event. The
// invitee's side (the accept page, joining, a new account) is invitation-accept.ts.
import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import type { Database, Queryable } from "@/db/client";
import { ID_PREFIX, isoSql, newId } from "@/db/schema";
import type { Config } from "@/lib/config";
import { roleSchema, type Actor } from "./access";
import { recordAudit } from "@/lib/audit/record";
import { ConsoleError } from "./console-errors";
import { parseInput } from "./keys";
import { mailInvitation, type SendMail } from "./mail";
import { forbidden, lockedRole, type Clock } from "./member-access";
import { grantableRoles } from "./member-rules";

// How long an invitation link works (the migration's default too).
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

const email = z
  .string()
  .trim()
  .toLowerCase()
  .min(3, "Enter an email address.")
  .max(254, "An email address has at most 254 characters.")
  .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, "Enter an email address such as name@example.com.");

// Inviting: the email address and the role the invitation gives.
export const inviteInputSchema = z.object({ email, role: roleSchema.default("member") }).strict();
export type InviteInput = z.input<typeof inviteInputSchema>;

// An invitation as the console lists it (never its link): open until it expires, is accepted or revoked.
export const invitationSchema = z.object({
  id: z.string(),
  email: z.string(),
  role: roleSchema,
  invitedBy: z.string().nullable(),
  createdAt: z.string(),
  expiresAt: z.string(),
  acceptedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  status: z.enum(["pending", "expired", "accepted", "revoked"]),
});
export type Invitation = z.infer<typeof invitationSchema>;

// An invitation just made: the link (shown once) and whether it was also mailed.
export const createdInvitationSchema = z.object({
  invitation: invitationSchema,
  url: z.string(),
  mailed: z.boolean(),
});
export type CreatedInvitation = z.infer<typeof createdInvitationSchema>;

// The SHA-256 (hex) under which an invitation link's secret is stored.
export function hashInvitationToken(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

// The path of the accept page of a link.
export function invitationPath(secret: string): string {
  return `/console/invitations/${secret}`;
}

// The columns of an Invitation (from `invitations i left join users u` on its creator); $2 is the time "now".
const INVITATION_COLUMNS = `i.id, i.email, i.role, u.email as "invitedBy",
  ${isoSql("i.created_at")} as "createdAt", ${isoSql("i.expires_at")} as "expiresAt",
  ${isoSql("i.accepted_at")} as "acceptedAt", ${isoSql("i.revoked_at")} as "revokedAt",
  case when i.accepted_at is not null then 'accepted' when i.revoked_at is not null then 'revoked'
       when i.expires_at <= $2::timestamptz then 'expired' else 'pending' end as status`;

// The organization's open invitations (neither accepted nor revoked; expired ones included), newest first.
export async function openInvitations(db: Queryable, orgId: string, now: Date): Promise<Invitation[]> {
  return db.query<Invitation>(
    `select ${INVITATION_COLUMNS}
       from invitations i left join users u on u.id = i.created_by
      where i.org_id = $1 and i.accepted_at is null and i.revoked_at is null
      order by i.created_at desc, i.id desc`,
    [orgId, now.toISOString()],
  );
}

// Invites an email address with a role (owners and admins; only owners invite owners). The link is in the answer
// only (its SHA-256 is stored) and, when SMTP_URL is set, mailed too. `origin` is the console's address the link
// points at.
export async function inviteMember(
  db: Database,
  config: Config,
  user: Actor,
  orgSlug: string,
  input: unknown,
  origin: string,
  opts: Clock & { send?: SendMail | null } = {},
): Promise<CreatedInvitation> {
  const now = opts.now ?? new Date();
  const secret = randomBytes(32).toString("base64url");
  const { invitation, orgName } = await db.transaction(async (tx) => {
    const { org, role } = await lockedRole(tx, user, orgSlug, "admin");
    const wanted = parseInput(inviteInputSchema, input);
    if (!grantableRoles(role).includes(wanted.role))
      throw forbidden("Only owners invite owners: choose member or admin.");
    const [taken] = await tx.query<{ member: boolean; invited: boolean }>(
      `select exists (select 1 from memberships m join users u on u.id = m.user_id
                       where m.org_id = $1 and u.email = $2) as member,
              exists (select 1 from invitations where org_id = $1 and email = $2 and accepted_at is null
                         and revoked_at is null and expires_at > $3::timestamptz) as invited`,
      [org.id, wanted.email, now.toISOString()],
    );
    if (taken!.member)
      throw new ConsoleError("CONSOLE_MEMBER_CONFLICT", `email: ${wanted.email} is already a member.`);
    if (taken!.invited) {
      throw new ConsoleError(
        "CONSOLE_MEMBER_CONFLICT",
        `email: ${wanted.email} already has an open invitation: revoke it first to make a new link.`,
      );
    }
    const id = newId(ID_PREFIX.invitation);
    await tx.query(
      `insert into invitations (id, org_id, email, role, token_hash, created_by, created_at, expires_at)
       values ($1, $2, $3, $4, $5, $6, $7::timestamptz, $7::timestamptz + interval '7 days')`,
      [id, org.id, wanted.email, wanted.role, hashInvitationToken(secret), user.id, now.toISOString()],
    );
    const [made] = await tx.query<Invitation>(
      `select ${INVITATION_COLUMNS} from invitations i left join users u on u.id = i.created_by where i.id = $1`,
      [id, now.toISOString()],
    );
    await recordAudit(tx, {
      orgId: org.id,
      actor: user,
      action: "member.invited",
      targetId: id,
      details: { email: wanted.email, role: wanted.role, expiresAt: made!.expiresAt },
    });
    return { invitation: made!, orgName: org.name };
  });
  const url = `${origin}${invitationPath(secret)}`;
  const mailed = await mailInvitation(
    config,
    {
      to: invitation.email,
      orgName,
      role: invitation.role,
      url,
      expiresAt: invitation.expiresAt,
      invitedBy: user.email,
    },
    opts.send,
  );
  return { invitation, url, mailed };
}

// Revokes an open invitation (owners and admins): its link stops working at once. Revoking a revoked one changes
// nothing; an accepted one is gone (remove the member instead).
export async function revokeInvitation(
  db: Database,
  user: Actor,
  orgSlug: string,
  invitationId: string,
  clock: Clock = {},
): Promise<Invitation> {
  const now = (clock.now ?? new Date()).toISOString();
  return db.transaction(async (tx) => {
    const { org } = await lockedRole(tx, user, orgSlug, "admin");
    const select = `select ${INVITATION_COLUMNS} from invitations i left join users u on u.id = i.created_by
                     where i.id = $1 and i.org_id = $3`;
    const [before] = await tx.query<Invitation>(select, [invitationId, now, org.id]);
    if (!before) throw new ConsoleError("CONSOLE_NOT_FOUND", "No such invitation in this organization.");
    if (before.status === "revoked") return before;
    if (before.status === "accepted") {
      throw new ConsoleError(
        "CONSOLE_INVITATION_GONE",
        "This invitation was accepted already: remove the member instead.",
      );
    }
    await tx.query("update invitations set revoked_at = $2::timestamptz where id = $1", [invitationId, now]);
    const [after] = await tx.query<Invitation>(select, [invitationId, now, org.id]);
    await recordAudit(tx, {
      orgId: org.id,
      actor: user,
      action: "member.invitation_revoked",
      targetId: invitationId,
      details: { email: before.email, role: before.role },
    });
    return after!;
  });
}
