// Change password: POST { currentPassword, newPassword } ends every other session and re-issues this one.
import { changePassword } from "@/lib/console/account";
import { consoleRoute } from "@/lib/console/http";

export const dynamic = "force-dynamic";
export const POST = consoleRoute(({ rt, user, body, request, responseHeaders }) =>
  changePassword(rt, user, body, request, responseHeaders),
);
