// Two-factor sign-in of an account: set up by scanning a QR code of a new TOTP secret (two-factor-secret.ts) and
// confirmed with a first code, which turns it on and gives the recovery codes (recovery-codes.ts) once; turned off
// with the password and a code. The account page's state of it, and an organization's owner requiring it of the
// members (checked by requireRole, lib/console/access.ts). Codes are checked in two-factor-verify.ts.
import "server-only";
import { Secret } from "otpauth";
import QRCode from "qrcode";
import { z } from "zod";
import type { Database, Executor, Queryable } from "@/db/client";
import { isoSql } from "@/db/schema";
import { findUserById, verifyPassword } from "@/db/users";
import type { Config } from "@/lib/config";
import { requireRole, type Actor } from "./access";
import { recordAudit } from "@/lib/audit/record";
import { ConsoleError } from "./console-errors";
import { parseInput } from "./keys";
import { replaceRecoveryCodes } from "./recovery-codes";
import type { SignInAttempts } from "./state";
import {
  appCodeInputSchema,
  encryptSecret,
  decryptSecret,
  normalizeCode,
  totpOf,
  totpStep,
} from "./two-factor-secret";
import { countWrongAttempt, hasTwoFactor, refuseWhileLocked, verifySecondFactor } from "./two-factor-verify";

// The account's two-factor state, as the account page shows it.
export const twoFactorStatusSchema = z.object({
  enabled: z.boolean(),
  enabledAt: z.string().nullable(),
  recoveryCodesLeft: z.number().int(),
});
export type TwoFactorStatus = z.infer<typeof twoFactorStatusSchema>;

// The account's two-factor state.
export async function twoFactorStatus(db: Queryable, userId: string): Promise<TwoFactorStatus> {
  const [row] = await db.query<{ enabledAt: string | null; left: number }>(
    `select ${isoSql("t.enabled_at")} as "enabledAt",
            (select count(*)::int from user_recovery_codes r where r.user_id = $1 and r.used_at is null) as "left"
       from user_two_factor t where t.user_id = $1 and t.enabled_at is not null`,
    [userId],
  );
  return { enabled: Boolean(row), enabledAt: row?.enabledAt ?? null, recoveryCodesLeft: row?.left ?? 0 };
}

// The signed-in account as these operations need it: id, email, and whether this session came through SSO.
type AccountActor = Actor & { sso?: boolean };

// The set-up's secret: shown as text (to type into an app) and as a QR code of its otpauth:// URI.
export interface TwoFactorSetup {
  secret: string;
  uri: string;
  qrSvg: string;
}

// The account row these operations read: its email and whether it has a password.
async function accountOf(db: Queryable, userId: string) {
  const user = await findUserById(db, userId);
  if (!user) throw new ConsoleError("CONSOLE_UNAUTHENTICATED");
  const [row] = await db.query<{ passwordHash: string | null }>(
    `select password_hash as "passwordHash" from users where id = $1`,
    [userId],
  );
  return { ...user, passwordHash: row?.passwordHash ?? null };
}

