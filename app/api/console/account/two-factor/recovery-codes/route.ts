// New recovery codes: POST { code } (a current code of the app); the old codes stop working.
import { consoleRoute } from "@/lib/console/http";
import { regenerateRecoveryCodes } from "@/lib/console/recovery-codes";

export const dynamic = "force-dynamic";
export const POST = consoleRoute(({ db, config, attempts, user, body }) =>
  regenerateRecoveryCodes(db, config, attempts, user, body),
);
