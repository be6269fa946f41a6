// Two-factor sign-in (issue 26, item 2): set-up, sign-in with a code or a recovery code, replay, new recovery codes,
// turning it off. Every action through its real route handler and the real Auth.js flow, on both drivers. TOTP codes
// are computed with the library itself at chosen times (Date faked where the sign-in reads the clock).
import { beforeAll, describe, expect, it, vi } from "vitest";
import * as disableRoute from "@/app/api/console/account/two-factor/disable/route";
import * as recoveryRoute from "@/app/api/console/account/two-factor/recovery-codes/route";
import * as setupRoute from "@/app/api/console/account/two-factor/setup/route";
import * as confirmRoute from "@/app/api/console/account/two-factor/confirm/route";
import { decryptSecret } from "@/lib/console/two-factor-secret";
import { verifySecondFactor } from "@/lib/console/two-factor-verify";
import type { ApiFixture } from "../support/api";
import { accountsFixture, BASE, codeAt, PASSWORD, type Handler } from "./accounts-fixture";

describe.each(["pglite", "pg"] as const)("two-factor sign-in on %s", (driver) => {
  const t = accountsFixture(driver);
  const { account, signInWith, call, me, audit, enableTwoFactor } = t;
  let fx: ApiFixture;
  beforeAll(() => {
    fx = t.fx;
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
});
