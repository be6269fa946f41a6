// The organization's audit log, newest first (owners and admins): a page under the filters actor, action, from, to,
// before (the cursor of the page before) and limit.
import { listOrgAudit } from "@/lib/console/audit-log";
import { consoleRoute } from "@/lib/console/http";

export const dynamic = "force-dynamic";
export const GET = consoleRoute<{ org: string }>(({ db, user, params, request }) =>
  listOrgAudit(db, user, params.org, new URL(request.url).searchParams),
);
