// Accounts (issue 26, item 2): change password (every other session ends, this one goes on) and password reset links
// issued by an owner, through the real route handlers and the real Auth.js flow, across roles and organizations, on
// both drivers; and the limit on wrong passwords typed in the account's settings.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as accountRoute from "@/app/api/console/account/route";
import * as passwordRoute from "@/app/api/console/account/password/route";
import * as resetRoute from "@/app/api/console/account/reset-password/route";
import * as issueRoute from "@/app/api/console/orgs/[org]/members/[id]/password-reset/route";
import { addMembership, createUser, type User } from "@/db/users";
import { RESET_LINK_TTL_MS, resetLinkEmail, resetPassword } from "@/lib/console/account";
import { csrfTokenFor } from "@/lib/console/http";
import { setupApi, type ApiFixture } from "../support/api";
import { authRequest, cookieHeader, csrf, storeCookies } from "../support/console";
import { accountsFixture, BASE, NEW_PASSWORD, PASSWORD, type Handler, type Org } from "./accounts-fixture";

describe.each(["pglite", "pg"] as const)("accounts on %s", (driver) => {
  const t = accountsFixture(driver);
  const { orgIds, account, signInWith, call, me, keys, audit } = t;
  let fx: ApiFixture;
  beforeAll(() => {
    fx = t.fx;
  });

  describe("change password", () => {
    const change = (a: { user: User; cookie: string }, body: unknown, csrfOk = true) =>
      call(passwordRoute.POST as Handler, "/api/console/account/password", {
        cookie: a.cookie,
        userId: a.user.id,
        body,
        csrf: csrfOk,
      });

    it("needs the current password; ends every other session; this browser's session goes on", async () => {
      const a = await account("acme", "member");
      const other = await signInWith(a.user.email, PASSWORD);
      expect((await me(other.cookie))?.id).toBe(a.user.id);

      const wrong = await change(a, { currentPassword: "not my password", newPassword: NEW_PASSWORD });
      expect([wrong.status, wrong.body.code]).toEqual([400, "CONSOLE_WRONG_PASSWORD"]);
      const same = await change(a, { currentPassword: PASSWORD, newPassword: PASSWORD });
      expect([same.status, same.body.code]).toEqual([400, "CONSOLE_INVALID"]);
      const short = await change(a, { currentPassword: PASSWORD, newPassword: "short" });
      expect([short.status, short.body.code]).toEqual([400, "CONSOLE_INVALID"]);
      expect((await me(other.cookie))?.id).toBe(a.user.id); // nothing changed yet

      const ok = await change(a, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
      expect([ok.status, ok.body]).toEqual([200, { changed: true }]);
      expect(ok.res.headers.getSetCookie()).toEqual([]);

      // The other browser is signed out; this browser's session (its cookie and CSRF token) goes on.
      expect(await me(other.cookie)).toBeNull();
      expect((await keys(other.cookie, a.user.id)).status).toBe(401);
      expect((await me(a.cookie))?.id).toBe(a.user.id);
      expect((await keys(a.cookie, a.user.id)).status).toBe(200);
      const session = await authRequest("/api/auth/session", { cookie: a.cookie });
      expect(((await session.json()) as { user?: { id: string } }).user?.id).toBe(a.user.id);

      // The new password signs in, the old one no longer.
      expect((await signInWith(a.user.email, NEW_PASSWORD)).location).toBe(`${BASE}/console`);
      expect((await signInWith(a.user.email, PASSWORD)).location).toMatch(/code=credentials$/);
      expect(await audit(a.user.id)).toEqual([
        { action: "account.password_changed", actorId: a.user.id, orgId: null },
      ]);
    });

    it("refuses without a session (401) and without the CSRF token (403); an SSO-only account has no password", async () => {
      const a = await account("acme", "owner");
      const body = { currentPassword: PASSWORD, newPassword: NEW_PASSWORD };
      expect(
        (await call(passwordRoute.POST as Handler, "/api/console/account/password", { body })).status,
      ).toBe(401);
      const noCsrf = await change(a, body, false);
      expect([noCsrf.status, noCsrf.body.code]).toEqual([403, "CONSOLE_CSRF"]);
      expect((await me(a.cookie))?.id).toBe(a.user.id);
      await fx.db.query("update users set password_hash = null where id = $1", [a.user.id]);
      const sso = await change(a, body);
      expect([sso.status, sso.body.code]).toEqual([409, "CONSOLE_ACCOUNT_CONFLICT"]);
      const overview = await call(accountRoute.GET as Handler, "/api/console/account", {
        cookie: a.cookie,
        userId: a.user.id,
        method: "GET",
      });
      expect(overview.body.hasPassword).toBe(false);
    });
  });

  describe("password reset links", () => {
    const issue = (
      cookie: string | undefined,
      userId: string | undefined,
      org: Org,
      target: string,
      csrfOk = true,
    ) =>
      call(issueRoute.POST as Handler, `/api/console/orgs/${org}/members/${target}/password-reset`, {
        cookie,
        userId,
        params: { org, id: target },
        csrf: csrfOk,
      });
    const use = (token: string, password = NEW_PASSWORD, origin = BASE) =>
      resetRoute.POST(
        new Request(`${BASE}/api/console/account/reset-password`, {
          method: "POST",
          headers: { origin, "content-type": "application/json" },
          body: JSON.stringify({ token, password }),
        }),
        { params: Promise.resolve({}) },
      );
    const tokenOf = (url: string) => url.slice(`${BASE}/console/reset/`.length);

    it("only an owner of the member's organization issues one; every other actor is refused", async () => {
      const target = await account("acme", "member");
      const member = await account("acme", "member");
      const admin = await account("acme", "admin");
      const owner = await account("acme", "owner");
      const globexOwner = await account("globex", "owner");
      const team = await account(null, "member", true);
      const status = async (a: { user: User; cookie: string } | null, csrfOk = true) => {
        const r = await issue(a?.cookie, a?.user.id, "acme", target.user.id, csrfOk);
        return [r.status, r.body.code];
      };
      expect(await status(member)).toEqual([403, "CONSOLE_FORBIDDEN"]);
      expect(await status(admin)).toEqual([403, "CONSOLE_FORBIDDEN"]);
      expect(await status(globexOwner)).toEqual([404, "CONSOLE_NOT_FOUND"]);
      expect(await status(team)).toEqual([404, "CONSOLE_NOT_FOUND"]);
      expect(await status(null)).toEqual([401, "CONSOLE_UNAUTHENTICATED"]);
      expect(await status(owner, false)).toEqual([403, "CONSOLE_CSRF"]);
      // The globex owner cannot reach an acme member through their own organization either.
      const viaGlobex = await issue(globexOwner.cookie, globexOwner.user.id, "globex", target.user.id);
      expect([viaGlobex.status, viaGlobex.body.code]).toEqual([404, "CONSOLE_NOT_FOUND"]);
      expect(await fx.db.query("select 1 from password_resets where user_id = $1", [target.user.id])).toEqual(
        [],
      );

      const ok = await issue(owner.cookie, owner.user.id, "acme", target.user.id);
      expect(ok.status).toBe(201);
      expect(ok.body.url).toMatch(/^http:\/\/api\.test\/console\/reset\/[A-Za-z0-9_-]{43}$/);
      const expiresIn = Date.parse(ok.body.expiresAt) - Date.now();
      expect(expiresIn).toBeGreaterThan(RESET_LINK_TTL_MS - 60_000);
      expect(expiresIn).toBeLessThanOrEqual(RESET_LINK_TTL_MS);
      // Only the token's SHA-256 is stored.
      const token = tokenOf(ok.body.url);
      const rows = await fx.db.query<{ h: string }>(
        "select token_hash as h from password_resets where user_id = $1",
        [target.user.id],
      );
      expect(rows).toEqual([{ h: createHash("sha256").update(token).digest("hex") }]);
      expect(await audit(target.user.id)).toEqual([
        { action: "account.password_reset_issued", actorId: owner.user.id, orgId: orgIds.acme },
      ]);

      // Not for themselves, nor for a member who also belongs to an organization the owner does not own.
      const self = await issue(owner.cookie, owner.user.id, "acme", owner.user.id);
      expect([self.status, self.body.code]).toEqual([409, "CONSOLE_ACCOUNT_CONFLICT"]);
      await addMembership(fx.db, { userId: member.user.id, orgId: orgIds.globex, role: "member" });
      const both = await issue(owner.cookie, owner.user.id, "acme", member.user.id);
      expect([both.status, both.body.code]).toEqual([403, "CONSOLE_FORBIDDEN"]);
    });

    it("the link sets a new password once and ends every session; a used or replaced link is gone (410)", async () => {
      const target = await account("acme", "admin");
      const owner = await account("acme", "owner");
      const first = await issue(owner.cookie, owner.user.id, "acme", target.user.id);
      const second = await issue(owner.cookie, owner.user.id, "acme", target.user.id);
      // A newer link replaces the unused one.
      expect(await resetLinkEmail(fx.db, tokenOf(first.body.url))).toBeNull();
      expect((await use(tokenOf(first.body.url))).status).toBe(410);
      const token = tokenOf(second.body.url);
      expect(await resetLinkEmail(fx.db, token)).toBe(target.user.email);

      // Without the console's Origin: refused, the link still works after.
      expect((await use(token, NEW_PASSWORD, "http://evil.test")).status).toBe(403);
      const tooShort = await use(token, "short");
      expect(tooShort.status).toBe(400);

      const ok = await use(token);
      expect(ok.status).toBe(200);
      expect(await me(target.cookie)).toBeNull();
      expect((await signInWith(target.user.email, NEW_PASSWORD)).location).toBe(`${BASE}/console`);
      expect((await signInWith(target.user.email, PASSWORD)).location).toMatch(/code=credentials$/);

      const again = await use(token, "a third password");
      expect(again.status).toBe(410);
      expect(((await again.json()) as { code: string }).code).toBe("CONSOLE_RESET_LINK_INVALID");
      expect(await resetLinkEmail(fx.db, token)).toBeNull();
      expect((await use("not-a-token")).status).toBe(410);
      expect(await resetLinkEmail(fx.db, "../../etc")).toBeNull();
      expect((await audit(target.user.id)).map((e) => [e.action, e.actorId, e.orgId])).toEqual([
        ["account.password_reset_issued", owner.user.id, orgIds.acme],
        ["account.password_reset_issued", owner.user.id, orgIds.acme],
        ["account.password_reset", target.user.id, orgIds.acme],
      ]);
    });

    it("expires after an hour (time injected)", async () => {
      const target = await account("acme", "member");
      const owner = await account("acme", "owner");
      const issued = await issue(owner.cookie, owner.user.id, "acme", target.user.id);
      const token = tokenOf(issued.body.url);
      const expiresAt = Date.parse(issued.body.expiresAt);
      expect(await resetLinkEmail(fx.db, token, expiresAt - 1)).toBe(target.user.email);
      expect(await resetLinkEmail(fx.db, token, expiresAt)).toBeNull();
      await expect(
        resetPassword(fx.db, { token, password: NEW_PASSWORD }, expiresAt + 1),
      ).rejects.toMatchObject({ code: "CONSOLE_RESET_LINK_INVALID", status: 410 });
      // Still unused: just before the end it works.
      await expect(
        resetPassword(fx.db, { token, password: NEW_PASSWORD }, expiresAt - 1000),
      ).resolves.toMatchObject({ reset: true, email: target.user.email });
    });
  });
});

// Wrong passwords and codes typed in the account's settings count like failed sign-ins (a session left open is not a
// way to guess them): SIGN_IN_FAILURE_LIMIT of them lock the account's checks (429), the right password included.
describe.each(["pglite", "pg"] as const)("account checks' limit on %s", (driver) => {
  let fx: ApiFixture;
  beforeAll(async () => {
    fx = await setupApi(driver, { AUTH_SECRET: "l".repeat(40), SIGN_IN_FAILURE_LIMIT: "3" });
  });
  afterAll(async () => {
    await fx?.close();
  });

  it("three wrong current passwords lock password changes; another account is not concerned", async () => {
    const post = async (email: string, body: unknown) => {
      const user = await createUser(fx.db, { email, name: email, password: PASSWORD }).catch(async () => {
        const [row] = await fx.db.query<User>("select id, email from users where email = $1", [email]);
        return row!;
      });
      const { cookie } = await signInAs(email);
      const headers = new Headers({ cookie, origin: BASE, "content-type": "application/json" });
      headers.set("x-csrf-token", csrfTokenFor(fx.config, user.id, headers));
      const res = await passwordRoute.POST(
        new Request(`${BASE}/api/console/account/password`, {
          method: "POST",
          headers,
          body: JSON.stringify(body),
        }),
        { params: Promise.resolve({}) },
      );
      return [res.status, ((await res.json()) as { code?: string }).code];
    };
    let ipN = 0;
    const signInAs = async (email: string) => {
      ipN += 1;
      const headers = { "x-forwarded-for": `10.27.0.${ipN}` };
      const { csrfToken, jar } = await csrf(new Map(), headers);
      const response = await authRequest("/api/auth/callback/credentials", {
        cookie: cookieHeader(jar),
        headers,
        form: { csrfToken, email, password: PASSWORD, callbackUrl: "/console" },
      });
      storeCookies(jar, response);
      return { cookie: cookieHeader(jar) };
    };
    const wrong = { currentPassword: "not the password", newPassword: NEW_PASSWORD };
    const right = { currentPassword: PASSWORD, newPassword: NEW_PASSWORD };
    for (let i = 0; i < 3; i++)
      expect(await post("locked@limits.test", wrong)).toEqual([400, "CONSOLE_WRONG_PASSWORD"]);
    expect(await post("locked@limits.test", right)).toEqual([429, "CONSOLE_TOO_MANY_ATTEMPTS"]);
    expect(await post("other@limits.test", right)).toEqual([200, undefined]);
  });
});
