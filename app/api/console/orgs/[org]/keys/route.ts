// The organization's API keys: GET lists them (every member), POST creates one (owners and admins).
import { consoleRoute } from "@/lib/console/http";
import { createOrgKey, listOrgKeys } from "@/lib/console/keys";

export const dynamic = "force-dynamic";
export const GET = consoleRoute<{ org: string }>(({ db, user, params }) => listOrgKeys(db, user, params.org));
export const POST = consoleRoute<{ org: string }>(
  ({ db, config, user, params, body }) => createOrgKey(db, config, user, params.org, body),
  { status: 201 },
);
