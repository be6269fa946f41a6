// Recovery codes of two-factor sign-in: 10 per set-up or regeneration, 80 random bits each, shown once and stored as
// SHA-256, each usable once in place of a code (two-factor-verify.ts).
import "server-only";
import { randomBytes } from "node:crypto";
import type { Database, Queryable } from "@/db/client";
import type { Config } from "@/lib/config";
import type { Actor } from "./access";
import { recordAudit } from "@/lib/audit/record";
import { ConsoleError } from "./console-errors";
import { parseInput } from "./keys";
import type { SignInAttempts } from "./state";
import { appCodeInputSchema, hashCode, normalizeCode } from "./two-factor-secret";
import { countWrongAttempt, hasTwoFactor, refuseWhileLocked, verifySecondFactor } from "./two-factor-verify";

// How many recovery codes a set-up or a regeneration gives.
export const RECOVERY_CODE_COUNT = 10;

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
export async function replaceRecoveryCodes(tx: Queryable, userId: string): Promise<string[]> {
  const codes = newRecoveryCodes();
  await tx.query("delete from user_recovery_codes where user_id = $1", [userId]);
  await tx.query(
    `insert into user_recovery_codes (user_id, code_hash) select $1, h from unnest($2::text[]) as h`,
    [userId, codes.map((c) => hashCode(normalizeCode(c)))],
  );
  return codes;
}

// What regenerating the recovery codes takes: a current code of the app.
export const regenerateRecoveryCodesInputSchema = appCodeInputSchema;

// New recovery codes (the old ones stop working), shown once; a current code of the app required. Audited.
export async function regenerateRecoveryCodes(
  db: Database,
  config: Config,
  attempts: SignInAttempts,
  user: Actor,
  input: unknown,
  now: number = Date.now(),
): Promise<{ recoveryCodes: string[] }> {
  const { code } = parseInput(regenerateRecoveryCodesInputSchema, input);
  return db.transaction(async (tx) => {
    if (!(await hasTwoFactor(tx, user.id)))
      throw new ConsoleError("CONSOLE_ACCOUNT_CONFLICT", "Two-factor sign-in is not on.");
    refuseWhileLocked(attempts, user.id);
    if (!/^\d{6}$/.test(normalizeCode(code)) || !(await verifySecondFactor(tx, config, user.id, code, now))) {
      await countWrongAttempt(attempts, user.id);
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
