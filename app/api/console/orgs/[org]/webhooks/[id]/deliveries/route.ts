// An endpoint's deliveries and their attempts, newest first (filters: state, eventId, type, limit).
import { consoleRoute } from "@/lib/console/http";
import { listOrgWebhookDeliveries } from "@/lib/console/webhooks";

export const dynamic = "force-dynamic";
export const GET = consoleRoute<{ org: string; id: string }>(({ db, config, user, params, request }) =>
  listOrgWebhookDeliveries(db, config, user, params.org, params.id, new URL(request.url).searchParams),
);
