// Queues one delivery again (Redeliver).
import { consoleRoute } from "@/lib/console/http";
import { redeliverOrgWebhook } from "@/lib/console/webhooks";

export const dynamic = "force-dynamic";
export const POST = consoleRoute<{ org: string; id: string; delivery: string }>(
  ({ rt, user, params }) => redeliverOrgWebhook(rt, user, params.org, params.id, params.delivery),
  { status: 202 },
);
