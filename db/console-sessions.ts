// Console sessions (migration 0026): one row per signed-in browser, its id carried by the session token. A session
// is live while its row is neither ended nor expired; every console request reads the row with the account, so an
// ended session is refused by every instance at its next request. Times are the database's (`now()`), one clock
// for every instance.
import type { Queryable } from "@/db/client";
import { ID_PREFIX, isoSql, newId } from "@/db/schema";
import { USER_COLUMNS, type User } from "@/db/users";

// A session's last_seen_at and address are written at most this often (not on every request).
export const LAST_SEEN_EVERY_SECONDS = 60;
// Ended and expired rows are kept this long (what ended a session, and when, stays readable), then pruned.
export const ENDED_SESSION_KEEP_DAYS = 7;
// Rows pruned at most per sign-in.
const PRUNE_BATCH = 100;
// The longest user agent and address kept.
const USER_AGENT_MAX = 512;
const ADDRESS_MAX = 100;

// What a new session records: whose it is, where from, and how long it lasts unless renewed.
export interface SessionStart {
  userId: string;
  ipAddress: string;
  userAgent: string;
  maxAgeSeconds: number;
}

// Starts a session and returns its id (random, opaque); a batch of long-gone rows of any account is pruned first.
export async function startConsoleSession(db: Queryable, s: SessionStart): Promise<string> {
  await pruneConsoleSessions(db);
  const id = newId(ID_PREFIX.consoleSession);
  await db.query(
    `insert into console_sessions (id, user_id, expires_at, ip_address, user_agent)
     values ($1, $2, now() + $3::int * interval '1 second', $4, $5)`,
    [id, s.userId, s.maxAgeSeconds, s.ipAddress.slice(0, ADDRESS_MAX), s.userAgent.slice(0, USER_AGENT_MAX)],
  );
  return id;
}

// The account of a live session (`stale`: its last_seen_at is due to be written), or null when the session is
// unknown, ended, expired or another account's.
export async function accountOfSession(
  db: Queryable,
  sessionId: string,
  userId: string,
): Promise<(User & { stale: boolean }) | null> {
  const rows = await db.query<User & { stale: boolean }>(
    `select ${USER_COLUMNS}, s.stale from users,
       lateral (select c.last_seen_at < now() - $3::int * interval '1 second' as stale from console_sessions c
                 where c.id = $1 and c.user_id = users.id and c.ended_at is null and c.expires_at > now()) s
      where users.id = $2`,
    [sessionId, userId, LAST_SEEN_EVERY_SECONDS],
  );
  return rows[0] ?? null;
}

// Records a session's use now, from this address; with `renewSeconds` (its token renewed), it lasts that long
// from now.
export async function touchConsoleSession(
  db: Queryable,
  sessionId: string,
  opts: { ipAddress: string; renewSeconds?: number },
): Promise<void> {
  await db.query(
    `update console_sessions set last_seen_at = now(), ip_address = $2,
            expires_at = coalesce(now() + $3::int * interval '1 second', expires_at)
      where id = $1 and ended_at is null`,
    [sessionId, opts.ipAddress.slice(0, ADDRESS_MAX), opts.renewSeconds ?? null],
  );
}

// Ends one session of the account (sign-out); false when it is not a live session of that account.
export async function endConsoleSession(db: Queryable, userId: string, sessionId: string): Promise<boolean> {
  const rows = await db.query(
    `update console_sessions set ended_at = now()
      where id = $1 and user_id = $2 and ended_at is null and expires_at > now() returning id`,
    [sessionId, userId],
  );
  return rows.length > 0;
}

// Ends every live session of the account, or every one but `except` (the browser that asked); returns how many.
export async function endConsoleSessions(
  db: Queryable,
  userId: string,
  opts: { except?: string } = {},
): Promise<number> {
  const rows = await db.query(
    `update console_sessions set ended_at = now()
      where user_id = $1 and ended_at is null and ($2::text is null or id <> $2::text) returning id`,
    [userId, opts.except ?? null],
  );
  return rows.length;
}

// A live session as the account page lists it.
export interface ConsoleSessionRow {
  id: string;
  createdAt: string;
  lastSeenAt: string;
  ipAddress: string;
  userAgent: string;
}

// The account's live sessions, the most recently seen first.
export async function liveConsoleSessions(db: Queryable, userId: string): Promise<ConsoleSessionRow[]> {
  return db.query<ConsoleSessionRow>(
    `select id, ${isoSql("created_at")} as "createdAt", ${isoSql("last_seen_at")} as "lastSeenAt",
            ip_address as "ipAddress", user_agent as "userAgent"
       from console_sessions
      where user_id = $1 and ended_at is null and expires_at > now()
      order by last_seen_at desc, id`,
    [userId],
  );
}

// Deletes up to PRUNE_BATCH rows ended or expired more than ENDED_SESSION_KEEP_DAYS ago; returns how many.
export async function pruneConsoleSessions(db: Queryable): Promise<number> {
  const rows = await db.query(
    `delete from console_sessions where id in (
       select id from console_sessions
        where coalesce(ended_at, expires_at) < now() - $1::int * interval '1 day' limit $2)
     returning id`,
    [ENDED_SESSION_KEEP_DAYS, PRUNE_BATCH],
  );
  return rows.length;
}
