// A password reset link used: POST { token, password } (no session: the link is the credential; Origin checked).
import { resetPassword } from "@/lib/console/account";
import { openConsoleRoute } from "@/lib/console/http";

export const dynamic = "force-dynamic";
export const POST = openConsoleRoute(({ db, body }) => resetPassword(db, body));
