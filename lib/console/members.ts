// An organization's members in the console (issue 26): every member reads the list; owners and admins invite by a
// single-use link that expires, change roles, remove members and revoke invitations; anyone may leave. Who may do
// what is one table (member-rules.ts): owners manage everyone and alone make or unmake owners; admins
// manage members and admins. An organization keeps at least one owner. Every change runs in one transaction that
// first locks the organization's row (so two owners demoting each other at once cannot leave none), checks the role
// there, and records the audit event; removal ends the removed account's sessions at once.
import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import type { Executor, Queryable } from "@/db/client";
import { ID_PREFIX, isoSql, newId } from "@/db/schema";
import { endConsoleSessions } from "@/db/console-sessions";
import { addMembership, createUser, findUserByEmail } from "@/db/users";
import type { Runtime } from "@/lib/runtime";
import { requireRole, roleSchema, type Actor, type Membership, type Role } from "./access";
import { recordAudit } from "./audit";
import { ConsoleError } from "./console-errors";
import { parseInput } from "./keys";
import { mailInvitation, type SendMail } from "./mail";
import { grantableRoles, mayManage } from "./member-rules";

export { grantableRoles, mayManage };

// How long an invitation link works (the migration's default too).
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

// The shortest password an account may have: db/users.ts' hashPassword and `npm run users` refuse shorter ones.
export const MIN_PASSWORD_LENGTH = 8;

const email = z
  .string()
  .trim()
  .toLowerCase()
  .min(3, "Enter an email address.")
  .max(254, "An email address has at most 254 characters.")
  .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, "Enter an email address such as name@example.com.");

// An invitation link's secret: 32 random bytes, base64url (43 characters).
const token = z.string().regex(/^[A-Za-z0-9_-]{43}$/, "not an invitation link");

// Inviting: the email address and the role the invitation gives.
export const inviteInputSchema = z.object({ email, role: roleSchema.default("member") }).strict();
export type InviteInput = z.input<typeof inviteInputSchema>;

// Changing a member's role.
export const roleChangeInputSchema = z.object({ role: roleSchema }).strict();
export type RoleChangeInput = z.input<typeof roleChangeInputSchema>;

// Accepting an invitation while signed in with its email address.
export const acceptInputSchema = z.object({ token }).strict();
export type AcceptInput = z.input<typeof acceptInputSchema>;

// Accepting an invitation with a new account: its name and password (the rules of `npm run users`).
export const registerInputSchema = z
  .object({
    token,
    name: z.string().trim().min(1, "Enter your name.").max(200, "A name has at most 200 characters."),
    password: z
      .string()
      .min(MIN_PASSWORD_LENGTH, `A password has at least ${MIN_PASSWORD_LENGTH} characters.`)
      .max(1024, "A password has at most 1024 characters."),
  })
  .strict();
export type RegisterInput = z.input<typeof registerInputSchema>;

// A member as the console lists them.
export const memberSchema = z.object({
  userId: z.string(),
  email: z.string(),
  name: z.string(),
  role: roleSchema,
  joinedAt: z.string(),
});
export type Member = z.infer<typeof memberSchema>;

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

// The members page's data: the user's membership, what they may do, the members, and (for owners and admins) the
// open invitations.
export const membersListSchema = z.object({
  org: z.object({ id: z.string(), slug: z.string(), name: z.string() }),
  role: roleSchema,
  userId: z.string(),
  canManage: z.boolean(),
  grantableRoles: z.array(roleSchema),
  ownerCount: z.number().int(),
  members: z.array(memberSchema),
  invitations: z.array(invitationSchema),
});
export type MembersList = z.infer<typeof membersListSchema>;

// An invitation just made: the link (shown once) and whether it was also mailed.
export const createdInvitationSchema = z.object({
  invitation: invitationSchema,
  url: z.string(),
  mailed: z.boolean(),
});
export type CreatedInvitation = z.infer<typeof createdInvitationSchema>;

// What the accept page shows for a link (no secret): whose invitation, to what, and where it stands.
export const invitationViewSchema = z.object({
  org: z.object({ slug: z.string(), name: z.string() }),
  email: z.string(),
  role: roleSchema,
  expiresAt: z.string(),
  status: invitationSchema.shape.status,
  accountExists: z.boolean(),
});
export type InvitationView = z.infer<typeof invitationViewSchema>;

// Options of the calls that depend on the time: tests pass `now` instead of waiting.
export interface Clock {
  now?: Date;
}

