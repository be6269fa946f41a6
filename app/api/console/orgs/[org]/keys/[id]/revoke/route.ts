// Revokes a key, at once on this instance.
import { consoleRoute } from "@/lib/console/http";
import { revokeOrgKey } from "@/lib/console/keys";

export const dynamic = "force-dynamic";
export const POST = consoleRoute<{ org: string; id: string }>(({ db, keyCache, user, params }) =>
  revokeOrgKey(db, keyCache, user, params.org, params.id),
);
