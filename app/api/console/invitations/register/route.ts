// Accepts an invitation with a new account for the invited email address (no session: the link is the credential).
import { openConsoleRoute } from "@/lib/console/http";
import { registerWithInvitation } from "@/lib/console/invitation-accept";

export const dynamic = "force-dynamic";
export const POST = openConsoleRoute(({ db, body }) => registerWithInvitation(db, body), { status: 201 });
