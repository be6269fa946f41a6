// Who may do what in which organization: a user's memberships (owner, admin, member) and the role checks of the
// console. An organization the user is not a member of is "not found", the same as one that does not exist.
import { z } from "zod";
import type { Queryable } from "@/db/client";
import { ConsoleError } from "./console-errors";

// A role in an organization (memberships.role), weakest first.
export const ROLES = ["member", "admin", "owner"] as const;
export const roleSchema = z.enum(ROLES);
export type Role = z.infer<typeof roleSchema>;

// The signed-in user as the console's checks need it (`sso`: this session came through the OpenID Connect provider,
// whose own multi-factor policy an organization that requires two-factor sign-in trusts).
export interface Actor {
  id: string;
  email: string;
  sso?: boolean;
}

// An organization the user belongs to, with their role there.
export const membershipSchema = z.object({
  org: z.object({ id: z.string(), slug: z.string(), name: z.string() }),
  role: roleSchema,
});
export type Membership = z.infer<typeof membershipSchema>;

// True when the role may create, roll and revoke keys and read the audit log (owners and admins).
export function canManage(role: Role): boolean {
  return role === "owner" || role === "admin";
}

// The user's organizations, by name.
export async function listMemberships(db: Queryable, userId: string): Promise<Membership[]> {
  const rows = await db.query<{ id: string; slug: string; name: string; role: Role }>(
    `select o.id, o.slug, o.name, m.role
       from memberships m join organizations o on o.id = m.org_id
      where m.user_id = $1
      order by o.name, o.slug`,
    [userId],
  );
  return rows.map(({ role, ...org }) => ({ org, role }));
}

// The user's membership of the organization with this slug if their role is at least `needed`; throws
// CONSOLE_NOT_FOUND when they are not a member (or there is no such organization), CONSOLE_TWO_FACTOR_REQUIRED when
// the organization requires two-factor sign-in and this session meets it neither by the account's two-factor nor
// by SSO, CONSOLE_FORBIDDEN when the role is too weak. Pass the transaction that makes the change, so that the
// check and the change agree.
export async function requireRole(
  db: Queryable,
  user: Actor,
  orgSlug: string,
  needed: "member" | "admin",
): Promise<Membership> {
  const rows = await db.query<{
    id: string;
    slug: string;
    name: string;
    role: Role;
    twoFactorRequired: boolean;
    twoFactor: boolean;
  }>(
    `select o.id, o.slug, o.name, m.role, o.two_factor_required as "twoFactorRequired",
            exists (select 1 from user_two_factor t where t.user_id = $2 and t.enabled_at is not null) as "twoFactor"
       from organizations o join memberships m on m.org_id = o.id and m.user_id = $2
      where o.slug = $1`,
    [orgSlug, user.id],
  );
  const row = rows[0];
  if (!row) throw new ConsoleError("CONSOLE_NOT_FOUND", "No such organization.");
  const { role, twoFactorRequired, twoFactor, ...org } = row;
  if (twoFactorRequired && !twoFactor && !user.sso) throw new ConsoleError("CONSOLE_TWO_FACTOR_REQUIRED");
  if (needed === "admin" && !canManage(role)) {
    throw new ConsoleError(
      "CONSOLE_FORBIDDEN",
      "Only owners and admins of this organization manage its API keys.",
    );
  }
  return { org, role };
}
