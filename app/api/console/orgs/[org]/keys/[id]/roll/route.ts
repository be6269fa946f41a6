// Rolls a key: a new key with the same name and scopes; the old one works for the grace period ({ graceSeconds }).
import { consoleRoute } from "@/lib/console/http";
import { rollOrgKey } from "@/lib/console/keys";

export const dynamic = "force-dynamic";
export const POST = consoleRoute<{ org: string; id: string }>(
  ({ db, keyCache, user, params, body }) => rollOrgKey(db, keyCache, user, params.org, params.id, body),
  { status: 201 },
);
