// Issue 26, item 2 (accounts): change password, password reset links issued by an owner, two-factor sign-in (TOTP,
// recovery codes, replay), an organization that requires two-factor. Every action through its real route handler
// and the real Auth.js flow, across roles and organizations, on both drivers. TOTP codes are computed with the
// library itself at chosen times (Date faked where the sign-in reads the clock).
import { createHash } from "node:crypto";
import { Secret, TOTP } from "otpauth";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import * as accountRoute from "@/app/api/console/account/route";
import * as passwordRoute from "@/app/api/console/account/password/route";
import * as resetRoute from "@/app/api/console/account/reset-password/route";
import * as confirmRoute from "@/app/api/console/account/two-factor/confirm/route";
import * as disableRoute from "@/app/api/console/account/two-factor/disable/route";
import * as recoveryRoute from "@/app/api/console/account/two-factor/recovery-codes/route";
import * as setupRoute from "@/app/api/console/account/two-factor/setup/route";
import * as keysRoute from "@/app/api/console/orgs/[org]/keys/route";
import * as issueRoute from "@/app/api/console/orgs/[org]/members/[id]/password-reset/route";
import * as orgTwoFactorRoute from "@/app/api/console/orgs/[org]/two-factor/route";
import { addMembership, createUser, type User } from "@/db/users";
import { RESET_LINK_TTL_MS, resetLinkEmail, resetPassword } from "@/lib/console/account";
import { requireRole } from "@/lib/console/access";
import { csrfTokenFor } from "@/lib/console/http";
import { getConsoleUser } from "@/lib/console/session";
import { decryptSecret, TOTP_PARAMS, verifySecondFactor } from "@/lib/console/two-factor";
import { setupApi, type ApiFixture } from "../support/api";
import { authRequest, cookieHeader, csrf, storeCookies } from "../support/console";

const PASSWORD = "correct horse battery";
const NEW_PASSWORD = "another good password";
const BASE = "http://api.test";

type Handler = (request: Request, context: { params: Promise<never> }) => Promise<Response>;
type Org = "acme" | "globex";

// A code of a base32 secret at a time (ms).
const codeAt = (secret: string, timestamp: number) =>
  new TOTP({ secret: Secret.fromBase32(secret), ...TOTP_PARAMS }).generate({ timestamp });

