// The signed-in user of a console request, read from its session cookie and then fresh from the database: an
// account deleted, demoted or whose sessions were ended since sign-in (its session version moved on) is seen at once.
import { getToken } from "@auth/core/jwt";
import { endSessions } from "@/db/users";
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
}

// The signed-in user of a request (from its session cookie alone), read fresh from the database, or null.
export async function getConsoleUser(
  headers: Headers,
  rt: Runtime = getRuntime(),
): Promise<ConsoleUser | null> {
  const cookie = headers.get("cookie");
  if (!cookie) return null;
  // The cookie only (never an Authorization header); the same cookie name, salt and secret as Auth.js' own.
  const token = await getToken({
    req: { headers: { cookie } },
    secret: authSecret(rt.config),
    secureCookie: rt.config.baseUrl.startsWith("https://"),
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
  });
  const user = await accountOfToken(rt, token);
  return user ? { id: user.id, email: user.email, name: user.name, isStaff: user.isStaff } : null;
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
