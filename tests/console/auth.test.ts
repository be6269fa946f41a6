// The console's email + password sign-in, end to end through the /api/auth route handler, on both drivers.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "@/db/users";
import { ConfigError, loadConfig } from "@/lib/config";
import { authSecret, authSecretPath, AuthSecretMissingError } from "@/lib/console/auth-secret";
import { runScript } from "../cli/run";
import { setupApi, type ApiFixture } from "../support/api";
import {
  consoleUserOf,
  cookieHeader,
  sessionCookieName,
  setCookieLine,
  signIn,
  signOut,
} from "../support/console";

const PASSWORD = "correct horse battery";
const LIMIT = 3;
const from = (address: string) => ({ headers: { "x-forwarded-for": address } });

describe.each(["pglite", "pg"] as const)("console sign-in on %s", (driver) => {
  let fx: ApiFixture;
  let n = 0;
  // A fresh account per test, so that the per-account limit of one test does not reach another.
  const newUser = async (isStaff = false) => {
    n += 1;
    return createUser(fx.db, {
      email: `User${n}@Console.Test`,
      name: `User ${n}`,
      password: PASSWORD,
      isStaff,
    });
  };

  beforeAll(async () => {
    fx = await setupApi(driver, {
      AUTH_SECRET: "s".repeat(40),
      SIGN_IN_FAILURE_LIMIT: String(LIMIT),
    });
  });
  afterAll(async () => {
    await fx?.close();
  });

  it("signs in: a 302 to the callback URL, an HttpOnly SameSite=Lax session cookie, and getConsoleUser reads the user", async () => {
    const user = await newUser(true);
    const { cookie, response } = await signIn("  " + user.email.toUpperCase(), PASSWORD, from("10.0.0.1"));
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("http://api.test/console");
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
    const line = setCookieLine(response, sessionCookieName());
    expect(line).toBeDefined();
    expect(line).toMatch(/;\s*HttpOnly/i);
    expect(line).toMatch(/;\s*SameSite=Lax/i);
    expect(line).not.toMatch(/;\s*Secure/i); // http base URL
    const me = await consoleUserOf(new Headers({ cookie }));
    expect(me).toEqual({
      id: user.id,
      email: user.email,
      name: user.name,
      isStaff: true,
      sessionId: expect.stringMatching(/^ses_[0-9A-Za-z]{16}$/),
    });
  });

  it("reads the user fresh from the database: a deleted account's session gives null", async () => {
    const user = await newUser();
    const { cookie } = await signIn(user.email, PASSWORD, from("10.0.0.2"));
    expect((await consoleUserOf(new Headers({ cookie })))?.id).toBe(user.id);
    await fx.db.query("update users set is_staff = true where id = $1", [user.id]);
    expect((await consoleUserOf(new Headers({ cookie })))?.isStaff).toBe(true);
    await fx.db.query("delete from users where id = $1", [user.id]);
    expect(await consoleUserOf(new Headers({ cookie }))).toBeNull();
  });

  it("answers an unknown email and a wrong password alike, without a session", async () => {
    const user = await newUser();
    const unknown = await signIn("nobody@console.test", PASSWORD, from("10.0.1.1"));
    const wrong = await signIn(user.email, "wrong password!", from("10.0.1.2"));
    for (const r of [unknown, wrong]) {
      expect(r.response.status).toBe(302);
      expect(r.response.headers.get("location")).toBe(
        "http://api.test/console/sign-in?error=CredentialsSignin&code=credentials",
      );
      expect(setCookieLine(r.response, "session-token")).toBeUndefined();
      expect(await consoleUserOf(new Headers({ cookie: r.cookie }))).toBeNull();
    }
  });

  it("refuses an address after SIGN_IN_FAILURE_LIMIT failures, even with the right password; other addresses pass", async () => {
    const user = await newUser();
    for (let i = 0; i < LIMIT; i++) {
      // Different accounts each time: only the address reaches the limit.
      const r = await signIn(`guess${i}@console.test`, "wrong password!", from("10.0.2.1"));
      expect(r.response.headers.get("location")).toMatch(/code=credentials$/);
    }
    const refused = await signIn(user.email, PASSWORD, from("10.0.2.1"));
    expect(refused.response.status).toBe(302);
    expect(refused.response.headers.get("location")).toBe(
      "http://api.test/console/sign-in?error=CredentialsSignin&code=rate_limited",
    );
    expect(setCookieLine(refused.response, "session-token")).toBeUndefined();
    const elsewhere = await signIn(user.email, PASSWORD, from("10.0.2.2"));
    expect(elsewhere.response.headers.get("location")).toBe("http://api.test/console");
  });

  it("locks an account after SIGN_IN_FAILURE_LIMIT failures from any addresses for those addresses only: the right password from an address without failures gets in", async () => {
    const user = await newUser();
    const other = await newUser();
    // A stranger who knows the email fails from several addresses (none reaches the per-address limit).
    for (let i = 0; i < LIMIT; i++) {
      const r = await signIn(user.email, "wrong password!", from(`10.0.3.${i + 1}`));
      expect(r.response.headers.get("location")).toMatch(/code=credentials$/);
    }
    // From those addresses the account is locked, the right password included, before any password check.
    const refused = await signIn(user.email.toUpperCase(), PASSWORD, from("10.0.3.1"));
    expect(refused.response.headers.get("location")).toMatch(/code=rate_limited$/);
    expect(await consoleUserOf(new Headers({ cookie: refused.cookie }))).toBeNull();
    // The owner, from an address without failures, signs in with the right password.
    const owner = await signIn(user.email, PASSWORD, from("10.0.3.100"));
    expect(owner.response.headers.get("location")).toBe("http://api.test/console");
    expect((await consoleUserOf(new Headers({ cookie: owner.cookie })))?.id).toBe(user.id);
    // A new address gets one wrong guess at the locked account, then it is locked out of it too.
    const guess = await signIn(user.email, "wrong password!", from("10.0.3.101"));
    expect(guess.response.headers.get("location")).toMatch(/code=credentials$/);
    const after = await signIn(user.email, PASSWORD, from("10.0.3.101"));
    expect(after.response.headers.get("location")).toMatch(/code=rate_limited$/);
    // Another account from an address that failed (below its own limit) still signs in.
    const ok = await signIn(other.email, PASSWORD, from("10.0.3.1"));
    expect(ok.response.headers.get("location")).toBe("http://api.test/console");
  });

  it("signs out: the session cookie is cleared and the old jar reads no user", async () => {
    const user = await newUser();
    const { jar } = await signIn(user.email, PASSWORD, from("10.0.4.1"));
    expect(jar.has(sessionCookieName())).toBe(true);
    const { response } = await signOut(jar);
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("http://api.test/console/sign-in");
    expect(setCookieLine(response, sessionCookieName())).toMatch(/Max-Age=0|Expires=Thu, 01 Jan 1970/i);
    expect(jar.has(sessionCookieName())).toBe(false);
    expect(await consoleUserOf(new Headers({ cookie: cookieHeader(jar) }))).toBeNull();
  });

  it("gives null for a tampered, a foreign or a missing session cookie", async () => {
    const user = await newUser();
    const { jar } = await signIn(user.email, PASSWORD, from("10.0.5.1"));
    const name = sessionCookieName();
    const token = jar.get(name)!;
    const flipped = token.slice(0, 40) + (token[40] === "A" ? "B" : "A") + token.slice(41);
    expect(await consoleUserOf(new Headers({ cookie: `${name}=${flipped}` }))).toBeNull();
    expect(await consoleUserOf(new Headers({ cookie: `${name}=${token.slice(0, -4)}` }))).toBeNull();
    expect(await consoleUserOf(new Headers({ cookie: `${name}=garbage` }))).toBeNull();
    expect(await consoleUserOf(new Headers())).toBeNull();
    expect((await consoleUserOf(new Headers({ cookie: `${name}=${token}` })))?.id).toBe(user.id);
  });
});

