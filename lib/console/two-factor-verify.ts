// Checking a second factor: at sign-in (lib/console/auth.ts) and in the account's settings. A TOTP code is never
// accepted twice (nor an older one): the step of the last accepted code is kept and a code must be of a later step.
// A recovery code works in place of a code, once. Wrong passwords and codes typed in the settings count on the
// sign-in failure limiter.
import "server-only";
import type { Queryable } from "@/db/client";
import type { Actor } from "./access";
import { recordAudit } from "@/lib/audit/record";
import { ConsoleError } from "./console-errors";
import type { SignInAttempts } from "./state";
import { decryptSecret, hashCode, normalizeCode, totpStep, type SecretConfig } from "./two-factor-secret";

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

// Records a recovery code used at sign-in (the sign-in consumed it).
export async function auditRecoveryCodeUsed(db: Queryable, user: Actor): Promise<void> {
  await recordAudit(db, {
    orgId: null,
    actor: user,
    action: "account.recovery_code_used",
    targetId: user.id,
  });
}

// Wrong passwords and codes typed in the account's settings (a session left open is not a way to guess them): they
// count on the sign-in failure limiter per account (SIGN_IN_FAILURE_LIMIT per SIGN_IN_FAILURE_WINDOW_SECONDS, a key of
// their own), and a full window refuses every such check of the account (429) until it frees.
const attemptKey = (userId: string) => `account-check:${userId}`;

// Throws CONSOLE_TOO_MANY_ATTEMPTS while the account's checks are refused.
export function refuseWhileLocked(attempts: SignInAttempts, userId: string, now: number = Date.now()): void {
  const until = attempts.state.signInBlocks.get(attemptKey(userId));
  if (until !== undefined && until > now) throw new ConsoleError("CONSOLE_TOO_MANY_ATTEMPTS");
}

// Counts one wrong password or code of the account's settings; a full window locks its checks.
export async function countWrongAttempt(
  attempts: SignInAttempts,
  userId: string,
  now: number = Date.now(),
): Promise<void> {
  const key = attemptKey(userId);
  const r = await attempts.limiters.signInFailureByAccount.limit(key);
  if (!r.success || r.remaining === 0)
    attempts.state.signInBlocks.set(key, r.reset > now ? r.reset : now + attempts.windowSeconds * 1000);
}
