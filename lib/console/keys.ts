// The console's API key operations for one organization: list (every member), create, roll and revoke (owners and
// admins). Each checks the role and that the key belongs to the organization (another organization's key id is
// "not found"), records the audit event in the same transaction, and makes this instance's key cache forget a key
// whose validity changed, so that a revoked key (or one rolled with no grace) is refused at once here.
import { z } from "zod";
import { previewOn } from "@/lib/preview";
import type { Config } from "@/lib/config";
import {
  createApiKey,
  getApiKey,
  InvalidScopeError,
  KeyNotActiveError,
  listApiKeys,
  revokeApiKey,
  rollKeyIn,
  type ApiKeySummary,
  type CreatedApiKey,
  validateScopes,
} from "@/lib/keys/store";
import type { KeyCache } from "@/lib/keys/cache";
import { READ_SCOPES, WRITE_SCOPE, type Scope } from "@/lib/keys/scopes";
import type { Database } from "@/db/client";
import { canManage, requireRole, type Actor, type Membership } from "./access";
import { recordAudit } from "@/lib/audit/record";
import { ConsoleError } from "./console-errors";

const HOUR = 3600;
const DAY = 24 * HOUR;

// The grace periods the console offers when rolling a key, default first.
export const GRACE_OPTIONS = [
  { seconds: DAY, label: "24 hours" },
  { seconds: HOUR, label: "1 hour" },
  { seconds: 7 * DAY, label: "7 days" },
  { seconds: 0, label: "Now (the old key stops at once)" },
] as const;

// The longest grace a roll accepts.
export const MAX_GRACE_SECONDS = 30 * DAY;

// One scope the create form offers: checked by default or not, and whether it belongs to the write preview.
export interface ScopeChoice {
  scope: Scope;
  checked: boolean;
  preview: boolean;
}

// The scopes the create form offers: the five read scopes, checked by default; products:write only while the
// `writes` preview feature is on, never checked by default. (The `details` feature adds no scope: its reads take the
// scope of the resource read, and channels any read scope.)
export function keyScopeChoices(config: Pick<Config, "preview">): ScopeChoice[] {
  const choices: ScopeChoice[] = READ_SCOPES.map((scope) => ({ scope, checked: true, preview: false }));
  if (previewOn("writes", config)) choices.push({ scope: WRITE_SCOPE, checked: false, preview: true });
  return choices;
}

const KNOWN_SCOPES = [...READ_SCOPES, WRITE_SCOPE] as const;

// What creating a key takes: a name, at least one scope (the form sends the five read scopes checked by default;
// products:write is refused by createOrgKey while the write preview is off), an optional expiry in the future.
export const createKeyInputSchema = z
  .object({
    name: z.string().trim().min(1, "A key needs a name.").max(100, "A key name has at most 100 characters."),
    scopes: z
      .array(z.enum(KNOWN_SCOPES, { error: `expected one of ${READ_SCOPES.join(", ")}` }))
      .min(1, "Select at least one scope.")
      .transform((s) => KNOWN_SCOPES.filter((r) => s.includes(r))),
    expiresAt: z.iso
      .datetime({ offset: true, error: "expected an ISO 8601 date and time" })
      .nullish()
      .refine((v) => v == null || Date.parse(v) > Date.now(), "The expiry must be in the future."),
  })
  .strict();
export type CreateKeyInput = z.input<typeof createKeyInputSchema>;

// What rolling a key takes: the old key's grace period in seconds (default 24 h; 0: it stops at once).
export const rollKeyInputSchema = z
  .object({ graceSeconds: z.number().int().min(0).max(MAX_GRACE_SECONDS).default(DAY) })
  .strict();
export type RollKeyInput = z.input<typeof rollKeyInputSchema>;

// A roll's outcome: the new key (its secret shown once) and the old key, expiring at the grace's end.
export interface RolledOrgKey {
  key: CreatedApiKey;
  previous: ApiKeySummary;
}

// Parses input with a schema; a failure is a 400 naming the field.
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const r = schema.safeParse(input ?? {});
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const field = issue.path.join(".");
  throw new ConsoleError("CONSOLE_INVALID", field ? `${field}: ${issue.message}` : issue.message);
}

