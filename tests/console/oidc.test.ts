// Console sign-in through OpenID Connect, against a real provider on loopback (oauth2-mock-server): the
// authorization-code flow (state, PKCE, nonce) driven in-process through the /api/auth route handler.
import { OAuth2Server } from "oauth2-mock-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as keysRoute from "@/app/api/console/orgs/[org]/keys/route";
import { addMembership, createUser, type User } from "@/db/users";
import { setupApi, type ApiFixture } from "../support/api";
import {
  authRequest,
  consoleUserOf,
  cookieHeader,
  csrf,
  sessionCookieName,
  storeCookies,
  type CookieJar,
} from "../support/console";

// The claims the provider puts in its next tokens (the beforeTokenSigning hook reads them).
let claims: { email?: string; email_verified?: boolean } = {};

// Runs the authorization-code flow; returns the jar after our callback and the callback's answer.
async function ssoSignIn(): Promise<{ jar: CookieJar; response: Response }> {
  const { csrfToken, jar } = await csrf();
  const start = await authRequest("/api/auth/signin/oidc", {
    cookie: cookieHeader(jar),
    form: { csrfToken, callbackUrl: "/console" },
  });
  storeCookies(jar, start);
  expect(start.status).toBe(302);
  const authorize = new URL(start.headers.get("location")!);
  expect(authorize.pathname).toBe("/authorize");
  expect(authorize.searchParams.get("redirect_uri")).toBe("http://api.test/api/auth/callback/oidc");
  expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
  // The provider "signs the user in" at once and redirects back with a code.
  const back = await fetch(authorize, { redirect: "manual" });
  expect(back.status).toBe(302);
  const callback = new URL(back.headers.get("location")!);
  expect(callback.origin + callback.pathname).toBe("http://api.test/api/auth/callback/oidc");
  expect(callback.searchParams.get("code")).toBeTruthy();
  const response = await authRequest(callback.pathname + callback.search, { cookie: cookieHeader(jar) });
  storeCookies(jar, response);
  return { jar, response };
}

describe.each(["pglite", "pg"] as const)("console sign-in with OpenID Connect on %s", (driver) => {
  let provider: OAuth2Server;
  let fx: ApiFixture;
  let user: User;

  beforeAll(async () => {
    provider = new OAuth2Server();
    await provider.issuer.keys.generate("RS256");
    await provider.start(0, "127.0.0.1");
    provider.service.on("beforeTokenSigning", (token) => {
      Object.assign(token.payload, { sub: "provider-subject-1", ...claims });
    });
    fx = await setupApi(driver, {
      AUTH_SECRET: "o".repeat(40),
      AUTH_OIDC_ISSUER: provider.issuer.url!,
      AUTH_OIDC_CLIENT_ID: "console",
      AUTH_OIDC_CLIENT_SECRET: "console-secret",
    });
    user = await createUser(fx.db, {
      email: "sso.user@console.test",
      name: "SSO User",
      password: "not used for sso",
    });
  });
  afterAll(async () => {
    await fx?.close();
    await provider?.stop();
  });

  it("signs in the existing user with the provider's verified email; the session carries our user id", async () => {
    claims = { email: "SSO.User@console.test", email_verified: true };
    const { jar, response } = await ssoSignIn();
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("http://api.test/console");
    expect(jar.has(sessionCookieName())).toBe(true);
    const me = await consoleUserOf(new Headers({ cookie: cookieHeader(jar) }));
    expect(me).toEqual({
      id: user.id,
      email: user.email,
      name: "SSO User",
      isStaff: false,
      sessionId: expect.stringMatching(/^ses_[0-9A-Za-z]{16}$/),
      sso: true,
    });
    const session = await authRequest("/api/auth/session", { cookie: cookieHeader(jar) });
    expect(((await session.json()) as { user: { id: string } }).user.id).toBe(user.id);
  });

  it("an organization that requires two-factor sign-in admits an SSO session (the provider's MFA is trusted)", async () => {
    const [acme] = await fx.db.query<{ id: string }>("select id from organizations where slug = 'acme'");
    await addMembership(fx.db, { userId: user.id, orgId: acme!.id, role: "member" });
    await fx.db.query("update organizations set two_factor_required = true where id = $1", [acme!.id]);
    try {
      claims = { email: "sso.user@console.test", email_verified: true };
      const { jar } = await ssoSignIn();
      const headers = new Headers({ cookie: cookieHeader(jar), origin: "http://api.test" });
      const res = await keysRoute.GET(
        new Request("http://api.test/api/console/orgs/acme/keys", { headers }),
        {
          params: Promise.resolve({ org: "acme" }),
        },
      );
      expect(res.status).toBe(200);
    } finally {
      await fx.db.query("update organizations set two_factor_required = false where id = $1", [acme!.id]);
    }
  });

  it.each([
    ["an unknown email", { email: "stranger@console.test", email_verified: true }],
    ["an unverified email", { email: "sso.user@console.test", email_verified: false }],
    ["no email_verified claim", { email: "sso.user@console.test" }],
    ["no email", { email_verified: true }],
  ])("refuses %s: back to the sign-in page, no session, no account created", async (_name, c) => {
    claims = c;
    const before = await fx.db.query<{ n: number }>("select count(*)::int as n from users");
    const { jar, response } = await ssoSignIn();
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("http://api.test/console/sign-in?error=AccessDenied");
    expect(jar.has(sessionCookieName())).toBe(false);
    expect(await consoleUserOf(new Headers({ cookie: cookieHeader(jar) }))).toBeNull();
    const after = await fx.db.query<{ n: number }>("select count(*)::int as n from users");
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  it("offers no OIDC provider when AUTH_OIDC_* are unset", async () => {
    const plain = await setupApi(driver, { AUTH_SECRET: "p".repeat(40) });
    try {
      const res = await authRequest("/api/auth/providers");
      expect(Object.keys((await res.json()) as object)).toEqual(["credentials"]);
    } finally {
      await plain.close();
    }
  });
});
