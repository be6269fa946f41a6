// Leaves the organization (any member but its last owner).
import { consoleRoute } from "@/lib/console/http";
import { leaveOrg } from "@/lib/console/members";

export const dynamic = "force-dynamic";
export const POST = consoleRoute<{ org: string }>(({ db, user, params }) => leaveOrg(db, user, params.org));
