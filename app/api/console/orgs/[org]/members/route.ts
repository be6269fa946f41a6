// The organization's members (every member) and, for owners and admins, its open invitations.
import { consoleRoute } from "@/lib/console/http";
import { listOrgMembers } from "@/lib/console/members";

export const dynamic = "force-dynamic";
export const GET = consoleRoute<{ org: string }>(({ db, user, params }) =>
  listOrgMembers(db, user, params.org),
);
