// The organization's request log (owners and admins): GET ?key=&status=&path=&requestId=&cursor=, newest first.
import { consoleRoute } from "@/lib/console/http";
import { orgRequests, searchObject } from "@/lib/console/usage";

export const dynamic = "force-dynamic";
export const GET = consoleRoute<{ org: string }>(({ db, config, user, params, request }) =>
  orgRequests(db, config, user, params.org, searchObject(new URL(request.url).searchParams)),
);
