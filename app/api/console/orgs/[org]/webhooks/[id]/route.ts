// One webhook endpoint: PATCH changes it (URL, events, description, on/off), DELETE removes it (owners and admins).
import { consoleRoute } from "@/lib/console/http";
import { deleteOrgWebhook, updateOrgWebhook } from "@/lib/console/webhooks";

export const dynamic = "force-dynamic";
export const PATCH = consoleRoute<{ org: string; id: string }>(({ db, config, user, params, body }) =>
  updateOrgWebhook(db, config, user, params.org, params.id, body),
);
export const DELETE = consoleRoute<{ org: string; id: string }>(({ db, config, user, params }) =>
  deleteOrgWebhook(db, config, user, params.org, params.id),
);
