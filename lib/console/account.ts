// A console account's own settings: change the password (every other session of the account ends, this one goes
// on), the password reset links an organization's owner issues for a member (shown once, single use, 1 h, only
// their SHA-256 stored; using one sets a new password and ends every session), and what the account page shows
// (two-factor state, the organizations the user owns, the account's sessions).
import "server-only";
import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import type { Database, Queryable } from "@/db/client";
import { endConsoleSessions } from "@/db/console-sessions";
import { hashPassword, verifyPassword } from "@/db/users";
import type { Config } from "@/lib/config";
import { requireRole, type Actor, type Role } from "./access";
import { recordAudit } from "@/lib/audit/record";
import { ConsoleError } from "./console-errors";
import { consoleOrigin } from "./http";
import { parseInput } from "./keys";
import { accountSessionSchema, listAccountSessions } from "./session-list";
import type { SignInAttempts } from "./state";
import { twoFactorStatus, twoFactorStatusSchema } from "./two-factor";
import { countWrongAttempt, refuseWhileLocked } from "./two-factor-verify";

// How long a password reset link works.
export const RESET_LINK_TTL_MS = 60 * 60 * 1000;
// Where a reset link leads (the token follows).
export const RESET_PATH = "/console/reset/";

const PASSWORD_MIN = 8;
const PASSWORD_MAX = 1000;
const newPasswordSchema = z
  .string()
  .min(PASSWORD_MIN, `A password has at least ${PASSWORD_MIN} characters.`)
  .max(PASSWORD_MAX, `A password has at most ${PASSWORD_MAX} characters.`);

// A member of an organization the user owns, as the account page lists them (for reset links).
export const ownedOrgMemberSchema = z.object({
  userId: z.string(),
  email: z.string(),
  name: z.string(),
  role: z.enum(["member", "admin", "owner"]),
  hasPassword: z.boolean(),
  twoFactor: z.boolean(),
});
export type OwnedOrgMember = z.infer<typeof ownedOrgMemberSchema>;

// What the account page shows.
export const accountOverviewSchema = z.object({
  email: z.string(),
  name: z.string(),
  hasPassword: z.boolean(),
  sso: z.boolean(),
  twoFactor: twoFactorStatusSchema,
  ownedOrgs: z.array(
    z.object({
      slug: z.string(),
      name: z.string(),
      twoFactorRequired: z.boolean(),
      members: z.array(ownedOrgMemberSchema),
    }),
  ),
  /** Organizations the user belongs to that require two-factor sign-in. */
  requiringOrgs: z.array(z.object({ slug: z.string(), name: z.string() })),
  /** The account's live console sessions, this one marked. */
  sessions: z.array(accountSessionSchema),
});
export type AccountOverview = z.infer<typeof accountOverviewSchema>;

// The signed-in account as these operations need it (the session: a password change keeps it).
type AccountActor = Actor & { sso?: boolean; sessionId: string };

// The account page's data for the signed-in user.
export async function accountOverview(db: Queryable, user: AccountActor): Promise<AccountOverview> {
  const [me] = await db.query<{ email: string; name: string; hasPassword: boolean }>(
    `select email, name, password_hash is not null as "hasPassword" from users where id = $1`,
    [user.id],
  );
  if (!me) throw new ConsoleError("CONSOLE_UNAUTHENTICATED");
  const orgs = await db.query<{ id: string; slug: string; name: string; role: Role; required: boolean }>(
    `select o.id, o.slug, o.name, m.role, o.two_factor_required as required
       from memberships m join organizations o on o.id = m.org_id
      where m.user_id = $1 order by o.name, o.slug`,
    [user.id],
  );
  const owned = orgs.filter((o) => o.role === "owner");
  const members = owned.length
    ? await db.query<OwnedOrgMember & { orgId: string }>(
        `select m.org_id as "orgId", u.id as "userId", u.email, u.name, m.role,
                u.password_hash is not null as "hasPassword",
                exists (select 1 from user_two_factor t where t.user_id = u.id and t.enabled_at is not null)
                  as "twoFactor"
           from memberships m join users u on u.id = m.user_id
          where m.org_id = any($1::text[]) order by u.email`,
        [owned.map((o) => o.id)],
      )
    : [];
  return {
    email: me.email,
    name: me.name,
    hasPassword: me.hasPassword,
    sso: Boolean(user.sso),
    twoFactor: await twoFactorStatus(db, user.id),
    ownedOrgs: owned.map((o) => ({
      slug: o.slug,
      name: o.name,
      twoFactorRequired: o.required,
      members: members.filter((m) => m.orgId === o.id).map(({ orgId: _orgId, ...m }) => m),
    })),
    requiringOrgs: orgs.filter((o) => o.required).map((o) => ({ slug: o.slug, name: o.name })),
    sessions: await listAccountSessions(db, user),
  };
}

