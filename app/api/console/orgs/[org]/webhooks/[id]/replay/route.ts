// Replays an endpoint from a feed cursor ({ after }): its events after it are delivered again.
import { consoleRoute } from "@/lib/console/http";
import { replayOrgWebhook } from "@/lib/console/webhooks";

export const dynamic = "force-dynamic";
export const POST = consoleRoute<{ org: string; id: string }>(
  async ({ db, config, webhooks, catalog, user, params, body }) =>
    replayOrgWebhook(db, config, webhooks, await catalog(), user, params.org, params.id, body),
  { status: 202 },
);
