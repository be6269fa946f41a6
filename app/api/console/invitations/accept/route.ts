// Accepts an invitation (its link's secret in the body) as the signed-in user with the invited email address.
import { consoleRoute } from "@/lib/console/http";
import { acceptInvitation } from "@/lib/console/invitation-accept";

export const dynamic = "force-dynamic";
export const POST = consoleRoute(({ db, user, body }) => acceptInvitation(db, user, body));
