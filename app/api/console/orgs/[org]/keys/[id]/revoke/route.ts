// Revokes a key, at once on this instance.
import { consoleRoute } from "@/lib/console/http";
import { revokeOrgKey } from "@/lib/console/keys";

export const dynamic = "force-dynamic";
export const POST = consoleRoute<{ org: string; id: string }>(({ rt, user, params }) =>
  revokeOrgKey(rt, user, params.org, params.id),
);
