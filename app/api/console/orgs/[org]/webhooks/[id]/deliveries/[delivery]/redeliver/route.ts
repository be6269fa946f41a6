// Queues one delivery again (Redeliver).
import { consoleRoute } from "@/lib/console/http";
import { redeliverOrgWebhook } from "@/lib/console/webhooks";

export const dynamic = "force-dynamic";
export const POST = consoleRoute<{ org: string; id: string; delivery: string }>(
  ({ db, config, webhooks, user, params }) =>
    redeliverOrgWebhook(db, config, webhooks, user, params.org, params.id, params.delivery),
  { status: 202 },
);
