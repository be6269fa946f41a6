// The organization's audit log as CSV (owners and admins), under the same filters as the log's page.
import { orgAuditCsv } from "@/lib/console/audit-log";
import { consoleRoute } from "@/lib/console/http";

export const dynamic = "force-dynamic";
export const GET = consoleRoute<{ org: string }>(({ db, user, params, request }) =>
  orgAuditCsv(db, user, params.org, new URL(request.url).searchParams),
);
