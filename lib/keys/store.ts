import type { Database, Queryable } from "@/db/client";
import { ID_PREFIX, isoSql, newId } from "@/db/schema";
import { displayPrefix, generateApiKey, hashApiKey, isWellFormedApiKey, KEY_PREFIX } from "./format";
import { READ_SCOPES, WRITE_SCOPE, type Scope } from "./scopes";

const KEY_COLUMNS = `id, name, prefix, scopes,
  ${isoSql("created_at")} as "createdAt",
  ${isoSql("expires_at")} as "expiresAt",
  ${isoSql("last_used_at")} as "lastUsedAt",
  ${isoSql("revoked_at")} as "revokedAt",
  rolled_to as "rolledTo",
  case when revoked_at is not null then 'revoked'
       when expires_at is not null and expires_at <= now() then 'expired'
       else 'active' end as status`;

// The status of a stored key, as listed in the console and by the CLI.
export type ApiKeyStatus = "active" | "expired" | "revoked";

// A stored key as listed (never the secret): timestamps are ISO strings with milliseconds.
export interface ApiKeySummary {
  id: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
  /** The key that replaced this one when it was rolled (it works until expiresAt, the grace's end). */
  rolledTo: string | null;
  status: ApiKeyStatus;
}

// A key just created: the only time its secret `key` is available.
export interface CreatedApiKey {
  id: string;
  key: string;
  prefix: string;
  name: string;
  scopes: Scope[];
  createdAt: string;
  expiresAt: string | null;
}

// An organization row as the key tools need it.
export interface Organization {
  id: string;
  slug: string;
  name: string;
}

// A scope list that cannot be granted (unknown scope, write scope while writes are off, empty list).
export class InvalidScopeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvalidScopeError";
  }
}

// Checks and normalises a requested scope list (deduplicated, in the portal's order); throws InvalidScopeError.
export function validateScopes(scopes: readonly string[], allowWrite = false): Scope[] {
  const known: readonly string[] = [...READ_SCOPES, WRITE_SCOPE];
  const wanted = new Set(scopes.map((s) => s.trim()).filter(Boolean));
  if (wanted.size === 0) throw new InvalidScopeError("At least one scope is required");
  for (const s of wanted) {
    if (!known.includes(s)) {
      throw new InvalidScopeError(`Unknown scope "${s}" (allowed: ${[...READ_SCOPES].join(", ")})`);
    }
    if (s === WRITE_SCOPE && !allowWrite) {
      throw new InvalidScopeError(
        `Scope "${WRITE_SCOPE}" exists only when the write preview is on (PUBLIC_API_PREVIEW=writes)`,
      );
    }
  }
  return (known as readonly Scope[]).filter((s) => wanted.has(s));
}

// Creates an API key for an organization and returns it with its secret (shown once; only its SHA-256 is stored).
export async function createApiKey(
  db: Queryable,
  opts: {
    orgId: string;
    name: string;
    scopes?: readonly string[];
    expiresAt?: Date | null;
    createdBy?: string | null;
    allowWrite?: boolean;
  },
): Promise<CreatedApiKey> {
  const name = opts.name.trim();
  if (!name) throw new Error("A key needs a name");
  if (name.length > 100) throw new Error("A key name has at most 100 characters");
  const scopes = validateScopes(opts.scopes ?? READ_SCOPES, opts.allowWrite ?? false);
  if (opts.expiresAt && Number.isNaN(opts.expiresAt.getTime())) throw new Error("Invalid expiry date");
  const key = generateApiKey();
  const id = newId(ID_PREFIX.apiKey);
  const [row] = await db.query<Omit<CreatedApiKey, "key">>(
    `insert into api_keys (id, org_id, name, prefix, key_hash, scopes, created_by, expires_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8)
     returning id, name, prefix, scopes, ${isoSql("created_at")} as "createdAt", ${isoSql("expires_at")} as "expiresAt"`,
    [
      id,
      opts.orgId,
      name,
      displayPrefix(key),
      hashApiKey(key),
      scopes,
      opts.createdBy ?? null,
      opts.expiresAt ? opts.expiresAt.toISOString() : null,
    ],
  );
  return { ...row!, key };
}

// Lists an organization's keys, newest first (no secrets: they are not stored).
export async function listApiKeys(db: Queryable, orgId: string): Promise<ApiKeySummary[]> {
  return db.query<ApiKeySummary>(
    `select ${KEY_COLUMNS} from api_keys where org_id = $1 order by created_at desc, id desc`,
    [orgId],
  );
}

