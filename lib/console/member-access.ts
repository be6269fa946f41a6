// What every change of an organization's members shares: the time option of the calls, a member as the console
// lists them, the lock of the organization's row with the role check, and the refusal by role.
import { z } from "zod";
import type { Executor, Queryable } from "@/db/client";
import { isoSql } from "@/db/schema";
import { requireRole, roleSchema, type Actor, type Membership } from "./access";
import { ConsoleError } from "./console-errors";

// A member as the console lists them.
export const memberSchema = z.object({
  userId: z.string(),
  email: z.string(),
  name: z.string(),
  role: roleSchema,
  joinedAt: z.string(),
});
export type Member = z.infer<typeof memberSchema>;

// Options of the calls that depend on the time: tests pass `now` instead of waiting.
export interface Clock {
  now?: Date;
}

// Locks the organization's row for the transaction (every change of its members takes it first: they are applied one
// at a time and each sees the others' results), then checks the user's role there. NO KEY UPDATE: the catalog's
// inserts, whose foreign keys lock the row KEY SHARE, do not wait for it.
export async function lockedRole(
  tx: Executor,
  user: Actor,
  orgSlug: string,
  needed: "member" | "admin",
): Promise<Membership> {
  await tx.query("select id from organizations where slug = $1 for no key update", [orgSlug]);
  return requireRole(tx, user, orgSlug, needed);
}

// The member `userId` of the organization, or null.
export async function memberOf(tx: Queryable, orgId: string, userId: string): Promise<Member | null> {
  const rows = await tx.query<Member>(
    `select u.id as "userId", u.email, u.name, m.role, ${isoSql("m.created_at")} as "joinedAt"
       from memberships m join users u on u.id = m.user_id
      where m.org_id = $1 and m.user_id = $2`,
    [orgId, userId],
  );
  return rows[0] ?? null;
}

// A refusal by role (403) with its reason.
export function forbidden(message: string): ConsoleError {
  return new ConsoleError("CONSOLE_FORBIDDEN", message);
}
