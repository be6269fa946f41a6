// The signed-in user of a console request, read from its session cookie and then fresh from the database with the
// session's own row: an account deleted, or a session ended since sign-in (signed out, "sign out everywhere", a
// password change or reset, a weaker role), is seen at once, on every instance.
import { getToken, type JWT } from "@auth/core/jwt";
import type { Database } from "@/db/client";
import { endConsoleSessions } from "@/db/console-sessions";
import { recordAudit } from "@/lib/audit/record";
import { accountOfToken, type OpenDatabase } from "@/lib/console/auth";
import { authSecret } from "@/lib/console/auth-secret";
import type { Config } from "@/lib/config";

// The console's view of the signed-in account.
export interface ConsoleUser {
  id: string;
  email: string;
  name: string;
  isStaff: boolean;
  /** The id of this browser's session (db/console-sessions.ts). */
  sessionId: string;
  /** Present (true) when this session was signed in through the OpenID Connect provider. */
  sso?: true;
}

// The configuration a session cookie is read with (the sessions' secret, the cookie's name).
export type SessionConfig = Pick<Config, "AUTH_SECRET" | "DATA_DIR" | "dbDriver" | "baseUrl">;

// The signed-in user of a request (from its session cookie alone), read fresh from the database, or null; the
// database is opened only for a request with a session cookie.
export async function getConsoleUser(
  headers: Headers,
  config: SessionConfig,
  db: OpenDatabase,
): Promise<ConsoleUser | null> {
  const token = await sessionToken(headers, config);
  const user = await accountOfToken(db, token, headers);
  if (!user || typeof token?.sid !== "string") return null;
  const me: ConsoleUser = {
    id: user.id,
    email: user.email,
    name: user.name,
    isStaff: user.isStaff,
    sessionId: token.sid,
  };
  if (token.sso === true) me.sso = true;
  return me;
}

// The decoded session token of a request's cookie (not checked against the database), or null.
async function sessionToken(headers: Headers, config: SessionConfig): Promise<JWT | null> {
  const cookie = headers.get("cookie");
  if (!cookie) return null;
  // The cookie only (never an Authorization header); the same cookie name, salt and secret as Auth.js' own.
  return getToken({
    req: { headers: { cookie } },
    secret: authSecret(config),
    secureCookie: config.baseUrl.startsWith("https://"),
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
  });
}

// "Sign out everywhere": ends every session of the user's account (this one included), recorded in the audit log
// (no organization: the event is the account's).
export async function signOutEverywhere(db: Database, user: ConsoleUser): Promise<{ signedOut: true }> {
  await db.transaction(async (tx) => {
    const ended = await endConsoleSessions(tx, user.id);
    await recordAudit(tx, {
      orgId: null,
      actor: user,
      action: "account.signed_out_everywhere",
      targetId: user.id,
      details: { sessions: ended },
    });
  });
  return { signedOut: true };
}
