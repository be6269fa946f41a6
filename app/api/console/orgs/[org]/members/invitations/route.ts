// Invites an email address with a role (owners and admins): the single-use link in the answer, mailed when SMTP is set.
import { consoleOrigin, consoleRoute } from "@/lib/console/http";
import { inviteMember } from "@/lib/console/invitations";

export const dynamic = "force-dynamic";
export const POST = consoleRoute<{ org: string }>(
  ({ db, config, user, params, body, request }) =>
    inviteMember(db, config, user, params.org, body, consoleOrigin(config, request.headers)),
  { status: 201 },
);
