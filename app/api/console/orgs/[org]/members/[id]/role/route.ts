// Changes a member's role (owners and admins; only owners make or unmake owners; never the last owner).
import { consoleRoute } from "@/lib/console/http";
import { changeMemberRole } from "@/lib/console/members";

export const dynamic = "force-dynamic";
export const POST = consoleRoute<{ org: string; id: string }>(({ db, user, params, body }) =>
  changeMemberRole(db, user, params.org, params.id, body),
);
