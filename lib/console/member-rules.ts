// Who may do what to an organization's members, one table for the server's checks (lib/console/members.ts)
// and the members page's controls: owners grant any role and manage everyone, so they alone make or unmake owners;
// admins grant member and admin and manage members and admins; members manage no one. Pure: no database, no server
// module, so the page's client component imports it too.
import type { Role } from "./access";

const ALL_ROLES: Role[] = ["member", "admin", "owner"];

// The roles an actor of this role may give (invite with, or change a member to), weakest first.
export function grantableRoles(actor: Role): Role[] {
  if (actor === "owner") return [...ALL_ROLES];
  if (actor === "admin") return ["member", "admin"];
  return [];
}

// True when an actor of this role may change the role of, or remove, a member of the target's role.
export function mayManage(actor: Role, target: Role): boolean {
  return actor === "owner" || (actor === "admin" && target !== "owner");
}
