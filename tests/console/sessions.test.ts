// What ends a console session (issue 37, row 1; issue 21, row 1 before it). Each session has a row of its own
// (migration 0026) whose id its token carries: sign-out ends that session only; a password reset, a weaker role and
// "sign out everywhere" end every session of the account. An ended session (a saved copy of its cookie too) is
// refused at its next request: the console routes answer 401 and /api/auth/session answers null and clears the
// cookie instead of renewing it. Real Auth.js flows through the route handlers, on both drivers.
import { encode } from "@auth/core/jwt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as keysRoute from "@/app/api/console/orgs/[org]/keys/route";
import * as signOutEverywhereRoute from "@/app/api/console/sign-out-everywhere/route";
import { addMembership, createUser, setPassword } from "@/db/users";
import { authSecret } from "@/lib/console/auth-secret";
import { csrfTokenFor } from "@/lib/console/http";
import { READ_SCOPES } from "@/lib/keys/scopes";
import { setupApi, type ApiFixture } from "../support/api";
import {
  authRequest,
  consoleUserOf,
  cookieHeader,
  sessionCookieName,
  setCookieLine,
  signIn,
  signOut,
  type CookieJar,
} from "../support/console";

const PASSWORD = "correct horse battery";

describe.each(["pglite", "pg"] as const)("console sessions on %s", (driver) => {
  let fx: ApiFixture;
  let acmeId: string;
  let n = 0;

  // A fresh acme member (a new address each, so that no sign-in limit is reached), signed in.
  async function member(role: "owner" | "admin" | "member" = "owner") {
    n += 1;
    const user = await createUser(fx.db, {
      email: `s${n}@sessions.test`,
      name: `S ${n}`,
      password: PASSWORD,
    });
    await addMembership(fx.db, { userId: user.id, orgId: acmeId, role });
    return { user, ...(await login(user.email)) };
  }
  async function login(email: string) {
    const { jar, response } = await signIn(email, PASSWORD, {
      headers: { "x-forwarded-for": `10.9.${n}.${Math.floor(Math.random() * 250) + 1}` },
    });
    expect(response.headers.get("location")).toBe("http://api.test/console");
    return { jar, cookie: cookieHeader(jar) };
  }

  // The keys route of acme called with a Cookie header, as the console page's fetch would (same origin, CSRF token).
  async function keys(method: "GET" | "POST", cookie: string, userId: string): Promise<number> {
    const headers = new Headers({ cookie, origin: "http://api.test", "content-type": "application/json" });
    headers.set("x-csrf-token", csrfTokenFor(fx.config, userId, headers));
    const body =
      method === "POST" ? JSON.stringify({ name: "saved cookie", scopes: [...READ_SCOPES] }) : undefined;
    const request = new Request("http://api.test/api/console/orgs/acme/keys", { method, headers, body });
    const res = await keysRoute[method](request, { params: Promise.resolve({ org: "acme" }) });
    return res.status;
  }

  // GET /api/auth/session with a cookie: the body and the session cookie's Set-Cookie line (renewed or cleared).
  async function session(cookie: string) {
    const res = await authRequest("/api/auth/session", { cookie });
    return {
      body: (await res.json()) as { user?: { id?: string } } | null,
      line: setCookieLine(res, sessionCookieName()),
    };
  }
  const cleared = /Max-Age=0|Expires=Thu, 01 Jan 1970/i;

  beforeAll(async () => {
    fx = await setupApi(driver, { AUTH_SECRET: "s".repeat(40) });
    const [org] = await fx.db.query<{ id: string }>("select id from organizations where slug = 'acme'");
    acmeId = org!.id;
  });
  afterAll(async () => {
    await fx?.close();
  });

  it("a live session lists and creates keys, and /api/auth/session renews it", async () => {
    const { user, cookie } = await member();
    expect(await keys("GET", cookie, user.id)).toBe(200);
    expect(await keys("POST", cookie, user.id)).toBe(201);
    const s = await session(cookie);
    expect(s.body?.user?.id).toBe(user.id);
    expect(s.line).toBeDefined();
    expect(s.line).not.toMatch(cleared);
  });

  it("sign-out ends the session: a cookie saved before it lists no keys, creates none, and is never renewed", async () => {
    const { user, jar } = await member();
    const saved = cookieHeader(jar);
    expect(await keys("GET", saved, user.id)).toBe(200);
    await signOut(new Map(jar) as CookieJar);
    expect(await keys("GET", saved, user.id)).toBe(401);
    expect(await keys("POST", saved, user.id)).toBe(401);
    expect(await consoleUserOf(new Headers({ cookie: saved }))).toBeNull();
    const s = await session(saved);
    expect(s.body).toBeNull();
    expect(s.line).toMatch(cleared);
  });

  it("sign-out ends that session only: another browser of the account goes on, and a new sign-in works", async () => {
    const { user, cookie: first } = await member();
    const { jar: second } = await login(user.email);
    const secondCopy = cookieHeader(second);
    await signOut(second);
    expect(await keys("GET", secondCopy, user.id)).toBe(401);
    expect((await consoleUserOf(new Headers({ cookie: first })))?.id).toBe(user.id);
    expect(await keys("GET", first, user.id)).toBe(200);
    expect(await keys("POST", first, user.id)).toBe(201);
    expect((await session(first)).body?.user?.id).toBe(user.id);
    const { cookie: third } = await login(user.email);
    expect((await consoleUserOf(new Headers({ cookie: third })))?.id).toBe(user.id);
    expect(await keys("GET", third, user.id)).toBe(200);
  });

  it("a token without a session id (issued before sessions had rows) is refused and not renewed", async () => {
    const { user } = await member();
    const name = sessionCookieName();
    const old = await encode({
      token: { sub: user.id, email: user.email, name: user.name, sv: 0 },
      secret: authSecret(fx.config),
      salt: name,
    });
    expect(await consoleUserOf(new Headers({ cookie: `${name}=${old}` }))).toBeNull();
    expect(await keys("GET", `${name}=${old}`, user.id)).toBe(401);
    expect((await session(`${name}=${old}`)).body).toBeNull();
  });

  it("an ended session's sign-out does not end the newer sessions", async () => {
    const { user, jar } = await member();
    const stale = new Map(jar) as CookieJar;
    await signOut(jar);
    const { cookie: fresh } = await login(user.email);
    await signOut(stale); // the saved copy of the ended session
    expect((await consoleUserOf(new Headers({ cookie: fresh })))?.id).toBe(user.id);
  });

  it("a password reset ends every earlier session", async () => {
    const { user, cookie } = await member();
    const { cookie: other } = await login(user.email);
    expect(await setPassword(fx.db, user.id, "another good password")).toBe(true);
    for (const c of [cookie, other]) {
      expect(await keys("POST", c, user.id)).toBe(401);
      expect(await consoleUserOf(new Headers({ cookie: c }))).toBeNull();
      expect((await session(c)).body).toBeNull();
    }
  });

  it("a weaker role ends every earlier session; the same or a stronger role does not", async () => {
    const { user, cookie } = await member("admin");
    await addMembership(fx.db, { userId: user.id, orgId: acmeId, role: "admin" });
    await addMembership(fx.db, { userId: user.id, orgId: acmeId, role: "owner" });
    expect((await consoleUserOf(new Headers({ cookie })))?.id).toBe(user.id);
    await addMembership(fx.db, { userId: user.id, orgId: acmeId, role: "member" });
    expect(await consoleUserOf(new Headers({ cookie }))).toBeNull();
    expect(await keys("GET", cookie, user.id)).toBe(401);
  });

  it("'sign out everywhere' (CSRF-checked, audited) ends every session of the account", async () => {
    const { user, cookie } = await member();
    const { cookie: other } = await login(user.email);
    const post = (headers: Record<string, string>) =>
      signOutEverywhereRoute.POST(
        new Request("http://api.test/api/console/sign-out-everywhere", {
          method: "POST",
          headers: { cookie, "content-type": "application/json", ...headers },
          body: "{}",
        }),
        { params: Promise.resolve({}) },
      );
    // Without the Origin and the session's CSRF token: 403, nothing ended.
    expect((await post({ origin: "http://evil.test" })).status).toBe(403);
    expect((await post({ origin: "http://api.test" })).status).toBe(403);
    expect((await consoleUserOf(new Headers({ cookie: other })))?.id).toBe(user.id);
    const csrf = csrfTokenFor(fx.config, user.id, new Headers({ cookie }));
    const res = await post({ origin: "http://api.test", "x-csrf-token": csrf });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ signedOut: true });
    for (const c of [cookie, other]) {
      expect(await consoleUserOf(new Headers({ cookie: c }))).toBeNull();
      expect((await session(c)).body).toBeNull();
    }
    const audit = await fx.db.query<{ action: string; actorId: string; orgId: string | null }>(
      `select action, actor_id as "actorId", org_id as "orgId" from audit_events where target_id = $1`,
      [user.id],
    );
    expect(audit).toEqual([{ action: "account.signed_out_everywhere", actorId: user.id, orgId: null }]);
    // And the route needs a session.
    expect((await post({ origin: "http://api.test", "x-csrf-token": csrf })).status).toBe(401);
  });
});
