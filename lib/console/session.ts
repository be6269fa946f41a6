// The signed-in user of a console request, read from its session cookie and then fresh from the database: an
// account deleted, demoted or whose sessions were ended since sign-in (its session version moved on) is seen at once.
import { encode, getToken, type JWT } from "@auth/core/jwt";
import { endSessions } from "@/db/users";
import { recordAudit } from "@/lib/console/audit";
import { accountOfToken, SESSION_MAX_AGE_SECONDS } from "@/lib/console/auth";
import { authSecret } from "@/lib/console/auth-secret";
import { getRuntime, type Runtime } from "@/lib/runtime";

// The console's view of the signed-in account.
export interface ConsoleUser {
  id: string;
  email: string;
  name: string;
  isStaff: boolean;
  /** Present (true) when this session was signed in through the OpenID Connect provider. */
  sso?: true;
}

// The signed-in user of a request (from its session cookie alone), read fresh from the database, or null.
export async function getConsoleUser(
  headers: Headers,
  rt: Runtime = getRuntime(),
): Promise<ConsoleUser | null> {
  const token = await sessionToken(headers, rt);
  const user = await accountOfToken(rt, token);
  if (!user) return null;
  const me: ConsoleUser = { id: user.id, email: user.email, name: user.name, isStaff: user.isStaff };
  if (token?.sso === true) me.sso = true;
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

// The name of the session cookie of a runtime (Auth.js' own: __Secure- prefixed over https).
export function sessionCookieName(rt: Runtime): string {
  return rt.config.baseUrl.startsWith("https://") ? "__Secure-authjs.session-token" : "authjs.session-token";
}

// This browser's session moved to the account's new session version (after the version was bumped to end every
// other session): the same claims, the new `sv`, a fresh expiry. Returns the Set-Cookie line and the Cookie header
// of the new session (to compute its CSRF token).
export async function reissueSession(
  rt: Runtime,
  requestHeaders: Headers,
  sessionVersion: number,
): Promise<{ setCookie: string; cookie: string }> {
  const token = await sessionToken(requestHeaders, rt);
  if (!token?.sub) throw new Error("No session to re-issue");
  const name = sessionCookieName(rt);
  const {
    exp: _exp,
    iat: _iat,
    jti: _jti,
    ...claims
  } = token as JWT & { exp?: number; iat?: number; jti?: string };
  const value = await encode({
    token: { ...claims, sv: sessionVersion },
    secret: authSecret(rt.config),
    salt: name,
    maxAge: SESSION_MAX_AGE_SECONDS,
  });
  const secure = rt.config.baseUrl.startsWith("https://");
  const expires = new Date(Date.now() + SESSION_MAX_AGE_SECONDS * 1000).toUTCString();
  return {
    setCookie: `${name}=${value}; Path=/; Expires=${expires}; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`,
    cookie: `${name}=${value}`,
  };
}

// "Sign out everywhere": ends every session of the user's account (this one included), recorded in the audit log
// (no organization: the event is the account's).
export async function signOutEverywhere(rt: Runtime, user: ConsoleUser): Promise<{ signedOut: true }> {
  const db = await rt.db();
  await db.transaction(async (tx) => {
    await endSessions(tx, user.id);
    await recordAudit(tx, {
      orgId: null,
      actor: user,
      action: "account.signed_out_everywhere",
      targetId: user.id,
    });
  });
  return { signedOut: true };
}
