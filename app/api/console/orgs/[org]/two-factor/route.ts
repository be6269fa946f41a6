// An owner requires (or not) two-factor sign-in of the organization's members: POST { required }.
import { consoleRoute } from "@/lib/console/http";
import { setOrgTwoFactorRequired } from "@/lib/console/two-factor";

export const dynamic = "force-dynamic";
export const POST = consoleRoute<{ org: string }>(({ db, user, params, body }) =>
  setOrgTwoFactorRequired(db, user, params.org, body),
);
