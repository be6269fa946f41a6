// An organization that requires two-factor sign-in (issue 26, item 2): only an owner with two-factor sets it; members
// without it are refused the organization's routes; an SSO session meets it. Real route handlers, both drivers.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import * as accountRoute from "@/app/api/console/account/route";
import * as issueRoute from "@/app/api/console/orgs/[org]/members/[id]/password-reset/route";
import * as orgTwoFactorRoute from "@/app/api/console/orgs/[org]/two-factor/route";
import type { User } from "@/db/users";
import { requireRole } from "@/lib/console/access";
import type { ApiFixture } from "../support/api";
import { accountsFixture, type Handler, type Org } from "./accounts-fixture";

describe.each(["pglite", "pg"] as const)("an organization requiring two-factor on %s", (driver) => {
  const t = accountsFixture(driver);
  const { orgIds, account, call, me, keys, enableTwoFactor } = t;
  let fx: ApiFixture;
  beforeAll(() => {
    fx = t.fx;
  });

  describe("an organization that requires two-factor sign-in", () => {
    const setRequired = (
      a: { user: User; cookie: string } | null,
      org: Org,
      required: boolean,
      csrfOk = true,
    ) =>
      call(orgTwoFactorRoute.POST as Handler, `/api/console/orgs/${org}/two-factor`, {
        cookie: a?.cookie,
        userId: a?.user.id,
        params: { org },
        body: { required },
        csrf: csrfOk,
      });
    afterEach(async () => {
      await fx.db.query("update organizations set two_factor_required = false");
    });

    it("only an owner with two-factor sets it; members without it are refused the organization's routes, not others'", async () => {
      const owner = await account("acme", "owner");
      const member = await account("acme", "member");
      const admin = await account("acme", "admin");
      const globexOwner = await account("globex", "owner");
      const team = await account(null, "member", true);
      const code = async (a: { user: User; cookie: string } | null, csrfOk = true) => {
        const r = await setRequired(a, "acme", true, csrfOk);
        return [r.status, r.body.code];
      };
      expect(await code(member)).toEqual([403, "CONSOLE_FORBIDDEN"]);
      expect(await code(admin)).toEqual([403, "CONSOLE_FORBIDDEN"]);
      expect(await code(globexOwner)).toEqual([404, "CONSOLE_NOT_FOUND"]);
      expect(await code(team)).toEqual([404, "CONSOLE_NOT_FOUND"]);
      expect(await code(null)).toEqual([401, "CONSOLE_UNAUTHENTICATED"]);
      expect(await code(owner, false)).toEqual([403, "CONSOLE_CSRF"]);
      // The owner's own account must meet the requirement first.
      expect(await code(owner)).toEqual([409, "CONSOLE_ACCOUNT_CONFLICT"]);
      await enableTwoFactor(owner);
      const on = await setRequired(owner, "acme", true);
      expect([on.status, on.body]).toEqual([200, { org: "acme", twoFactorRequired: true }]);

      // Members without two-factor: refused acme's routes with a clear code; their account routes still work.
      for (const a of [member, admin]) {
        const r = await keys(a.cookie, a.user.id);
        expect([r.status, r.body.code]).toEqual([403, "CONSOLE_TWO_FACTOR_REQUIRED"]);
      }
      const overview = await call(accountRoute.GET as Handler, "/api/console/account", {
        cookie: member.cookie,
        userId: member.user.id,
        method: "GET",
      });
      expect(overview.body.requiringOrgs).toEqual([{ slug: "acme", name: expect.any(String) }]);
      // The owner (two-factor on) passes; globex is not concerned.
      expect((await keys(owner.cookie, owner.user.id)).status).toBe(200);
      expect((await keys(globexOwner.cookie, globexOwner.user.id, "globex")).status).toBe(200);
      // An owner's action on the organization is refused too while their own account lacks it.
      const otherOwner = await account("acme", "owner");
      const issue = await call(
        issueRoute.POST as Handler,
        `/api/console/orgs/acme/members/${member.user.id}/password-reset`,
        {
          cookie: otherOwner.cookie,
          userId: otherOwner.user.id,
          params: { org: "acme", userId: member.user.id },
        },
      );
      expect([issue.status, issue.body.code]).toEqual([403, "CONSOLE_TWO_FACTOR_REQUIRED"]);
      // A non-member still gets "not found" (nothing told about the requirement).
      expect((await keys(globexOwner.cookie, globexOwner.user.id, "acme")).body.code).toBe(
        "CONSOLE_NOT_FOUND",
      );

      // The member sets two-factor up: in at once.
      await enableTwoFactor(member);
      expect((await keys(member.cookie, member.user.id)).status).toBe(200);

      const off = await setRequired(owner, "acme", false);
      expect(off.status).toBe(200);
      expect((await keys(admin.cookie, admin.user.id)).status).toBe(200);
      const events = await fx.db.query<{ action: string; actorId: string }>(
        `select action, actor_id as "actorId" from audit_events where org_id = $1 and action like 'org.two_factor%'
          order by created_at, id`,
        [orgIds.acme],
      );
      expect(events).toEqual([
        { action: "org.two_factor_required", actorId: owner.user.id },
        { action: "org.two_factor_not_required", actorId: owner.user.id },
      ]);
    });

    it("an SSO session meets the requirement (the provider's MFA is trusted); a password session does not", async () => {
      const a = await account("acme", "member");
      await fx.db.query("update organizations set two_factor_required = true where id = $1", [orgIds.acme]);
      const actor = { id: a.user.id, email: a.user.email };
      await expect(requireRole(fx.db, actor, "acme", "member")).rejects.toMatchObject({
        code: "CONSOLE_TWO_FACTOR_REQUIRED",
        status: 403,
      });
      await expect(requireRole(fx.db, { ...actor, sso: true }, "acme", "member")).resolves.toMatchObject({
        role: "member",
      });
      expect((await me(a.cookie))?.sso).toBeUndefined();
    });
  });
});
