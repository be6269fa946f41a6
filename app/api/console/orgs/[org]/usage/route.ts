// The organization's usage (owners and admins): GET ?key= (one key; absent: all), per day and per hour, 30 days.
import { consoleRoute } from "@/lib/console/http";
import { orgUsage, searchObject } from "@/lib/console/usage";

export const dynamic = "force-dynamic";
export const GET = consoleRoute<{ org: string }>(({ db, user, params, request }) =>
  orgUsage(db, user, params.org, searchObject(new URL(request.url).searchParams)),
);
