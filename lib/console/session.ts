// The signed-in user of a console request, read from its session cookie and then fresh from the database with the
// session's own row: an account deleted, or a session ended since sign-in (signed out, "sign out everywhere", a
// password change or reset, a weaker role), is seen at once, on every instance.
import { getToken, type JWT } from "@auth/core/jwt";
import { endConsoleSessions } from "@/db/console-sessions";
import { recordAudit } from "@/lib/console/audit";
import { accountOfToken } from "@/lib/console/auth";
import { authSecret } from "@/lib/console/auth-secret";
import { getRuntime, type Runtime } from "@/lib/runtime";

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

// The signed-in user of a request (from its session cookie alone), read fresh from the database, or null.
export async function getConsoleUser(
  headers: Headers,
  rt: Runtime = getRuntime(),
): Promise<ConsoleUser | null> {
  const token = await sessionToken(headers, rt);
  const user = await accountOfToken(rt, token, headers);
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
async function sessionToken(headers: Headers, rt: Runtime): Promise<JWT | null> {
  const cookie = headers.get("cookie");
  if (!cookie) return null;
  // The cookie only (never an Authorization header); the same cookie name, salt and secret as Auth.js' own.
  return getToken({
    req: { headers: { cookie } },
    secret: authSecret(rt.config),
    secureCookie: rt.config.baseUrl.startsWith("https://"),
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
  });
}

// "Sign out everywhere": ends every session of the user's account (this one included), recorded in the audit log
// (no organization: the event is the account's).
export async function signOutEverywhere(rt: Runtime, user: ConsoleUser): Promise<{ signedOut: true }> {
  const db = await rt.db();
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
