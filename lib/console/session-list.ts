// The account page's list of the account's live console sessions (started, last seen, address, browser; this
// browser's marked) and "Sign out" of one of them. Both read and change only the signed-in account's own sessions:
// another account's session id answers as an unknown one (404).
import { z } from "zod";
import type { Database, Queryable } from "@/db/client";
import { endConsoleSession, liveConsoleSessions } from "@/db/console-sessions";
import { recordAudit } from "@/lib/audit/record";
import { ConsoleError } from "./console-errors";
import type { ConsoleUser } from "./session";
import { browserName } from "./user-agent";

// A live session as the account page lists it.
export const accountSessionSchema = z.object({
  id: z.string(),
  startedAt: z.string(),
  lastSeenAt: z.string(),
  /** The client address of its last use. */
  address: z.string(),
  /** A readable name of its browser ("Chrome on Linux"). */
  browser: z.string(),
  /** True for the session of the browser that asks. */
  current: z.boolean(),
});
export type AccountSession = z.infer<typeof accountSessionSchema>;

// The signed-in account as these operations need it.
type SessionOwner = Pick<ConsoleUser, "id" | "email" | "sessionId">;

// A session id as the console hands them out (db/schema.ts' newId with the "ses" prefix).
const sessionIdSchema = z.string().regex(/^ses_[0-9A-Za-z]{16}$/);

// The account's live sessions, the most recently seen first.
export async function listAccountSessions(db: Queryable, user: SessionOwner): Promise<AccountSession[]> {
  const rows = await liveConsoleSessions(db, user.id);
  return rows.map((r) => ({
    id: r.id,
    startedAt: r.createdAt,
    lastSeenAt: r.lastSeenAt,
    address: r.ipAddress,
    browser: browserName(r.userAgent),
    current: r.id === user.sessionId,
  }));
}

// Ends one live session of the signed-in account (its browser, and any copy of its cookie, is refused from its next
// request on). CONSOLE_NOT_FOUND for an id that is not a live session of this account. Audited
// (account.session_signed_out, with the session's browser and address).
export async function signOutSession(
  db: Database,
  user: SessionOwner,
  sessionId: string,
): Promise<{ signedOut: true; id: string }> {
  const gone = new ConsoleError("CONSOLE_NOT_FOUND", "No such session of your account: it may have ended.");
  if (!sessionIdSchema.safeParse(sessionId).success) throw gone;
  return db.transaction(async (tx) => {
    const session = (await listAccountSessions(tx, user)).find((s) => s.id === sessionId);
    if (!session || !(await endConsoleSession(tx, user.id, sessionId))) throw gone;
    await recordAudit(tx, {
      orgId: null,
      actor: user,
      action: "account.session_signed_out",
      targetId: user.id,
      details: { sessionId, browser: session.browser, address: session.address, current: session.current },
    });
    return { signedOut: true as const, id: sessionId };
  });
}
