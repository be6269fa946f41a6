// The organization's audit log, newest first (owners and admins).
import { consoleRoute } from "@/lib/console/http";
import { listOrgAudit } from "@/lib/console/keys";

export const dynamic = "force-dynamic";
export const GET = consoleRoute<{ org: string }>(({ rt, user, params }) =>
  listOrgAudit(rt, user, params.org),
);
