import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";
import type { Queryable } from "@/db/client";
import { ID_PREFIX, isoSql, newId } from "@/db/schema";

const SCRYPT = { N: 16_384, r: 8, p: 1, keyLength: 64, saltBytes: 16 } as const;

function scryptAsync(
  password: string,
  salt: Buffer,
  keyLength: number,
  options: ScryptOptions,
): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(
      password.normalize("NFKC"),
      salt,
      keyLength,
      { ...options, maxmem: 64 * 1024 * 1024 },
      (err, key) => (err ? reject(err) : resolve(key)),
    ),
  );
}

// A portal account (never its password hash).
export interface User {
  id: string;
  email: string;
  name: string;
  isStaff: boolean;
  createdAt: string;
}

// A member's role in an organization.
export type MembershipRole = "owner" | "admin" | "member";

// Hashes a password with scrypt and a random salt: "scrypt$N$r$p$<salt b64>$<hash b64>".
export async function hashPassword(password: string): Promise<string> {
  if (password.length < 8) throw new Error("A password has at least 8 characters");
  const salt = randomBytes(SCRYPT.saltBytes);
  const { N, r, p, keyLength } = SCRYPT;
  const hash = await scryptAsync(password, salt, keyLength, { N, r, p });
  return `scrypt$${N}$${r}$${p}$${salt.toString("base64")}$${hash.toString("base64")}`;
}

// True when the password matches a hash made by hashPassword (constant-time comparison; false on any malformed hash).
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const parts = (stored ?? "").split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![N, r, p].every((n) => Number.isSafeInteger(n) && n > 0) || N > 1 << 20 || r > 32 || p > 16)
    return false;
  const salt = Buffer.from(parts[4]!, "base64");
  const expected = Buffer.from(parts[5]!, "base64");
  if (salt.length === 0 || expected.length < 16) return false;
  try {
    const actual = await scryptAsync(password, salt, expected.length, { N, r, p });
    return timingSafeEqual(actual, expected);
  } catch {
    return false;
  }
}

// The columns of a User, read from `users` (unqualified: select them from `users` alone, or beside a lateral join).
export const USER_COLUMNS = `id, email, name, is_staff as "isStaff", ${isoSql("users.created_at")} as "createdAt"`;

// Creates a portal account with a scrypt-hashed password; the email is stored trimmed and lower-cased.
export async function createUser(
  db: Queryable,
  opts: { email: string; name: string; password: string; isStaff?: boolean },
): Promise<User> {
  const email = opts.email.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new Error(`Invalid email address: ${opts.email}`);
  const passwordHash = await hashPassword(opts.password);
  const [row] = await db.query<User>(
    `insert into users (id, email, name, password_hash, is_staff) values ($1, $2, $3, $4, $5)
     returning ${USER_COLUMNS}`,
    [newId(ID_PREFIX.user), email, opts.name.trim() || email, passwordHash, opts.isStaff ?? false],
  );
  return row!;
}

// The account with this email (case-insensitive) and its password hash, or null.
export async function findUserByEmail(
  db: Queryable,
  email: string,
): Promise<(User & { passwordHash: string | null }) | null> {
  const rows = await db.query<User & { passwordHash: string | null }>(
    `select ${USER_COLUMNS}, password_hash as "passwordHash" from users where email = $1`,
    [email.trim().toLowerCase()],
  );
  return rows[0] ?? null;
}

// The account when email and password match, else null (a hash is computed even for unknown emails, against timing probes).
export async function verifyUserCredentials(
  db: Queryable,
  email: string,
  password: string,
): Promise<User | null> {
  const user = await findUserByEmail(db, email);
  const ok = await verifyPassword(password, user?.passwordHash ?? DUMMY_HASH);
  if (!user || !ok || !user.passwordHash) return null;
  const { passwordHash: _hash, ...publicUser } = user;
  return publicUser;
}

// A well-formed hash of no real password, so that unknown emails cost as much as known ones.
const DUMMY_HASH = `scrypt$16384$8$1$${Buffer.alloc(16).toString("base64")}$${Buffer.alloc(64).toString("base64")}`;

// Makes a user a member of an organization with a role (updates the role when already a member). A weaker role
// than before ends the account's console sessions (db/console-sessions.ts), in the same statement.
export async function addMembership(
  db: Queryable,
  opts: { userId: string; orgId: string; role: MembershipRole },
): Promise<void> {
  await db.query(
    `with before as (select role from memberships where org_id = $2 and user_id = $1),
     upsert as (
       insert into memberships (user_id, org_id, role) values ($1, $2, $3)
       on conflict (org_id, user_id) do update set role = excluded.role
     )
     update console_sessions set ended_at = now()
      where user_id = $1 and ended_at is null
        and array_position(array['member', 'admin', 'owner'], (select role::text from before))
          > array_position(array['member', 'admin', 'owner'], $3::text)`,
    [opts.userId, opts.orgId, opts.role],
  );
}

// The account with this id, or null.
export async function findUserById(db: Queryable, id: string): Promise<User | null> {
  const rows = await db.query<User>(`select ${USER_COLUMNS} from users where id = $1`, [id]);
  return rows[0] ?? null;
}

// Replaces a user's password (scrypt-hashed) and ends every console session of the account, in one statement;
// false when there is no such user.
export async function setPassword(db: Queryable, userId: string, password: string): Promise<boolean> {
  const passwordHash = await hashPassword(password);
  const rows = await db.query<{ id: string }>(
    `with ended as (update console_sessions set ended_at = now() where user_id = $1 and ended_at is null)
     update users set password_hash = $2, updated_at = now() where id = $1 returning id`,
    [userId, passwordHash],
  );
  return rows.length > 0;
}
