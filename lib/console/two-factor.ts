// Two-factor sign-in (issue 26): a TOTP secret per account (RFC 6238 through `otpauth`: SHA-1, 6 digits, 30 s, as
// every authenticator app reads them), set up by scanning a QR code and confirmed with a first code; then 10 recovery
// codes shown once. A code is accepted within ±1 step (30 s either side, for clock drift) and never twice: the step
// of the last accepted code is kept and a code must be of a later step (no replay within its window). A recovery code
// works in place of a code, once. The secret is encrypted at rest (AES-256-GCM, key derived from the sessions'
// secret: changing AUTH_SECRET makes every account set two-factor up again); recovery codes are stored as SHA-256.
// An organization's owner may require two-factor of its members (checked by requireRole, lib/console/access.ts).
import "server-only";
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";
import { Secret, TOTP } from "otpauth";
import QRCode from "qrcode";
import { z } from "zod";
import type { Executor, Queryable } from "@/db/client";
import { isoSql } from "@/db/schema";
import { findUserById, verifyPassword } from "@/db/users";
import type { Config } from "@/lib/config";
import type { Runtime } from "@/lib/runtime";
import { requireRole, type Actor } from "./access";
import { recordAudit } from "./audit";
import { authSecret } from "./auth-secret";
import { ConsoleError } from "./console-errors";
import { parseInput } from "./keys";

// The TOTP parameters (those of Google Authenticator, 1Password, Aegis…): never change them for enabled accounts.
export const TOTP_PARAMS = { algorithm: "SHA1", digits: 6, period: 30 } as const;
// Steps accepted either side of the current one.
export const TOTP_WINDOW = 1;
// The issuer shown in authenticator apps.
export const TOTP_ISSUER = "Public Catalog API";
// How many recovery codes a set-up or a regeneration gives.
export const RECOVERY_CODE_COUNT = 10;

type SecretConfig = Pick<Config, "AUTH_SECRET" | "DATA_DIR" | "dbDriver">;

// The key that encrypts TOTP secrets: HKDF-SHA256 of the sessions' secret, for this purpose only.
function encryptionKey(config: SecretConfig): Buffer {
  return Buffer.from(hkdfSync("sha256", authSecret(config), "", "console two-factor secret v1", 32));
}

