// "Sign out everywhere": POST ends every console session of the signed-in account (CSRF-checked, audited).
import { consoleRoute } from "@/lib/console/http";
import { signOutEverywhere } from "@/lib/console/session";

export const dynamic = "force-dynamic";
export const POST = consoleRoute(({ db, user }) => signOutEverywhere(db, user));
