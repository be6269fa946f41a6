// Rolls an endpoint's signing secret ({ overlapSeconds }: how long the current ones keep signing; default 24 h).
import { consoleRoute } from "@/lib/console/http";
import { rollOrgWebhookSecret } from "@/lib/console/webhooks";

export const dynamic = "force-dynamic";
export const POST = consoleRoute<{ org: string; id: string }>(
  ({ db, config, user, params, body }) => rollOrgWebhookSecret(db, config, user, params.org, params.id, body),
  { status: 201 },
);
