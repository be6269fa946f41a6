// An organization's members in the console: every member reads the list; owners and admins change roles and remove
// members; anyone may leave. Who may do what is one table (member-rules.ts): owners manage everyone and alone make or
// unmake owners; admins manage members and admins. An organization keeps at least one owner. Every change runs in
// one transaction that first locks the organization's row (so two owners demoting each other at once cannot leave
// none), checks the role there, and records the audit event; removal ends the removed account's sessions at once.
// Invitations are invitations.ts (managers) and invitation-accept.ts (invitees).
import { z } from "zod";
import type { Database, Queryable } from "@/db/client";
import { endConsoleSessions } from "@/db/console-sessions";
import { isoSql } from "@/db/schema";
import { addMembership } from "@/db/users";
import { requireRole, roleSchema, type Actor } from "./access";
import { recordAudit } from "@/lib/audit/record";
import { ConsoleError } from "./console-errors";
import { invitationSchema, openInvitations } from "./invitations";
import { forbidden, lockedRole, memberOf, memberSchema, type Clock, type Member } from "./member-access";
import { parseInput } from "./keys";
import { grantableRoles, mayManage } from "./member-rules";

export { grantableRoles, mayManage };

// Changing a member's role.
export const roleChangeInputSchema = z.object({ role: roleSchema }).strict();
export type RoleChangeInput = z.input<typeof roleChangeInputSchema>;

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

const ROLE_ORDER = `array_position(array['owner', 'admin', 'member'], m.role::text)`;

// The organization's members, owners first.
async function members(db: Queryable, orgId: string): Promise<Member[]> {
  return db.query<Member>(
    `select u.id as "userId", u.email, u.name, m.role, ${isoSql("m.created_at")} as "joinedAt"
       from memberships m join users u on u.id = m.user_id
      where m.org_id = $1
      order by ${ROLE_ORDER}, u.email`,
    [orgId],
  );
}

// How many owners the organization has.
async function ownerCount(db: Queryable, orgId: string): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    "select count(*)::int as n from memberships where org_id = $1 and role = 'owner'",
    [orgId],
  );
  return row!.n;
}

// The organization's members (every member) and, for owners and admins, its open invitations.
export async function listOrgMembers(
  db: Database,
  user: Actor,
  orgSlug: string,
  clock: Clock = {},
): Promise<MembersList> {
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

// Refuses a change that would leave the organization without an owner.
async function keepAnOwner(tx: Queryable, orgId: string, target: Member, what: string): Promise<void> {
  if (target.role === "owner" && (await ownerCount(tx, orgId)) <= 1) {
    throw new ConsoleError(
      "CONSOLE_LAST_OWNER",
      `${what}: ${target.email} is the last owner of this organization. Make another member an owner first.`,
    );
  }
}

// Changes a member's role (owners and admins; see mayManage and grantableRoles). Never the last owner's; a weaker
// role ends the member's sessions (db/users.ts addMembership). The same role again changes nothing.
export async function changeMemberRole(
  db: Database,
  user: Actor,
  orgSlug: string,
  memberId: string,
  input: unknown,
): Promise<Member> {
  return db.transaction(async (tx) => {
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
  db: Database,
  user: Actor,
  orgSlug: string,
  memberId: string,
): Promise<Member> {
  return db.transaction(async (tx) => {
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
export async function leaveOrg(db: Database, user: Actor, orgSlug: string): Promise<{ left: string }> {
  return db.transaction(async (tx) => {
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