describe.each(["pglite", "pg"] as const)("accounts on %s", (driver) => {
  let fx: ApiFixture;
  const orgIds: Record<Org, string> = { acme: "", globex: "" };
  let n = 0;
  const ip = () => `10.26.${Math.floor(n / 250)}.${(n % 250) + 1}`;

  // A fresh account, member of `org` with `role` (none for the product team), signed in.
  async function account(org: Org | null, role: "owner" | "admin" | "member" = "member", isStaff = false) {
    n += 1;
    const user = await createUser(fx.db, {
      email: `a${n}@accounts.test`,
      name: `A ${n}`,
      password: PASSWORD,
      isStaff,
    });
    if (org) await addMembership(fx.db, { userId: user.id, orgId: orgIds[org], role });
    const { cookie, location } = await signInWith(user.email, PASSWORD);
    expect(location).toBe(`${BASE}/console`);
    return { user, cookie };
  }

  // The sign-in form's POST (with an optional code), from a new address each time.
  async function signInWith(email: string, password: string, code?: string) {
    n += 1;
    const headers = { "x-forwarded-for": ip() };
    const { csrfToken, jar } = await csrf(new Map(), headers);
    const form: Record<string, string> = { csrfToken, email, password, callbackUrl: "/console" };
    if (code !== undefined) form.code = code;
    const response = await authRequest("/api/auth/callback/credentials", {
      cookie: cookieHeader(jar),
      headers,
      form,
    });
    storeCookies(jar, response);
    return { location: response.headers.get("location"), cookie: cookieHeader(jar), jar };
  }

  // A console route called as the console page's fetch would: the session cookie, the Origin and the session's CSRF
  // token (unless `csrf: false`, or no cookie at all).
  async function call(
    handler: Handler,
    path: string,
    opts: {
      cookie?: string;
      userId?: string;
      body?: unknown;
      params?: Record<string, string>;
      csrf?: boolean;
      method?: string;
    } = {},
  ) {
    const method = opts.method ?? "POST";
    const headers = new Headers({ origin: BASE, "content-type": "application/json" });
    if (opts.cookie) headers.set("cookie", opts.cookie);
    if (opts.cookie && opts.userId && opts.csrf !== false)
      headers.set("x-csrf-token", csrfTokenFor(fx.config, opts.userId, headers));
    const request = new Request(`${BASE}${path}`, {
      method,
      headers,
      body: method === "GET" ? undefined : JSON.stringify(opts.body ?? {}),
    });
    const res = await handler(request, { params: Promise.resolve(opts.params ?? {}) as Promise<never> });
    // A JSON answer read loosely: each test checks the fields it names.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return { status: res.status, body: (await res.json()) as any, res };
  }

  const me = async (cookie: string) => getConsoleUser(new Headers({ cookie }));
  const keys = (cookie: string, userId: string, org: Org = "acme") =>
    call(keysRoute.GET as Handler, `/api/console/orgs/${org}/keys`, {
      cookie,
      userId,
      method: "GET",
      params: { org },
    });
  const audit = (targetId: string) =>
    fx.db.query<{ action: string; actorId: string | null; orgId: string | null }>(
      `select action, actor_id as "actorId", org_id as "orgId" from audit_events where target_id = $1
        order by created_at, id`,
      [targetId],
    );

  // Two-factor on for a signed-in account, through the routes; returns its secret, the recovery codes and the time
  // of the code used (the next code must be of a later step).
  async function enableTwoFactor(a: { user: User; cookie: string }) {
    const setup = await call(setupRoute.POST as Handler, "/api/console/account/two-factor/setup", {
      cookie: a.cookie,
      userId: a.user.id,
    });
    expect(setup.status).toBe(200);
    const secret = setup.body.secret as string;
    const confirmed = await call(confirmRoute.POST as Handler, "/api/console/account/two-factor/confirm", {
      cookie: a.cookie,
      userId: a.user.id,
      body: { code: codeAt(secret, Date.now()) },
    });
    expect(confirmed.status).toBe(200);
    return { secret, recoveryCodes: confirmed.body.recoveryCodes as string[] };
  }

  beforeAll(async () => {
    fx = await setupApi(driver, { AUTH_SECRET: "a".repeat(40), SIGN_IN_FAILURE_LIMIT: "1000" });
    for (const org of ["acme", "globex"] as const) {
      const [row] = await fx.db.query<{ id: string }>("select id from organizations where slug = $1", [org]);
      orgIds[org] = row!.id;
    }
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  afterAll(async () => {
    await fx?.close();
  });

  describe("change password", () => {
    const change = (a: { user: User; cookie: string }, body: unknown, csrfOk = true) =>
      call(passwordRoute.POST as Handler, "/api/console/account/password", {
        cookie: a.cookie,
        userId: a.user.id,
        body,
        csrf: csrfOk,
      });

    it("needs the current password; ends every other session; this browser's session is re-issued and works", async () => {
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
      expect(ok.status).toBe(200);
      expect(ok.body.changed).toBe(true);
      const line = ok.res.headers.getSetCookie().find((l) => l.startsWith("authjs.session-token="));
      expect(line).toMatch(/HttpOnly/);
      expect(line).toMatch(/SameSite=Lax/);
      const renewed = line!.split(";")[0]!;

      // The other browser and this browser's old cookie are ended; the re-issued cookie is live, with its new token.
      expect(await me(other.cookie)).toBeNull();
      expect(await me(a.cookie)).toBeNull();
      expect((await me(renewed))?.id).toBe(a.user.id);
      expect((await keys(renewed, a.user.id)).status).toBe(200);
      expect(ok.body.csrfToken).toBe(csrfTokenFor(fx.config, a.user.id, new Headers({ cookie: renewed })));
      const session = await authRequest("/api/auth/session", { cookie: renewed });
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
        resetPassword(fx.runtime, { token, password: NEW_PASSWORD }, expiresAt + 1),
      ).rejects.toMatchObject({ code: "CONSOLE_RESET_LINK_INVALID", status: 410 });
      // Still unused: just before the end it works.
      await expect(
        resetPassword(fx.runtime, { token, password: NEW_PASSWORD }, expiresAt - 1000),
      ).resolves.toMatchObject({ reset: true, email: target.user.email });
    });
  });

  describe("two-factor sign-in", () => {
    it("set-up: a secret (encrypted at rest) and a QR code; a wrong code is refused; the right one gives 10 recovery codes", async () => {
      const a = await account("acme", "member");
      const setup = await call(setupRoute.POST as Handler, "/api/console/account/two-factor/setup", {
        cookie: a.cookie,
        userId: a.user.id,
      });
      expect(setup.status).toBe(200);
      expect(setup.body.secret).toMatch(/^[A-Z2-7]{32}$/);
      expect(setup.body.uri).toMatch(/^otpauth:\/\/totp\/Public%20Catalog%20API:a\d+%40accounts\.test\?/);
      expect(setup.body.qrSvg).toMatch(/^<svg[^>]*>/);
      const [stored] = await fx.db.query<{ s: string }>(
        "select secret_encrypted as s from user_two_factor where user_id = $1",
        [a.user.id],
      );
      expect(stored!.s).not.toContain(setup.body.secret);
      expect(decryptSecret(fx.config, a.user.id, stored!.s)).toBe(setup.body.secret);
      expect(() =>
        decryptSecret({ ...fx.config, AUTH_SECRET: "b".repeat(40) }, a.user.id, stored!.s),
      ).toThrow();
      expect(() => decryptSecret(fx.config, "usr_other", stored!.s)).toThrow();

      const confirm = (code: string, csrfOk = true) =>
        call(confirmRoute.POST as Handler, "/api/console/account/two-factor/confirm", {
          cookie: a.cookie,
          userId: a.user.id,
          body: { code },
          csrf: csrfOk,
        });
      const wrongCode = String((Number(codeAt(setup.body.secret, Date.now())) + 1) % 1_000_000).padStart(
        6,
        "0",
      );
      expect((await confirm(wrongCode)).body.code).toBe("CONSOLE_WRONG_CODE");
      expect((await confirm(codeAt(setup.body.secret, Date.now()), false)).status).toBe(403);
      // Not on yet: a password alone still signs in.
      expect((await signInWith(a.user.email, PASSWORD)).location).toBe(`${BASE}/console`);
      const ok = await confirm(codeAt(setup.body.secret, Date.now()));
      expect(ok.status).toBe(200);
      expect(ok.body.recoveryCodes).toHaveLength(10);
      expect(new Set(ok.body.recoveryCodes).size).toBe(10);
      for (const c of ok.body.recoveryCodes) expect(c).toMatch(/^[a-z2-7]{4}(-[a-z2-7]{4}){3}$/);
      const hashes = await fx.db.query<{ h: string }>(
        "select code_hash as h from user_recovery_codes where user_id = $1",
        [a.user.id],
      );
      expect(hashes).toHaveLength(10);
      expect(hashes.map((h) => h.h)).not.toContain(ok.body.recoveryCodes[0]);
      // Once on, set-up cannot start again.
      const again = await call(setupRoute.POST as Handler, "/api/console/account/two-factor/setup", {
        cookie: a.cookie,
        userId: a.user.id,
      });
      expect([again.status, again.body.code]).toEqual([409, "CONSOLE_ACCOUNT_CONFLICT"]);
      expect(await audit(a.user.id)).toEqual([
        { action: "account.two_factor_enabled", actorId: a.user.id, orgId: null },
      ]);
      // Without a session: 401.
      expect((await call(setupRoute.POST as Handler, "/api/console/account/two-factor/setup")).status).toBe(
        401,
      );
    });

    it("sign-in asks for the code after any password, alike; a wrong password or code is refused alike; the right code signs in once", async () => {
      const a = await account("acme", "member");
      const { secret } = await enableTwoFactor(a);
      let t = Date.now() + 30_000; // the confirmation took this step's code
      vi.useFakeTimers({ toFake: ["Date"], now: t });

      const right = await signInWith(a.user.email, PASSWORD);
      const wrong = await signInWith(a.user.email, "wrong password!");
      for (const r of [right, wrong]) {
        expect(r.location).toBe(`${BASE}/console/sign-in?error=CredentialsSignin&code=two_factor`);
        expect(await me(r.cookie)).toBeNull();
      }
      const code = codeAt(secret, t);
      const badCode = String((Number(code) + 1) % 1_000_000).padStart(6, "0");
      expect((await signInWith(a.user.email, PASSWORD, badCode)).location).toMatch(/code=two_factor_failed$/);
      expect((await signInWith(a.user.email, "wrong password!", code)).location).toMatch(
        /code=two_factor_failed$/,
      );
      const ok = await signInWith(a.user.email, PASSWORD, code);
      expect(ok.location).toBe(`${BASE}/console`);
      expect((await me(ok.cookie))?.id).toBe(a.user.id);
      // The same code again (replay, within its window): refused.
      expect((await signInWith(a.user.email, PASSWORD, code)).location).toMatch(/code=two_factor_failed$/);
      // Next step's code: accepted.
      t += 30_000;
      vi.setSystemTime(t);
      expect((await signInWith(a.user.email, PASSWORD, codeAt(secret, t))).location).toBe(`${BASE}/console`);
      // An account without two-factor, wrong password: the usual answer, no code step.
      expect((await signInWith("nobody@accounts.test", PASSWORD)).location).toMatch(/code=credentials$/);
    });

    it("codes are checked within ±1 step and never twice (time injected)", async () => {
      const a = await account("globex", "owner");
      const { secret, recoveryCodes } = await enableTwoFactor(a);
      const t0 = Math.ceil((Date.now() + 120_000) / 30_000) * 30_000 + 5_000; // a later step, 5 s into it
      const check = (code: string, now: number) => verifySecondFactor(fx.db, fx.config, a.user.id, code, now);
      // Two steps late or early: refused (and nothing recorded).
      expect(await check(codeAt(secret, t0 - 60_000), t0)).toBeNull();
      expect(await check(codeAt(secret, t0 + 60_000), t0)).toBeNull();
      // One step late: accepted; then the current step's code is still accepted (a later step)...
      expect(await check(codeAt(secret, t0 - 30_000), t0)).toBe("totp");
      expect(await check(codeAt(secret, t0), t0)).toBe("totp");
      // ...but neither again, nor the older one.
      expect(await check(codeAt(secret, t0), t0 + 10_000)).toBeNull();
      expect(await check(codeAt(secret, t0 - 30_000), t0)).toBeNull();
      // One step early: accepted.
      expect(await check(codeAt(secret, t0 + 30_000), t0)).toBe("totp");
      expect(await check("12345", t0)).toBeNull();
      // Under another AUTH_SECRET the secret does not decrypt: no code matches (no error), recovery codes still work.
      const other = { ...fx.config, AUTH_SECRET: "z".repeat(40) };
      vi.spyOn(console, "error").mockImplementation(() => {});
      expect(
        await verifySecondFactor(fx.db, other, a.user.id, codeAt(secret, t0 + 30_000), t0 + 30_000),
      ).toBeNull();
      vi.restoreAllMocks();
      expect(await verifySecondFactor(fx.db, other, a.user.id, recoveryCodes[0]!, t0)).toBe("recovery");
      expect(await check("", t0)).toBeNull();
    });

    it("a recovery code signs in in place of a code, once; audited", async () => {
      const a = await account("acme", "admin");
      const { recoveryCodes } = await enableTwoFactor(a);
      const recovery = recoveryCodes[3]!;
      const ok = await signInWith(a.user.email, PASSWORD, ` ${recovery.toUpperCase()} `);
      expect(ok.location).toBe(`${BASE}/console`);
      expect((await me(ok.cookie))?.id).toBe(a.user.id);
      expect((await signInWith(a.user.email, PASSWORD, recovery)).location).toMatch(
        /code=two_factor_failed$/,
      );
      expect((await signInWith(a.user.email, PASSWORD, "aaaa-bbbb-cccc-dddd")).location).toMatch(
        /code=two_factor_failed$/,
      );
      const [left] = await fx.db.query<{ n: number }>(
        "select count(*)::int as n from user_recovery_codes where user_id = $1 and used_at is null",
        [a.user.id],
      );
      expect(left!.n).toBe(9);
      expect((await audit(a.user.id)).map((e) => e.action)).toEqual([
        "account.two_factor_enabled",
        "account.recovery_code_used",
      ]);
    });

    it("regenerating recovery codes needs a current code; the old ones stop working", async () => {
      const a = await account("acme", "member");
      const { secret, recoveryCodes } = await enableTwoFactor(a);
      const regen = (code: string, csrfOk = true) =>
        call(recoveryRoute.POST as Handler, "/api/console/account/two-factor/recovery-codes", {
          cookie: a.cookie,
          userId: a.user.id,
          body: { code },
          csrf: csrfOk,
        });
      expect((await regen(recoveryCodes[0]!)).body.code).toBe("CONSOLE_WRONG_CODE");
      const next = codeAt(secret, Date.now() + 30_000);
      expect((await regen(next, false)).status).toBe(403);
      const ok = await regen(next);
      expect(ok.status).toBe(200);
      expect(ok.body.recoveryCodes).toHaveLength(10);
      expect((await signInWith(a.user.email, PASSWORD, recoveryCodes[1]!)).location).toMatch(
        /two_factor_failed$/,
      );
      expect((await signInWith(a.user.email, PASSWORD, ok.body.recoveryCodes[0])).location).toBe(
        `${BASE}/console`,
      );
      expect((await audit(a.user.id)).map((e) => e.action)).toEqual([
        "account.two_factor_enabled",
        "account.recovery_codes_regenerated",
        "account.recovery_code_used",
      ]);
    });

    it("turning it off needs the password and a code; then a password alone signs in again", async () => {
      const a = await account("acme", "owner");
      const { recoveryCodes } = await enableTwoFactor(a);
      const disable = (body: unknown, csrfOk = true) =>
        call(disableRoute.POST as Handler, "/api/console/account/two-factor/disable", {
          cookie: a.cookie,
          userId: a.user.id,
          body,
          csrf: csrfOk,
        });
      expect((await disable({ password: PASSWORD })).body.code).toBe("CONSOLE_INVALID");
      expect((await disable({ password: "wrong password!", code: recoveryCodes[0] })).body.code).toBe(
        "CONSOLE_WRONG_PASSWORD",
      );
      expect((await disable({ password: PASSWORD, code: "000000" })).body.code).toBe("CONSOLE_WRONG_CODE");
      expect((await disable({ password: PASSWORD, code: recoveryCodes[0] }, false)).status).toBe(403);
      const ok = await disable({ password: PASSWORD, code: recoveryCodes[0] });
      expect(ok.status).toBe(200);
      expect(await fx.db.query("select 1 from user_recovery_codes where user_id = $1", [a.user.id])).toEqual(
        [],
      );
      expect((await signInWith(a.user.email, PASSWORD)).location).toBe(`${BASE}/console`);
      expect((await audit(a.user.id)).map((e) => e.action)).toEqual([
        "account.two_factor_enabled",
        "account.two_factor_disabled",
      ]);
    });
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