// Starts a set-up (or starts it over): a new secret, kept encrypted and pending until confirmed with a code. Refused
// when two-factor is already on, and for an account without a password (it signs in with its provider only).
export async function startTwoFactorSetup(
  db: Database,
  config: Config,
  user: AccountActor,
): Promise<TwoFactorSetup> {
  const account = await accountOf(db, user.id);
  if (!account.passwordHash)
    throw new ConsoleError(
      "CONSOLE_ACCOUNT_CONFLICT",
      "This account signs in with your organization's identity provider: its own sign-in asks for your second factor.",
    );
  if (await hasTwoFactor(db, user.id))
    throw new ConsoleError("CONSOLE_ACCOUNT_CONFLICT", "Two-factor sign-in is already on.");
  const secret = new Secret({ size: 20 }).base32;
  await db.query(
    `insert into user_two_factor (user_id, secret_encrypted) values ($1, $2)
     on conflict (user_id) do update set secret_encrypted = excluded.secret_encrypted, last_step = null,
       created_at = now()
     where user_two_factor.enabled_at is null`,
    [user.id, encryptSecret(config, user.id, secret)],
  );
  const uri = totpOf(secret, account.email).toString();
  const qrSvg = await QRCode.toString(uri, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
  return { secret, uri, qrSvg };
}

// What confirming a set-up takes: the app's current code.
export const confirmTwoFactorInputSchema = appCodeInputSchema;
export type ConfirmTwoFactorInput = z.infer<typeof confirmTwoFactorInputSchema>;

// Confirms the pending set-up with a code of its secret: two-factor is on, and the 10 recovery codes are returned
// (shown once). Audited (account.two_factor_enabled).
export async function confirmTwoFactor(
  db: Database,
  config: Config,
  user: AccountActor,
  input: unknown,
  now: number = Date.now(),
): Promise<{ enabled: true; recoveryCodes: string[] }> {
  const { code } = parseInput(confirmTwoFactorInputSchema, input);
  return db.transaction(async (tx) => {
    const [row] = await tx.query<{ secret: string; enabled: boolean }>(
      `select secret_encrypted as secret, enabled_at is not null as enabled from user_two_factor
        where user_id = $1 for update`,
      [user.id],
    );
    if (!row) throw new ConsoleError("CONSOLE_ACCOUNT_CONFLICT", "Start the set-up first.");
    if (row.enabled) throw new ConsoleError("CONSOLE_ACCOUNT_CONFLICT", "Two-factor sign-in is already on.");
    const step = totpStep(decryptSecret(config, user.id, row.secret), normalizeCode(code), now);
    if (step === null) throw new ConsoleError("CONSOLE_WRONG_CODE");
    await tx.query(`update user_two_factor set enabled_at = $2, last_step = $3 where user_id = $1`, [
      user.id,
      new Date(now),
      step,
    ]);
    const recoveryCodes = await replaceRecoveryCodes(tx, user.id);
    await recordAudit(tx, {
      orgId: null,
      actor: user,
      action: "account.two_factor_enabled",
      targetId: user.id,
    });
    return { enabled: true as const, recoveryCodes };
  });
}

// What turning two-factor off takes: the account's password and a code (or a recovery code).
export const disableTwoFactorInputSchema = z
  .object({
    password: z.string().min(1, "Enter your password.").max(1000),
    code: z.string().trim().min(1, "Enter a code of your app or a recovery code.").max(64),
  })
  .strict();
export type DisableTwoFactorInput = z.infer<typeof disableTwoFactorInputSchema>;

// Turns two-factor off (password and a code required): the secret and the recovery codes are deleted. Audited.
export async function disableTwoFactor(
  db: Database,
  config: Config,
  attempts: SignInAttempts,
  user: AccountActor,
  input: unknown,
  now: number = Date.now(),
): Promise<{ enabled: false }> {
  const { password, code } = parseInput(disableTwoFactorInputSchema, input);
  return db.transaction(async (tx) => {
    const account = await accountOf(tx, user.id);
    if (!(await hasTwoFactor(tx, user.id)))
      throw new ConsoleError("CONSOLE_ACCOUNT_CONFLICT", "Two-factor sign-in is not on.");
    refuseWhileLocked(attempts, user.id);
    if (!(await verifyPassword(password, account.passwordHash))) {
      await countWrongAttempt(attempts, user.id);
      throw new ConsoleError("CONSOLE_WRONG_PASSWORD");
    }
    const factor = await verifySecondFactor(tx, config, user.id, code, now);
    if (!factor) {
      await countWrongAttempt(attempts, user.id);
      throw new ConsoleError("CONSOLE_WRONG_CODE");
    }
    await tx.query("delete from user_recovery_codes where user_id = $1", [user.id]);
    await tx.query("delete from user_two_factor where user_id = $1", [user.id]);
    await recordAudit(tx, {
      orgId: null,
      actor: user,
      action: "account.two_factor_disabled",
      targetId: user.id,
      details: { with: factor },
    });
    return { enabled: false as const };
  });
}

// What the organization setting takes.
export const orgTwoFactorInputSchema = z.object({ required: z.boolean() }).strict();
export type OrgTwoFactorInput = z.infer<typeof orgTwoFactorInputSchema>;

// An owner requires (or stops requiring) two-factor sign-in of the organization's members. To require it, the owner's
// own session must meet it (two-factor on, or signed in through SSO). Audited when it changes.
export async function setOrgTwoFactorRequired(
  db: Database,
  user: AccountActor,
  orgSlug: string,
  input: unknown,
): Promise<{ org: string; twoFactorRequired: boolean }> {
  return db.transaction(async (tx: Executor) => {
    const { org, role } = await requireRole(tx, user, orgSlug, "member");
    if (role !== "owner")
      throw new ConsoleError("CONSOLE_FORBIDDEN", "Only owners of this organization change this setting.");
    const { required } = parseInput(orgTwoFactorInputSchema, input);
    if (required && !user.sso && !(await hasTwoFactor(tx, user.id)))
      throw new ConsoleError(
        "CONSOLE_ACCOUNT_CONFLICT",
        "Turn on two-factor sign-in for your own account before requiring it of the organization.",
      );
    const changed = await tx.query(
      `update organizations set two_factor_required = $2, updated_at = now()
        where id = $1 and two_factor_required <> $2 returning id`,
      [org.id, required],
    );
    if (changed.length)
      await recordAudit(tx, {
        orgId: org.id,
        actor: user,
        action: required ? "org.two_factor_required" : "org.two_factor_not_required",
        targetId: org.id,
      });
    return { org: org.slug, twoFactorRequired: required };
  });
}