// What changing the password takes: the current one and the new one.
export const changePasswordInputSchema = z
  .object({
    currentPassword: z.string().min(1, "Enter your current password.").max(PASSWORD_MAX),
    newPassword: newPasswordSchema,
  })
  .strict()
  .refine((v) => v.currentPassword !== v.newPassword, {
    path: ["newPassword"],
    message: "The new password must differ from the current one.",
  });
export type ChangePasswordInput = z.infer<typeof changePasswordInputSchema>;

// Changes the signed-in user's password (the current one required): every other session of the account ends, this
// browser's session (`user.sessionId`) goes on. Audited (account.password_changed, with how many sessions ended).
export async function changePassword(
  db: Database,
  attempts: SignInAttempts,
  user: AccountActor,
  input: unknown,
): Promise<{ changed: true }> {
  const { currentPassword, newPassword } = parseInput(changePasswordInputSchema, input);
  const [row] = await db.query<{ passwordHash: string | null }>(
    `select password_hash as "passwordHash" from users where id = $1`,
    [user.id],
  );
  if (!row?.passwordHash)
    throw new ConsoleError(
      "CONSOLE_ACCOUNT_CONFLICT",
      "This account has no password: it signs in with your organization's identity provider.",
    );
  refuseWhileLocked(attempts, user.id);
  if (!(await verifyPassword(currentPassword, row.passwordHash))) {
    await countWrongAttempt(attempts, user.id);
    throw new ConsoleError("CONSOLE_WRONG_PASSWORD");
  }
  const passwordHash = await hashPassword(newPassword);
  await db.transaction(async (tx) => {
    const updated = await tx.query(
      `update users set password_hash = $2, updated_at = now() where id = $1 and password_hash = $3 returning id`,
      [user.id, passwordHash, row.passwordHash],
    );
    // Changed meanwhile by another request: this one's current password is no longer the current one.
    if (!updated.length) throw new ConsoleError("CONSOLE_WRONG_PASSWORD");
    const ended = await endConsoleSessions(tx, user.id, { except: user.sessionId });
    await recordAudit(tx, {
      orgId: null,
      actor: user,
      action: "account.password_changed",
      targetId: user.id,
      details: { sessionsEnded: ended },
    });
  });
  return { changed: true };
}

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

// A reset link just issued: its URL (shown once) and when it stops working.
export interface IssuedResetLink {
  url: string;
  expiresAt: string;
}

