// An owner issues a password reset link for a member: POST answers { url, expiresAt } (the URL shown once).
import { issuePasswordReset } from "@/lib/console/account";
import { consoleRoute } from "@/lib/console/http";

export const dynamic = "force-dynamic";
export const POST = consoleRoute<{ org: string; id: string }>(
  ({ db, config, user, params, request }) =>
    issuePasswordReset(db, config, user, params.org, params.id, request),
  { status: 201 },
);