// Encrypts a base32 TOTP secret for one account ("v1.<iv>.<ciphertext+tag>", base64url); the user id is the
// associated data, so a secret copied onto another account's row does not decrypt.
export function encryptSecret(config: SecretConfig, userId: string, base32: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", encryptionKey(config), iv);
  cipher.setAAD(Buffer.from(userId));
  const body = Buffer.concat([cipher.update(base32, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return `v1.${iv.toString("base64url")}.${body.toString("base64url")}`;
}

// Decrypts what encryptSecret made for this account; throws on any tampering or another key.
export function decryptSecret(config: SecretConfig, userId: string, stored: string): string {
  const [version, iv, body] = stored.split(".");
  if (version !== "v1" || !iv || !body) throw new Error("Unknown two-factor secret format");
  const data = Buffer.from(body, "base64url");
  const decipher = createDecipheriv("aes-256-gcm", encryptionKey(config), Buffer.from(iv, "base64url"));
  decipher.setAAD(Buffer.from(userId));
  decipher.setAuthTag(data.subarray(data.length - 16));
  return Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]).toString(
    "utf8",
  );
}

// The TOTP of a base32 secret, labelled with the account's email.
export function totpOf(base32: string, email: string): TOTP {
  return new TOTP({ issuer: TOTP_ISSUER, label: email, secret: Secret.fromBase32(base32), ...TOTP_PARAMS });
}

// The time step of a code accepted at `now` (ms), or null: a 6-digit code within ±TOTP_WINDOW steps.
export function totpStep(base32: string, code: string, now: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = TOTP.validate({
    token: code,
    secret: Secret.fromBase32(base32),
    timestamp: now,
    window: TOTP_WINDOW,
    ...TOTP_PARAMS,
  });
  return delta === null ? null : TOTP.counter({ period: TOTP_PARAMS.period, timestamp: now }) + delta;
}

// A code as typed: spaces and dashes dropped, lower case.
function normalizeCode(code: string): string {
  return code.replace(/[\s-]/g, "").toLowerCase();
}

const hashCode = (normalized: string) => createHash("sha256").update(normalized).digest("hex");

// New recovery codes: 80 random bits each, base32, shown as "xxxx-xxxx-xxxx-xxxx".
export function newRecoveryCodes(n = RECOVERY_CODE_COUNT): string[] {
  const alphabet = "abcdefghijklmnopqrstuvwxyz234567";
  return Array.from({ length: n }, () => {
    const bytes = randomBytes(10);
    let bits = 0n;
    for (const b of bytes) bits = (bits << 8n) | BigInt(b);
    let s = "";
    for (let i = 0; i < 16; i++) s = alphabet[Number((bits >> BigInt(5 * i)) & 31n)] + s;
    return s.match(/.{4}/g)!.join("-");
  });
}

// Replaces the account's recovery codes with new ones; returns them (shown once).
async function replaceRecoveryCodes(tx: Queryable, userId: string): Promise<string[]> {
  const codes = newRecoveryCodes();
  await tx.query("delete from user_recovery_codes where user_id = $1", [userId]);
  await tx.query(
    `insert into user_recovery_codes (user_id, code_hash) select $1, h from unnest($2::text[]) as h`,
    [userId, codes.map((c) => hashCode(normalizeCode(c)))],
  );
  return codes;
}

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

// True when the account has two-factor sign-in on.
export async function hasTwoFactor(db: Queryable, userId: string): Promise<boolean> {
  const rows = await db.query("select 1 from user_two_factor where user_id = $1 and enabled_at is not null", [
    userId,
  ]);
  return rows.length > 0;
}

// What a second factor was: a TOTP code or a recovery code (then consumed).
export type SecondFactor = "totp" | "recovery";

// Checks a second factor of an account with two-factor on, at `now` (ms): a 6-digit code of a step later than the
// last accepted one (the step is then recorded, in one statement: two requests with the same code cannot both pass),
// or an unused recovery code (then marked used). Null when it is neither, or the account has no two-factor.
export async function verifySecondFactor(
  db: Queryable,
  config: SecretConfig,
  userId: string,
  code: string,
  now: number = Date.now(),
): Promise<SecondFactor | null> {
  const normalized = normalizeCode(code);
  if (!normalized || normalized.length > 64) return null;
  const [row] = await db.query<{ secret: string }>(
    `select secret_encrypted as secret from user_two_factor where user_id = $1 and enabled_at is not null`,
    [userId],
  );
  if (!row) return null;
  if (/^\d{6}$/.test(normalized)) {
    let secret: string;
    try {
      secret = decryptSecret(config, userId, row.secret);
    } catch {
      // Another AUTH_SECRET than the set-up's: no code can match (a recovery code still works).
      console.error(`[console] two-factor secret of ${userId} does not decrypt (AUTH_SECRET changed?)`);
      return null;
    }
    const step = totpStep(secret, normalized, now);
    if (step === null) return null;
    const taken = await db.query(
      `update user_two_factor set last_step = $2
        where user_id = $1 and enabled_at is not null and (last_step is null or last_step < $2) returning user_id`,
      [userId, step],
    );
    return taken.length ? "totp" : null;
  }
  const used = await db.query(
    `update user_recovery_codes set used_at = $3
      where user_id = $1 and code_hash = $2 and used_at is null returning user_id`,
    [userId, hashCode(normalized), new Date(now)],
  );
  return used.length ? "recovery" : null;
}

// Wrong passwords and codes typed in the account's settings (a session left open is not a way to guess them): they
// count on the sign-in failure limiter per account (SIGN_IN_FAILURE_LIMIT per SIGN_IN_FAILURE_WINDOW_SECONDS, a key of
// their own), and a full window refuses every such check of the account (429) until it frees.
const attemptKey = (userId: string) => `account-check:${userId}`;

// Throws CONSOLE_TOO_MANY_ATTEMPTS while the account's checks are refused.
export function refuseWhileLocked(rt: Runtime, userId: string, now: number = Date.now()): void {
  const until = rt.signInBlocks.get(attemptKey(userId));
  if (until !== undefined && until > now) throw new ConsoleError("CONSOLE_TOO_MANY_ATTEMPTS");
}

// Counts one wrong password or code of the account's settings; a full window locks its checks.
export async function countWrongAttempt(
  rt: Runtime,
  userId: string,
  now: number = Date.now(),
): Promise<void> {
  const key = attemptKey(userId);
  const r = await rt.limiters.signInFailureByAccount.limit(key);
  if (!r.success || r.remaining === 0)
    rt.signInBlocks.set(key, r.reset > now ? r.reset : now + rt.config.SIGN_IN_FAILURE_WINDOW_SECONDS * 1000);
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
export async function startTwoFactorSetup(rt: Runtime, user: AccountActor): Promise<TwoFactorSetup> {
  const db = await rt.db();
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
    [user.id, encryptSecret(rt.config, user.id, secret)],
  );
  const uri = totpOf(secret, account.email).toString();
  const qrSvg = await QRCode.toString(uri, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
  return { secret, uri, qrSvg };
}

// What confirming a set-up takes: the app's current code.
export const confirmTwoFactorInputSchema = z
  .object({ code: z.string().trim().min(1, "Enter the 6-digit code of your app.").max(20) })
  .strict();
export type ConfirmTwoFactorInput = z.infer<typeof confirmTwoFactorInputSchema>;

// Confirms the pending set-up with a code of its secret: two-factor is on, and the 10 recovery codes are returned
// (shown once). Audited (account.two_factor_enabled).
export async function confirmTwoFactor(
  rt: Runtime,
  user: AccountActor,
  input: unknown,
  now: number = Date.now(),
): Promise<{ enabled: true; recoveryCodes: string[] }> {
  const { code } = parseInput(confirmTwoFactorInputSchema, input);
  return (await rt.db()).transaction(async (tx) => {
    const [row] = await tx.query<{ secret: string; enabled: boolean }>(
      `select secret_encrypted as secret, enabled_at is not null as enabled from user_two_factor
        where user_id = $1 for update`,
      [user.id],
    );
    if (!row) throw new ConsoleError("CONSOLE_ACCOUNT_CONFLICT", "Start the set-up first.");
    if (row.enabled) throw new ConsoleError("CONSOLE_ACCOUNT_CONFLICT", "Two-factor sign-in is already on.");
    const step = totpStep(decryptSecret(rt.config, user.id, row.secret), normalizeCode(code), now);
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
  rt: Runtime,
  user: AccountActor,
  input: unknown,
  now: number = Date.now(),
): Promise<{ enabled: false }> {
  const { password, code } = parseInput(disableTwoFactorInputSchema, input);
  return (await rt.db()).transaction(async (tx) => {
    const account = await accountOf(tx, user.id);
    if (!(await hasTwoFactor(tx, user.id)))
      throw new ConsoleError("CONSOLE_ACCOUNT_CONFLICT", "Two-factor sign-in is not on.");
    refuseWhileLocked(rt, user.id);
    if (!(await verifyPassword(password, account.passwordHash))) {
      await countWrongAttempt(rt, user.id);
      throw new ConsoleError("CONSOLE_WRONG_PASSWORD");
    }
    const factor = await verifySecondFactor(tx, rt.config, user.id, code, now);
    if (!factor) {
      await countWrongAttempt(rt, user.id);
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

// What regenerating the recovery codes takes: a current code of the app.
export const regenerateRecoveryCodesInputSchema = confirmTwoFactorInputSchema;

// New recovery codes (the old ones stop working), shown once; a current code of the app required. Audited.
export async function regenerateRecoveryCodes(
  rt: Runtime,
  user: AccountActor,
  input: unknown,
  now: number = Date.now(),
): Promise<{ recoveryCodes: string[] }> {
  const { code } = parseInput(regenerateRecoveryCodesInputSchema, input);
  return (await rt.db()).transaction(async (tx) => {
    if (!(await hasTwoFactor(tx, user.id)))
      throw new ConsoleError("CONSOLE_ACCOUNT_CONFLICT", "Two-factor sign-in is not on.");
    refuseWhileLocked(rt, user.id);
    if (
      !/^\d{6}$/.test(normalizeCode(code)) ||
      !(await verifySecondFactor(tx, rt.config, user.id, code, now))
    ) {
      await countWrongAttempt(rt, user.id);
      throw new ConsoleError("CONSOLE_WRONG_CODE", "Enter the current 6-digit code of your app.");
    }
    const recoveryCodes = await replaceRecoveryCodes(tx, user.id);
    await recordAudit(tx, {
      orgId: null,
      actor: user,
      action: "account.recovery_codes_regenerated",
      targetId: user.id,
    });
    return { recoveryCodes };
  });
}

// Records a recovery code used at sign-in (the sign-in consumed it).
export async function auditRecoveryCodeUsed(db: Queryable, user: Actor): Promise<void> {
  await recordAudit(db, {
    orgId: null,
    actor: user,
    action: "account.recovery_code_used",
    targetId: user.id,
  });
}

// What the organization setting takes.
export const orgTwoFactorInputSchema = z.object({ required: z.boolean() }).strict();
export type OrgTwoFactorInput = z.infer<typeof orgTwoFactorInputSchema>;

// An owner requires (or stops requiring) two-factor sign-in of the organization's members. To require it, the owner's
// own session must meet it (two-factor on, or signed in through SSO). Audited when it changes.
export async function setOrgTwoFactorRequired(
  rt: Runtime,
  user: AccountActor,
  orgSlug: string,
  input: unknown,
): Promise<{ org: string; twoFactorRequired: boolean }> {
  return (await rt.db()).transaction(async (tx: Executor) => {
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
