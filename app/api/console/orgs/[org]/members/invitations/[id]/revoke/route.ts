// Revokes an open invitation (owners and admins): its link stops working at once.
import { consoleRoute } from "@/lib/console/http";
import { revokeInvitation } from "@/lib/console/invitations";

export const dynamic = "force-dynamic";
export const POST = consoleRoute<{ org: string; id: string }>(({ db, user, params }) =>
  revokeInvitation(db, user, params.org, params.id),
);