// The SHA-256 (hex) under which an invitation link's secret is stored.
export function hashInvitationToken(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

// The path of the accept page of a link.
export function invitationPath(secret: string): string {
  return `/console/invitations/${secret}`;
}

const INVITATION_COLUMNS = `i.id, i.email, i.role, u.email as "invitedBy",
  ${isoSql("i.created_at")} as "createdAt", ${isoSql("i.expires_at")} as "expiresAt",
  ${isoSql("i.accepted_at")} as "acceptedAt", ${isoSql("i.revoked_at")} as "revokedAt",
  case when i.accepted_at is not null then 'accepted' when i.revoked_at is not null then 'revoked'
       when i.expires_at <= $2::timestamptz then 'expired' else 'pending' end as status`;

const ROLE_ORDER = `array_position(array['owner', 'admin', 'member'], m.role::text)`;

async function members(db: Queryable, orgId: string): Promise<Member[]> {
  return db.query<Member>(
    `select u.id as "userId", u.email, u.name, m.role, ${isoSql("m.created_at")} as "joinedAt"
       from memberships m join users u on u.id = m.user_id
      where m.org_id = $1
      order by ${ROLE_ORDER}, u.email`,
    [orgId],
  );
}

async function openInvitations(db: Queryable, orgId: string, now: Date): Promise<Invitation[]> {
  return db.query<Invitation>(
    `select ${INVITATION_COLUMNS}
       from invitations i left join users u on u.id = i.created_by
      where i.org_id = $1 and i.accepted_at is null and i.revoked_at is null
      order by i.created_at desc, i.id desc`,
    [orgId, now.toISOString()],
  );
}

async function ownerCount(db: Queryable, orgId: string): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    "select count(*)::int as n from memberships where org_id = $1 and role = 'owner'",
    [orgId],
  );
  return row!.n;
}

// The organization's members (every member) and, for owners and admins, its open invitations.
export async function listOrgMembers(
  rt: Runtime,
  user: Actor,
  orgSlug: string,
  clock: Clock = {},
): Promise<MembersList> {
  const db = await rt.db();
  const membership = await requireRole(db, user, orgSlug, "member");
  const manage = grantableRoles(membership.role).length > 0;
  const list = await members(db, membership.org.id);
  return {
    ...membership,
    userId: user.id,
    canManage: manage,
    grantableRoles: grantableRoles(membership.role),
    ownerCount: list.filter((m) => m.role === "owner").length,
    members: list,
    invitations: manage ? await openInvitations(db, membership.org.id, clock.now ?? new Date()) : [],
  };
}

// Locks the organization's row for the transaction (every change of its members takes it first: they are applied one
// at a time and each sees the others' results), then checks the user's role there. NO KEY UPDATE: the catalog's
// inserts, whose foreign keys lock the row KEY SHARE, do not wait for it.
async function lockedRole(
  tx: Executor,
  user: Actor,
  orgSlug: string,
  needed: "member" | "admin",
): Promise<Membership> {
  await tx.query("select id from organizations where slug = $1 for no key update", [orgSlug]);
  return requireRole(tx, user, orgSlug, needed);
}

async function memberOf(tx: Queryable, orgId: string, userId: string): Promise<Member | null> {
  const rows = await tx.query<Member>(
    `select u.id as "userId", u.email, u.name, m.role, ${isoSql("m.created_at")} as "joinedAt"
       from memberships m join users u on u.id = m.user_id
      where m.org_id = $1 and m.user_id = $2`,
    [orgId, userId],
  );
  return rows[0] ?? null;
}

function forbidden(message: string): ConsoleError {
  return new ConsoleError("CONSOLE_FORBIDDEN", message);
}

// Refuses a change that would leave the organization without an owner.
async function keepAnOwner(tx: Queryable, orgId: string, target: Member, what: string): Promise<void> {
  if (target.role === "owner" && (await ownerCount(tx, orgId)) <= 1) {
    throw new ConsoleError(
      "CONSOLE_LAST_OWNER",
      `${what}: ${target.email} is the last owner of this organization. Make another member an owner first.`,
    );
  }
}