// One of an organization's keys by id, or null (another organization's key is null too); `lock` takes a row lock
// for the caller's transaction.
export async function getApiKey(
  db: Queryable,
  orgId: string,
  keyId: string,
  lock = false,
): Promise<ApiKeySummary | null> {
  const rows = await db.query<ApiKeySummary>(
    `select ${KEY_COLUMNS} from api_keys where id = $1 and org_id = $2 ${lock ? "for update" : ""}`,
    [keyId, orgId],
  );
  return rows[0] ?? null;
}

// Revokes a key given its full secret (looked up by hash) or its id, optionally only within one organization;
// returns the key (already revoked keys keep their first revocation time) or null when there is no such key.
export async function revokeApiKey(
  db: Queryable,
  keyOrId: string,
  orgId?: string,
): Promise<(ApiKeySummary & { orgId: string }) | null> {
  const value = keyOrId.trim();
  const byKey = value.startsWith(KEY_PREFIX);
  if (byKey && !isWellFormedApiKey(value)) return null;
  const params: unknown[] = [byKey ? hashApiKey(value) : value];
  if (orgId !== undefined) params.push(orgId);
  const rows = await db.query<ApiKeySummary & { orgId: string }>(
    `update api_keys set revoked_at = coalesce(revoked_at, now())
      where ${byKey ? "key_hash" : "id"} = $1 ${orgId !== undefined ? "and org_id = $2" : ""}
      returning ${KEY_COLUMNS}, org_id as "orgId"`,
    params,
  );
  return rows[0] ?? null;
}

// The organization with this slug, or null.
export async function findOrganizationBySlug(db: Queryable, slug: string): Promise<Organization | null> {
  const rows = await db.query<Organization>("select id, slug, name from organizations where slug = $1", [
    slug,
  ]);
  return rows[0] ?? null;
}

// A key that cannot be rolled: revoked, expired, or already rolled (its successor is the one to roll).
export class KeyNotActiveError extends Error {
  constructor(
    readonly keyId: string,
    readonly status: ApiKeyStatus | "rolled",
  ) {
    super(`API key ${keyId} is ${status}: only an active key can be rolled`);
    this.name = "KeyNotActiveError";
  }
}

// What a roll did: the key replaced (its expiry now the grace's end) and the new key, with its secret (shown once).
export interface RolledApiKey {
  previous: ApiKeySummary;
  created: CreatedApiKey;
}

// Rolls a key inside the caller's transaction (see rollKey): locks the old row, creates a key with the same name
// and scopes (no expiry), and sets the old key's expiry to now + grace (0: now), never later than an expiry it
// already had (truncated to the column's milliseconds, so that grace 0 is already past, never rounded up to the
// next millisecond). Null when the organization has no such key; KeyNotActiveError when it is revoked, expired or rolled.
export async function rollKeyIn(
  tx: Queryable,
  orgId: string,
  keyId: string,
  graceSeconds: number,
  createdBy: string | null = null,
): Promise<RolledApiKey | null> {
  if (!Number.isSafeInteger(graceSeconds) || graceSeconds < 0) throw new Error("Invalid grace period");
  const old = await getApiKey(tx, orgId, keyId, true);
  if (!old) return null;
  if (old.status !== "active") throw new KeyNotActiveError(keyId, old.status);
  if (old.rolledTo) throw new KeyNotActiveError(keyId, "rolled");
  // The old key's scopes as they are stored (a write scope granted under the preview stays granted).
  const created = await createApiKey(tx, {
    orgId,
    name: old.name,
    scopes: old.scopes,
    createdBy,
    allowWrite: true,
  });
  const [previous] = await tx.query<ApiKeySummary>(
    `update api_keys
        set expires_at = least(coalesce(expires_at, 'infinity'::timestamptz), date_trunc('milliseconds', now() + make_interval(secs => $3))),
            rolled_to = $4
      where id = $1 and org_id = $2
      returning ${KEY_COLUMNS}`,
    [keyId, orgId, graceSeconds, created.id],
  );
  return { previous: previous!, created };
}

// Rolls a key in one transaction of its own (rollKeyIn); returns the new key, secret included, or null.
export async function rollKey(
  db: Database,
  orgId: string,
  keyId: string,
  graceSeconds: number,
): Promise<CreatedApiKey | null> {
  return (await db.transaction((tx) => rollKeyIn(tx, orgId, keyId, graceSeconds)))?.created ?? null;
}
