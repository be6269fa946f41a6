// An invitation, the invitee's side: what the accept page shows for a link, accepting it signed in with the invited
// email, or with a new account for that email. A link is used once (one UPDATE that succeeds only while it is open);
// joining and the audit event are in the same transaction.
import { z } from "zod";
import type { Database, Queryable } from "@/db/client";
import { isoSql } from "@/db/schema";
import { addMembership, createUser, findUserByEmail } from "@/db/users";
import { roleSchema, type Actor, type Role } from "./access";
import { recordAudit } from "@/lib/audit/record";
import { ConsoleError } from "./console-errors";
import { parseInput } from "./keys";
import { forbidden, memberOf, type Clock } from "./member-access";
import { hashInvitationToken, invitationSchema } from "./invitations";

// The shortest password an account may have: db/users.ts' hashPassword and `npm run users` refuse shorter ones.
export const MIN_PASSWORD_LENGTH = 8;

// An invitation link's secret: 32 random bytes, base64url (43 characters).
const token = z.string().regex(/^[A-Za-z0-9_-]{43}$/, "not an invitation link");

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

// The invitee joins the organization with the invitation's role, recorded in the audit log (`newAccount`: the
// account was made with the invitation).
async function join(tx: Queryable, inv: Claimed, user: Actor, newAccount: boolean): Promise<void> {
  await addMembership(tx, { userId: user.id, orgId: inv.orgId, role: inv.role });
  await recordAudit(tx, {
    orgId: inv.orgId,
    actor: user,
    action: "member.joined",
    targetId: user.id,
    details: { email: inv.email, role: inv.role, invitationId: inv.id, newAccount },
  });
}

// Accepts an invitation as the signed-in user, whose email must be the invited one; they join with its role.
export async function acceptInvitation(
  db: Database,
  user: Actor,
  input: unknown,
  clock: Clock = {},
): Promise<{ org: string; role: Role }> {
  const { token: secret } = parseInput(acceptInputSchema, input);
  return db.transaction(async (tx) => {
    const inv = await claim(tx, secret, user.id, clock.now ?? new Date());
    if (inv.email !== user.email.toLowerCase()) {
      throw forbidden(
        `This invitation is for ${inv.email}; you are signed in as ${user.email}. Sign out, then open the link again.`,
      );
    }
    if (await memberOf(tx, inv.orgId, user.id))
      throw new ConsoleError("CONSOLE_MEMBER_CONFLICT", "You are a member of this organization already.");
    await join(tx, inv, user, false);
    return { org: inv.slug, role: inv.role };
  });
}

// Accepts an invitation with a new account for the invited email (none may exist yet): name and password, then
// membership with the invitation's role, in one transaction. The user then signs in at /console/sign-in.
export async function registerWithInvitation(
  db: Database,
  input: unknown,
  clock: Clock = {},
): Promise<{ org: string; role: Role; email: string }> {
  const { token: secret, name, password } = parseInput(registerInputSchema, input);
  return db.transaction(async (tx) => {
    const inv = await claim(tx, secret, null, clock.now ?? new Date());
    const exists = () =>
      new ConsoleError(
        "CONSOLE_MEMBER_CONFLICT",
        `An account exists for ${inv.email}: sign in with it, then open the link again.`,
      );
    if (await findUserByEmail(tx, inv.email)) throw exists();
    const created = await createUser(tx, { email: inv.email, name, password }).catch((err: unknown) => {
      // Made meanwhile (another organization's invitation to the same address, accepted at the same moment).
      if ((err as { code?: string }).code === "23505") throw exists();
      throw err;
    });
    await tx.query("update invitations set accepted_by = $2 where id = $1", [inv.id, created.id]);
    await join(tx, inv, created, true);
    return { org: inv.slug, role: inv.role, email: created.email };
  });
}
