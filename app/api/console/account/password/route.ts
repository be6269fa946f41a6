// Change password: POST { currentPassword, newPassword } ends every other session of the account; this one goes on.
import { changePassword } from "@/lib/console/account";
import { consoleRoute } from "@/lib/console/http";

export const dynamic = "force-dynamic";
export const POST = consoleRoute(({ db, attempts, user, body }) => changePassword(db, attempts, user, body));
