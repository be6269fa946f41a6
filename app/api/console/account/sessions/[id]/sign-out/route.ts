// Signs out one session of the signed-in account (the account page's sessions list): POST, CSRF-checked; another
// account's session answers 404.
import { consoleRoute } from "@/lib/console/http";
import { signOutSession } from "@/lib/console/session-list";

export const dynamic = "force-dynamic";
export const POST = consoleRoute<{ id: string }>(({ db, user, params }) =>
  signOutSession(db, user, params.id),
);
