// Two-factor set-up confirmed: POST { code } turns it on and answers the recovery codes (shown once).
import { consoleRoute } from "@/lib/console/http";
import { confirmTwoFactor } from "@/lib/console/two-factor";

export const dynamic = "force-dynamic";
export const POST = consoleRoute(({ db, config, user, body }) => confirmTwoFactor(db, config, user, body));