// An owner issues a password reset link for a member of their organization. Refused for: a non-owner (403), a user
// who is not a member (404), the owner themselves (they change their password on the account page), a product-team
// account, an account that belongs to another organization the issuer does not own (the link would open that
// organization too), and an account without a password (it signs in through the identity provider). A new link
// replaces the member's unused ones. Audited in the organization (account.password_reset_issued).
export async function issuePasswordReset(
  db: Database,
  config: Config,
  user: AccountActor,
  orgSlug: string,
  targetUserId: string,
  request: Request,
  now: number = Date.now(),
): Promise<IssuedResetLink> {
  return db.transaction(async (tx) => {
    const { org, role } = await requireRole(tx, user, orgSlug, "member");
    if (role !== "owner")
      throw new ConsoleError(
        "CONSOLE_FORBIDDEN",
        "Only owners of this organization issue password reset links.",
      );
    const [target] = await tx.query<{ id: string; email: string; isStaff: boolean; hasPassword: boolean }>(
      `select u.id, u.email, u.is_staff as "isStaff", u.password_hash is not null as "hasPassword"
         from memberships m join users u on u.id = m.user_id
        where m.org_id = $1 and m.user_id = $2`,
      [org.id, targetUserId],
    );
    if (!target) throw new ConsoleError("CONSOLE_NOT_FOUND", "No such member in this organization.");
    if (target.id === user.id)
      throw new ConsoleError("CONSOLE_ACCOUNT_CONFLICT", "Change your own password on your account page.");
    if (target.isStaff)
      throw new ConsoleError(
        "CONSOLE_FORBIDDEN",
        "A product-team account's password is not reset from here.",
      );
    const [elsewhere] = await tx.query<{ n: number }>(
      `select count(*)::int as n from memberships t
        where t.user_id = $1
          and not exists (select 1 from memberships o where o.org_id = t.org_id and o.user_id = $2 and o.role = 'owner')`,
      [target.id, user.id],
    );
    if (elsewhere!.n > 0)
      throw new ConsoleError(
        "CONSOLE_FORBIDDEN",
        "This member belongs to another organization you do not own: only they can change their password.",
      );
    if (!target.hasPassword)
      throw new ConsoleError(
        "CONSOLE_ACCOUNT_CONFLICT",
        "This member signs in with your identity provider: there is no password to reset.",
      );
    const token = randomBytes(32).toString("base64url");
    const expiresAt = new Date(now + RESET_LINK_TTL_MS);
    await tx.query("delete from password_resets where user_id = $1 and used_at is null", [target.id]);
    await tx.query(
      `insert into password_resets (token_hash, user_id, org_id, issued_by, expires_at) values ($1, $2, $3, $4, $5)`,
      [hashToken(token), target.id, org.id, user.id, expiresAt],
    );
    await recordAudit(tx, {
      orgId: org.id,
      actor: user,
      action: "account.password_reset_issued",
      targetId: target.id,
      details: { email: target.email, expiresAt: expiresAt.toISOString() },
    });
    return {
      url: `${consoleOrigin(config, request.headers)}${RESET_PATH}${token}`,
      expiresAt: expiresAt.toISOString(),
    };
  });
}

// What the reset page shows for a token: the account's email while the link works, else null (unknown, used,
// expired or malformed: one answer).
export async function resetLinkEmail(
  db: Queryable,
  token: string,
  now: number = Date.now(),
): Promise<string | null> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null;
  const [row] = await db.query<{ email: string }>(
    `select u.email from password_resets r join users u on u.id = r.user_id
      where r.token_hash = $1 and r.used_at is null and r.expires_at > $2`,
    [hashToken(token), new Date(now)],
  );
  return row?.email ?? null;
}

// What the reset page's form sends: the link's token and the new password.
export const resetPasswordInputSchema = z
  .object({ token: z.string().min(1).max(200), password: newPasswordSchema })
  .strict();
export type ResetPasswordInput = z.infer<typeof resetPasswordInputSchema>;

// Uses a reset link: the token is taken (once: one statement marks it used), the password set, every session of the
// account ended. CONSOLE_RESET_LINK_INVALID (410) for an unknown, used or expired link. Audited
// (account.password_reset, in the organization that issued it, by the account itself).
export async function resetPassword(
  db: Database,
  input: unknown,
  now: number = Date.now(),
): Promise<{ reset: true; email: string }> {
  const { token, password } = parseInput(resetPasswordInputSchema, input);
  const passwordHash = await hashPassword(password);
  return db.transaction(async (tx) => {
    const [link] = await tx.query<{ userId: string; orgId: string | null }>(
      `update password_resets set used_at = $2
        where token_hash = $1 and used_at is null and expires_at > $2
        returning user_id as "userId", org_id as "orgId"`,
      [hashToken(token), new Date(now)],
    );
    if (!link) throw new ConsoleError("CONSOLE_RESET_LINK_INVALID");
    const [account] = await tx.query<{ id: string; email: string }>(
      `update users set password_hash = $2, updated_at = now() where id = $1 returning id, email`,
      [link.userId, passwordHash],
    );
    if (!account) throw new ConsoleError("CONSOLE_RESET_LINK_INVALID");
    await endConsoleSessions(tx, account.id);
    await recordAudit(tx, {
      orgId: link.orgId,
      actor: account,
      action: "account.password_reset",
      targetId: account.id,
    });
    return { reset: true as const, email: account.email };
  });
}
