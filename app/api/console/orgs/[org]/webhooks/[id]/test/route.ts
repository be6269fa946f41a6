// Sends a test event to an endpoint now and answers what it said.
import { consoleRoute } from "@/lib/console/http";
import { sendOrgWebhookTest } from "@/lib/console/webhooks";

export const dynamic = "force-dynamic";
export const POST = consoleRoute<{ org: string; id: string }>(({ db, config, webhooks, user, params }) =>
  sendOrgWebhookTest(db, config, webhooks, user, params.org, params.id),
);