// Invites an email address with a role (owners and admins; only owners invite owners). The link is in the answer
// only (its SHA-256 is stored) and, when SMTP_URL is set, mailed too. `origin` is the console's address the link
// points at.
export async function inviteMember(
  rt: Runtime,
  user: Actor,
  orgSlug: string,
  input: unknown,
  origin: string,
  opts: Clock & { send?: SendMail | null } = {},
): Promise<CreatedInvitation> {
  const now = opts.now ?? new Date();
  const secret = randomBytes(32).toString("base64url");
  const { invitation, orgName } = await (
    await rt.db()
  ).transaction(async (tx) => {
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
    rt.config,
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
  rt: Runtime,
  user: Actor,
  orgSlug: string,
  invitationId: string,
  clock: Clock = {},
): Promise<Invitation> {
  const now = (clock.now ?? new Date()).toISOString();
  return (await rt.db()).transaction(async (tx) => {
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

// Changes a member's role (owners and admins; see mayManage and grantableRoles). Never the last owner's; a weaker
// role ends the member's sessions (db/users.ts addMembership). The same role again changes nothing.
export async function changeMemberRole(
  rt: Runtime,
  user: Actor,
  orgSlug: string,
  memberId: string,
  input: unknown,
): Promise<Member> {
  return (await rt.db()).transaction(async (tx) => {
    const { org, role } = await lockedRole(tx, user, orgSlug, "admin");
    const { role: wanted } = parseInput(roleChangeInputSchema, input);
    const target = await memberOf(tx, org.id, memberId);
    if (!target) throw new ConsoleError("CONSOLE_NOT_FOUND", "No such member in this organization.");
    if (!mayManage(role, target.role)) throw forbidden("Only owners change an owner's role.");
    if (!grantableRoles(role).includes(wanted)) throw forbidden("Only owners make owners.");
    if (wanted === target.role) return target;
    if (wanted !== "owner") await keepAnOwner(tx, org.id, target, "Role not changed");
    await addMembership(tx, { userId: target.userId, orgId: org.id, role: wanted });
    await recordAudit(tx, {
      orgId: org.id,
      actor: user,
      action: "member.role_changed",
      targetId: target.userId,
      details: { email: target.email, from: target.role, to: wanted },
    });
    return { ...target, role: wanted };
  });
}

// Removes a member (owners and admins; admins not owners) and ends their console sessions at once. Never the last
// owner; never oneself (that is leaving).
export async function removeMember(
  rt: Runtime,
  user: Actor,
  orgSlug: string,
  memberId: string,
): Promise<Member> {
  return (await rt.db()).transaction(async (tx) => {
    const { org, role } = await lockedRole(tx, user, orgSlug, "admin");
    const target = await memberOf(tx, org.id, memberId);
    if (!target) throw new ConsoleError("CONSOLE_NOT_FOUND", "No such member in this organization.");
    if (target.userId === user.id)
      throw new ConsoleError("CONSOLE_INVALID", "To leave the organization yourself, use Leave.");
    if (!mayManage(role, target.role)) throw forbidden("Only owners remove an owner.");
    await keepAnOwner(tx, org.id, target, "Not removed");
    await tx.query("delete from memberships where org_id = $1 and user_id = $2", [org.id, target.userId]);
    await endConsoleSessions(tx, target.userId);
    await recordAudit(tx, {
      orgId: org.id,
      actor: user,
      action: "member.removed",
      targetId: target.userId,
      details: { email: target.email, role: target.role },
    });
    return target;
  });
}

// Leaves an organization (any member), unless one is its last owner.
export async function leaveOrg(rt: Runtime, user: Actor, orgSlug: string): Promise<{ left: string }> {
  return (await rt.db()).transaction(async (tx) => {
    const { org } = await lockedRole(tx, user, orgSlug, "member");
    const me = (await memberOf(tx, org.id, user.id))!;
    await keepAnOwner(tx, org.id, me, "You cannot leave");
    await tx.query("delete from memberships where org_id = $1 and user_id = $2", [org.id, user.id]);
    await recordAudit(tx, {
      orgId: org.id,
      actor: user,
      action: "member.left",
      targetId: user.id,
      details: { email: me.email, role: me.role },
    });
    return { left: org.slug };
  });
}

// What the accept page shows for a link, or null for a link that never existed.
export async function viewInvitation(
  db: Queryable,
  secret: string,
  clock: Clock = {},
): Promise<InvitationView | null> {
  if (!token.safeParse(secret).success) return null;
  const rows = await db.query<Omit<InvitationView, "org"> & { slug: string; name: string }>(
    `select o.slug, o.name, i.email, i.role, ${isoSql("i.expires_at")} as "expiresAt",
            case when i.accepted_at is not null then 'accepted' when i.revoked_at is not null then 'revoked'
                 when i.expires_at <= $2::timestamptz then 'expired' else 'pending' end as status,
            exists (select 1 from users where email = i.email) as "accountExists"
       from invitations i join organizations o on o.id = i.org_id
      where i.token_hash = $1`,
    [hashInvitationToken(secret), (clock.now ?? new Date()).toISOString()],
  );
  const row = rows[0];
  if (!row) return null;
  const { slug, name, ...rest } = row;
  return { org: { slug, name }, ...rest };
}

interface Claimed {
  id: string;
  orgId: string;
  slug: string;
  email: string;
  role: Role;
}

// Uses a link once: one UPDATE that succeeds only while it is open (of two concurrent ones, the second waits for the
// first's row lock, then finds it accepted). Throws CONSOLE_INVITATION_GONE otherwise.
async function claim(tx: Queryable, secret: string, userId: string | null, now: Date): Promise<Claimed> {
  const rows = await tx.query<Claimed>(
    `update invitations i set accepted_at = $2::timestamptz, accepted_by = $3
       from organizations o
      where o.id = i.org_id and i.token_hash = $1 and i.accepted_at is null and i.revoked_at is null
        and i.expires_at > $2::timestamptz
      returning i.id, i.org_id as "orgId", o.slug, i.email, i.role`,
    [hashInvitationToken(secret), now.toISOString(), userId],
  );
  if (rows[0]) return rows[0];
  const view = await viewInvitation(tx, secret, { now });
  throw new ConsoleError(
    "CONSOLE_INVITATION_GONE",
    view?.status === "accepted"
      ? "This invitation link was used already."
      : view?.status === "revoked"
        ? "This invitation was revoked."
        : view?.status === "expired"
          ? "This invitation link has expired: ask for a new one."
          : "This invitation link is not valid.",
  );
}

// Accepts an invitation as the signed-in user, whose email must be the invited one; they join with its role.
export async function acceptInvitation(
  rt: Runtime,
  user: Actor,
  input: unknown,
  clock: Clock = {},
): Promise<{ org: string; role: Role }> {
  const { token: secret } = parseInput(acceptInputSchema, input);
  return (await rt.db()).transaction(async (tx) => {
    const inv = await claim(tx, secret, user.id, clock.now ?? new Date());
    if (inv.email !== user.email.toLowerCase()) {
      throw forbidden(
        `This invitation is for ${inv.email}; you are signed in as ${user.email}. Sign out, then open the link again.`,
      );
    }
    if (await memberOf(tx, inv.orgId, user.id))
      throw new ConsoleError("CONSOLE_MEMBER_CONFLICT", "You are a member of this organization already.");
    await addMembership(tx, { userId: user.id, orgId: inv.orgId, role: inv.role });
    await recordAudit(tx, {
      orgId: inv.orgId,
      actor: user,
      action: "member.joined",
      targetId: user.id,
      details: { email: inv.email, role: inv.role, invitationId: inv.id, newAccount: false },
    });
    return { org: inv.slug, role: inv.role };
  });
}

// Accepts an invitation with a new account for the invited email (none may exist yet): name and password, then
// membership with the invitation's role, in one transaction. The user then signs in at /console/sign-in.
export async function registerWithInvitation(
  rt: Runtime,
  input: unknown,
  clock: Clock = {},
): Promise<{ org: string; role: Role; email: string }> {
  const { token: secret, name, password } = parseInput(registerInputSchema, input);
  return (await rt.db()).transaction(async (tx) => {
    const inv = await claim(tx, secret, null, clock.now ?? new Date());
    if (await findUserByEmail(tx, inv.email)) {
      throw new ConsoleError(
        "CONSOLE_MEMBER_CONFLICT",
        `An account exists for ${inv.email}: sign in with it, then open the link again.`,
      );
    }
    const created = await createUser(tx, { email: inv.email, name, password }).catch((err: unknown) => {
      // Made meanwhile (another organization's invitation to the same address, accepted at the same moment).
      if ((err as { code?: string }).code === "23505") {
        throw new ConsoleError(
          "CONSOLE_MEMBER_CONFLICT",
          `An account exists for ${inv.email}: sign in with it, then open the link again.`,
        );
      }
      throw err;
    });
    await tx.query("update invitations set accepted_by = $2 where id = $1", [inv.id, created.id]);
    await addMembership(tx, { userId: created.id, orgId: inv.orgId, role: inv.role });
    await recordAudit(tx, {
      orgId: inv.orgId,
      actor: created,
      action: "member.joined",
      targetId: created.id,
      details: { email: inv.email, role: inv.role, invitationId: inv.id, newAccount: true },
    });
    return { org: inv.slug, role: inv.role, email: created.email };
  });
}
