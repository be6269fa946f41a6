// Removes a member (owners and admins; only owners remove owners; never the last owner) and ends their sessions.
import { consoleRoute } from "@/lib/console/http";
import { removeMember } from "@/lib/console/members";

export const dynamic = "force-dynamic";
export const POST = consoleRoute<{ org: string; id: string }>(({ db, user, params }) =>
  removeMember(db, user, params.org, params.id),
);