describe("the session secret", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "auth-secret-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("on the embedded default: generated once into DATA_DIR/auth-secret (mode 0600), then reused", () => {
    const config = loadConfig({ DATA_DIR: path.join(dir, "data") });
    const first = authSecret(config);
    expect(first.length).toBeGreaterThanOrEqual(32);
    const file = authSecretPath(config);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(authSecret(config)).toBe(first);
    expect(authSecret(loadConfig({ DATA_DIR: path.join(dir, "data") }))).toBe(first);
  });

  it("AUTH_SECRET wins; a server database without it is an error naming AUTH_SECRET", () => {
    const secret = "x".repeat(32);
    expect(authSecret(loadConfig({ DATA_DIR: dir, AUTH_SECRET: secret }))).toBe(secret);
    const server = loadConfig({ DATA_DIR: dir, DATABASE_URL: "postgres://u@127.0.0.1/db" });
    expect(() => authSecret(server)).toThrow(AuthSecretMissingError);
    expect(() => authSecret(server)).toThrow(/AUTH_SECRET/);
    expect(authSecret({ ...server, AUTH_SECRET: secret })).toBe(secret);
  });
});

describe("sign-in configuration", () => {
  const oidc = {
    AUTH_OIDC_ISSUER: "https://login.example.com",
    AUTH_OIDC_CLIENT_ID: "console",
    AUTH_OIDC_CLIENT_SECRET: "secret",
  };

  it("takes the three AUTH_OIDC_* variables together or none, naming each missing one", () => {
    expect(loadConfig(oidc).AUTH_OIDC_ISSUER).toBe("https://login.example.com");
    expect(loadConfig({}).AUTH_OIDC_ISSUER).toBeUndefined();
    for (const missing of Object.keys(oidc)) {
      const env: Record<string, string> = { ...oidc };
      delete env[missing];
      let error: unknown;
      try {
        loadConfig(env);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).variables).toEqual([missing]);
      expect((error as Error).message).toContain(missing);
    }
    expect(() => loadConfig({ AUTH_OIDC_CLIENT_ID: "only" })).toThrow(
      /AUTH_OIDC_ISSUER, AUTH_OIDC_CLIENT_SECRET/,
    );
  });

  it("limits failed sign-ins to 10 per 900 s by default, configurable", () => {
    const c = loadConfig({});
    expect([c.SIGN_IN_FAILURE_LIMIT, c.SIGN_IN_FAILURE_WINDOW_SECONDS]).toEqual([10, 900]);
    const d = loadConfig({ SIGN_IN_FAILURE_LIMIT: "5", SIGN_IN_FAILURE_WINDOW_SECONDS: "60" });
    expect([d.SIGN_IN_FAILURE_LIMIT, d.SIGN_IN_FAILURE_WINDOW_SECONDS]).toEqual([5, 60]);
    expect(() => loadConfig({ SIGN_IN_FAILURE_LIMIT: "0" })).toThrow(/SIGN_IN_FAILURE_LIMIT/);
  });

  it("npm start refuses a database server without AUTH_SECRET (exit 1, naming it), before touching the database", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "start-"));
    try {
      const r = await runScript("scripts/start.ts", [], {
        DATABASE_URL: "postgres://nobody@127.0.0.1:1/none",
        DATA_DIR: dir,
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("AUTH_SECRET is required with a database server");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