// The organization's keys (every member may list them), with the user's membership there.
export async function listOrgKeys(
  db: Database,
  user: Actor,
  orgSlug: string,
): Promise<Membership & { canManage: boolean; keys: ApiKeySummary[] }> {
  const membership = await requireRole(db, user, orgSlug, "member");
  return {
    ...membership,
    canManage: canManage(membership.role),
    keys: await listApiKeys(db, membership.org.id),
  };
}

// Creates a key (owners and admins); the secret is in the answer only. products:write is granted only while the
// write preview is on.
export async function createOrgKey(
  db: Database,
  config: Config,
  user: Actor,
  orgSlug: string,
  input: unknown,
): Promise<CreatedApiKey> {
  return db.transaction(async (tx) => {
    const { org } = await requireRole(tx, user, orgSlug, "admin");
    // Validated after the role check: who may not create learns nothing from the input's errors.
    const { name, scopes, expiresAt } = parseInput(createKeyInputSchema, input);
    const allowWrite = previewOn("writes", config);
    try {
      validateScopes(scopes, allowWrite);
    } catch (err) {
      if (err instanceof InvalidScopeError)
        throw new ConsoleError("CONSOLE_INVALID", `scopes: ${err.message}.`);
      throw err;
    }
    const key = await createApiKey(tx, {
      orgId: org.id,
      name,
      scopes,
      expiresAt: expiresAt ? new Date(expiresAt) : null,
      createdBy: user.id,
      allowWrite,
    });
    await recordAudit(tx, {
      orgId: org.id,
      actor: user,
      action: "api_key.created",
      targetId: key.id,
      details: { name: key.name, prefix: key.prefix, scopes: key.scopes, expiresAt: key.expiresAt },
    });
    return key;
  });
}

// Rolls a key (owners and admins): a new key with the same name and scopes; the old one works until the grace ends.
export async function rollOrgKey(
  db: Database,
  keyCache: KeyCache,
  user: Actor,
  orgSlug: string,
  keyId: string,
  input: unknown,
): Promise<RolledOrgKey> {
  const rolled = await db.transaction(async (tx) => {
    const { org } = await requireRole(tx, user, orgSlug, "admin");
    const { graceSeconds } = parseInput(rollKeyInputSchema, input);
    let r;
    try {
      r = await rollKeyIn(tx, org.id, keyId, graceSeconds, user.id);
    } catch (err) {
      if (err instanceof KeyNotActiveError) {
        throw new ConsoleError(
          "CONSOLE_KEY_NOT_ACTIVE",
          `This key is ${err.status}: only an active key can be rolled.`,
        );
      }
      throw err;
    }
    if (!r) throw new ConsoleError("CONSOLE_NOT_FOUND", "No such API key in this organization.");
    await recordAudit(tx, {
      orgId: org.id,
      actor: user,
      action: "api_key.rolled",
      targetId: keyId,
      details: {
        name: r.previous.name,
        prefix: r.previous.prefix,
        graceSeconds,
        expiresAt: r.previous.expiresAt,
        newKeyId: r.created.id,
        newPrefix: r.created.prefix,
      },
    });
    return { key: r.created, previous: r.previous };
  });
  // The old key's expiry changed: this instance reads it again on its next use (at once refused with no grace).
  keyCache.forgetKeyId(keyId);
  return rolled;
}

// Revokes a key (owners and admins), effective at once on this instance; revoking a revoked key changes nothing.
export async function revokeOrgKey(
  db: Database,
  keyCache: KeyCache,
  user: Actor,
  orgSlug: string,
  keyId: string,
): Promise<ApiKeySummary> {
  const revoked = await db.transaction(async (tx) => {
    const { org } = await requireRole(tx, user, orgSlug, "admin");
    const before = await getApiKey(tx, org.id, keyId, true);
    if (!before) throw new ConsoleError("CONSOLE_NOT_FOUND", "No such API key in this organization.");
    if (before.revokedAt) return before;
    const key = (await revokeApiKey(tx, keyId, org.id))!;
    await recordAudit(tx, {
      orgId: org.id,
      actor: user,
      action: "api_key.revoked",
      targetId: keyId,
      details: { name: key.name, prefix: key.prefix },
    });
    return key;
  });
  keyCache.forgetKeyId(keyId);
  return revoked;
}
