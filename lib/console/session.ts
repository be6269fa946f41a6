// The signed-in user of a console request, read from its session cookie through Auth.js and then fresh from the
// database (an account deleted or demoted since sign-in is seen at once).
import { Auth } from "@auth/core";
import { findUserById } from "@/db/users";
import { AUTH_BASE_PATH, authConfig } from "@/lib/console/auth";
import { getRuntime, type Runtime } from "@/lib/runtime";

// The console's view of the signed-in account.
export interface ConsoleUser {
  id: string;
  email: string;
  name: string;
  isStaff: boolean;
}

// The signed-in user of a request (from its cookies), read fresh from the database (staff flag, existence), or null.
export async function getConsoleUser(
  headers: Headers,
  rt: Runtime = getRuntime(),
): Promise<ConsoleUser | null> {
  const cookie = headers.get("cookie");
  if (!cookie) return null;
  const request = new Request(`${rt.config.baseUrl}${AUTH_BASE_PATH}/session`, { headers: { cookie } });
  const response = await Auth(request, authConfig(rt));
  if (!response.ok) return null;
  const session = (await response.json().catch(() => null)) as { user?: { id?: unknown } } | null;
  const id = session?.user?.id;
  if (typeof id !== "string" || !id) return null;
  const user = await findUserById(await rt.db(), id);
  return user ? { id: user.id, email: user.email, name: user.name, isStaff: user.isStaff } : null;
}
