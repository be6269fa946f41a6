// The signed-in account: GET what the account page shows (password or SSO, two-factor, organizations owned).
import { accountOverview } from "@/lib/console/account";
import { consoleRoute } from "@/lib/console/http";

export const dynamic = "force-dynamic";
export const GET = consoleRoute(({ db, user }) => accountOverview(db, user));
