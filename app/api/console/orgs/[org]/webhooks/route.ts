// The organization's webhook endpoints (preview `webhooks`): GET lists them (every member), POST registers one
// (owners and admins; its signing secret is in that answer only).
import { consoleRoute } from "@/lib/console/http";
import { createOrgWebhook, listOrgWebhooks } from "@/lib/console/webhooks";

export const dynamic = "force-dynamic";
export const GET = consoleRoute<{ org: string }>(({ db, config, user, params }) =>
  listOrgWebhooks(db, config, user, params.org),
);
export const POST = consoleRoute<{ org: string }>(
  ({ db, config, user, params, body }) => createOrgWebhook(db, config, user, params.org, body),
  { status: 201 },
);
