// Console sessions on two instances of one Postgres: a session signed out on one instance (Auth.js'
// sign-out, the account page's "Sign out" of one session, "sign out everywhere") is refused by the other within 1 s,
// and the account's other sessions go on there. Each instance is a process of its own (instance-process.ts, the
// console's routes hosted from their route handlers by console-routes.ts); they share the test server's database
// and nothing else: no broadcast, each request reads the session's row.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPg, type Database } from "@/db/client";
import { migrate } from "@/db/migrate";
import { createUser } from "@/db/users";
import { csrfTokenFor } from "@/lib/console/http";
import { cookieHeader, storeCookies, type CookieJar } from "../support/console";
import { createTestDatabase } from "../support/servers";
import { startInstance, stopInstance, type Instance } from "./instances";

const PASSWORD = "correct horse battery";
const ORIGIN = "http://api.test";
const AUTH_SECRET = "console-sessions-two-instances-0123456789";

// Starts one instance on the database; resolves once it serves.
const start = (name: string, databaseUrl: string) =>
  startInstance(name, databaseUrl, { PUBLIC_BASE_URL: ORIGIN, AUTH_SECRET });

describe("console sessions on two instances of one Postgres", () => {
  let db: Database;
  let drop: () => Promise<void>;
  let a: Instance;
  let b: Instance;
  let email: string;

  // A request to an instance with a browser's jar (its Set-Cookie lines stored back), as the console's pages send it.
  async function call(
    i: Instance,
    jar: CookieJar,
    path: string,
    init: { method?: string; form?: object; csrf?: string } = {},
  ) {
    const headers: Record<string, string> = { cookie: cookieHeader(jar), origin: ORIGIN };
    let body: string | undefined;
    if (init.form) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams(init.form as Record<string, string>).toString();
    } else if (init.method === "POST") {
      headers["content-type"] = "application/json";
      body = "{}";
    }
    if (init.csrf) headers["x-csrf-token"] = init.csrf;
    const res = await fetch(`${i.base}${path}`, {
      method: init.method ?? "GET",
      headers,
      body,
      redirect: "manual",
    });
    storeCookies(jar, res);
    const text = await res.text();
    return {
      status: res.status,
      body: text.startsWith("{") ? (JSON.parse(text) as Record<string, unknown>) : null,
    };
  }
  async function authCsrf(i: Instance, jar: CookieJar): Promise<string> {
    return (await call(i, jar, "/api/auth/csrf")).body!.csrfToken as string;
  }
  // Signs in through an instance; the browser's jar.
  async function signIn(i: Instance): Promise<CookieJar> {
    const jar: CookieJar = new Map();
    const csrfToken = await authCsrf(i, jar);
    const r = await call(i, jar, "/api/auth/callback/credentials", {
      method: "POST",
      form: { csrfToken, email, password: PASSWORD, callbackUrl: "/console" },
    });
    expect(r.status).toBe(302);
    return jar;
  }
  const account = (i: Instance, jar: CookieJar) => call(i, new Map(jar), "/api/console/account");
  // The console CSRF token of a session, as the account page embeds it.
  async function csrfOf(jar: CookieJar): Promise<string> {
    const [user] = await db.query<{ id: string }>("select id from users where email = $1", [email]);
    const config = { AUTH_SECRET, DATA_DIR: "", dbDriver: "pg" as const };
    return csrfTokenFor(config, user!.id, new Headers({ cookie: cookieHeader(jar) }));
  }
  // Polls an instance until the session is refused; how long that took after `since` (ms).
  async function refusedAfter(i: Instance, jar: CookieJar, since: number): Promise<number> {
    for (;;) {
      const r = await account(i, jar);
      if (r.status === 401) return Date.now() - since;
      expect(r.status).toBe(200);
      if (Date.now() - since > 5_000) return Date.now() - since;
    }
  }

  beforeAll(async () => {
    const t = await createTestDatabase("console-sessions");
    drop = t.drop;
    db = await openPg(t.url, 2);
    await migrate(db);
    email = "two.instances@sessions.test";
    await createUser(db, { email, name: "Two instances", password: PASSWORD });
    [a, b] = await Promise.all([start("A", t.url), start("B", t.url)]);
  }, 180_000);

  afterAll(async () => {
    await Promise.all([a, b].filter(Boolean).map(stopInstance));
    await db?.close();
    await drop?.();
  }, 60_000);

  it("sign-out on A is refused on B within 1 s; the account's other session goes on on both", async () => {
    const laptop = await signIn(a);
    const phone = await signIn(b);
    for (const [i, jar] of [
      [a, laptop],
      [b, laptop],
      [a, phone],
      [b, phone],
    ] as const)
      expect((await account(i, jar)).status).toBe(200);
    const copy = new Map(laptop);
    const csrfToken = await authCsrf(a, laptop);
    const out = await call(a, laptop, "/api/auth/signout", {
      method: "POST",
      form: { csrfToken, callbackUrl: "/console/sign-in" },
    });
    const since = Date.now();
    expect(out.status).toBe(302);
    expect(await refusedAfter(b, copy, since)).toBeLessThan(1_000);
    expect((await account(b, phone)).status).toBe(200);
    expect((await account(a, phone)).status).toBe(200);
  });

  it("the account page's Sign out of one session on B is refused on A within 1 s; 'sign out everywhere' on A ends B's", async () => {
    const laptop = await signIn(a);
    const phone = await signIn(a);
    // The phone's session is the laptop's list's other one (the first test's are ended).
    const listed = (await account(b, laptop)).body!.sessions as { id: string; current: boolean }[];
    const others = listed.filter((s) => !s.current);
    expect(listed).toHaveLength(3);
    const [phoneRow] = await db.query<{ id: string }>(
      `select s.id from console_sessions s join users u on u.id = s.user_id
        where u.email = $1 and s.ended_at is null order by s.created_at desc limit 1`,
      [email],
    );
    expect(others.map((s) => s.id)).toContain(phoneRow!.id);
    const phoneId = phoneRow!.id;
    const done = await call(b, laptop, `/api/console/account/sessions/${phoneId}/sign-out`, {
      method: "POST",
      csrf: await csrfOf(laptop),
    });
    const since = Date.now();
    expect(done.status).toBe(200);
    expect(await refusedAfter(a, phone, since)).toBeLessThan(1_000);
    expect((await account(a, laptop)).status).toBe(200);

    const other = await signIn(b);
    const everywhere = await call(a, laptop, "/api/console/sign-out-everywhere", {
      method: "POST",
      csrf: await csrfOf(laptop),
    });
    const at = Date.now();
    expect(everywhere.body).toEqual({ signedOut: true });
    expect(await refusedAfter(b, other, at)).toBeLessThan(1_000);
    expect(await refusedAfter(b, laptop, at)).toBeLessThan(1_000);
  });
});
