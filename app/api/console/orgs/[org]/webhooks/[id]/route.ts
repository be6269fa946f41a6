// One webhook endpoint: PATCH changes it (URL, events, description, on/off), DELETE removes it (owners and admins).
import { consoleRoute } from "@/lib/console/http";
import { deleteOrgWebhook, updateOrgWebhook } from "@/lib/console/webhooks";

export const dynamic = "force-dynamic";
export const PATCH = consoleRoute<{ org: string; id: string }>(({ rt, user, params, body }) =>
  updateOrgWebhook(rt, user, params.org, params.id, body),
);
export const DELETE = consoleRoute<{ org: string; id: string }>(({ rt, user, params }) =>
  deleteOrgWebhook(rt, user, params.org, params.id),
);
