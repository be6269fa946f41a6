// Two-factor set-up: POST starts it (a new pending secret, shown as text and QR code).
import { consoleRoute } from "@/lib/console/http";
import { startTwoFactorSetup } from "@/lib/console/two-factor";

export const dynamic = "force-dynamic";
export const POST = consoleRoute(({ db, config, user }) => startTwoFactorSetup(db, config, user));
