// Two-factor off: POST { password, code } (a code of the app or a recovery code).
import { consoleRoute } from "@/lib/console/http";
import { disableTwoFactor } from "@/lib/console/two-factor";

export const dynamic = "force-dynamic";
export const POST = consoleRoute(({ db, config, attempts, user, body }) =>
  disableTwoFactor(db, config, attempts, user, body),
);
