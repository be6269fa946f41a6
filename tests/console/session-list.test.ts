// The account's console sessions (issue 37, row 1): the account page's list (started, last seen, address, browser,
// this session marked) and "Sign out" of one session, checked on the server (an account ends only its own
// sessions); last seen written at most once a minute; a renewal extends the session; ended and expired rows pruned
// at sign-in. Real Auth.js flows and route handlers, on both drivers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as accountRoute from "@/app/api/console/account/route";
import * as signOutOneRoute from "@/app/api/console/account/sessions/[id]/sign-out/route";
import * as keysRoute from "@/app/api/console/orgs/[org]/keys/route";
import { ENDED_SESSION_KEEP_DAYS, LAST_SEEN_EVERY_SECONDS } from "@/db/console-sessions";
import { addMembership, createUser } from "@/db/users";
import { csrfTokenFor } from "@/lib/console/http";
import type { AccountSession } from "@/lib/console/session-list";
import { setupApi, type ApiFixture } from "../support/api";
import { authRequest, signIn } from "../support/console";

const PASSWORD = "correct horse battery";
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const SAFARI_IOS =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";

describe.each(["pglite", "pg"] as const)("the account's sessions on %s", (driver) => {
  let fx: ApiFixture;
  let acmeId: string;
  let n = 0;

  // A fresh acme owner.
  async function owner() {
    n += 1;
    const user = await createUser(fx.db, {
      email: `l${n}@session-list.test`,
      name: `L ${n}`,
      password: PASSWORD,
    });
    await addMembership(fx.db, { userId: user.id, orgId: acmeId, role: "owner" });
    return user;
  }
  // A sign-in from an address and a browser; the session's cookie and id.
  async function login(email: string, address: string, userAgent: string) {
    const { cookie, response } = await signIn(email, PASSWORD, {
      headers: { "x-forwarded-for": address, "user-agent": userAgent },
    });
    expect(response.headers.get("location")).toBe("http://api.test/console");
    const [row] = await fx.db.query<{ id: string }>(
      `select s.id from console_sessions s join users u on u.id = s.user_id
        where u.email = $1 order by s.created_at desc, s.id limit 1`,
      [email],
    );
    return { cookie, id: row!.id };
  }
  // A console route called as the console's pages do (same origin, the session's CSRF token unless `csrf` is false).
  function headersFor(cookie: string, userId: string, opts: { csrf?: boolean; address?: string } = {}) {
    const headers = new Headers({ cookie, origin: "http://api.test", "content-type": "application/json" });
    if (opts.address) headers.set("x-forwarded-for", opts.address);
    if (opts.csrf !== false) headers.set("x-csrf-token", csrfTokenFor(fx.config, userId, headers));
    return headers;
  }
  async function listed(cookie: string, userId: string): Promise<AccountSession[]> {
    const res = await accountRoute.GET(
      new Request("http://api.test/api/console/account", { headers: headersFor(cookie, userId) }),
      { params: Promise.resolve({}) },
    );
    expect(res.status).toBe(200);
    return ((await res.json()) as { sessions: AccountSession[] }).sessions;
  }
  async function signOutOne(cookie: string, userId: string, id: string, csrf = true) {
    const res = await signOutOneRoute.POST(
      new Request(`http://api.test/api/console/account/sessions/${id}/sign-out`, {
        method: "POST",
        headers: headersFor(cookie, userId, { csrf }),
        body: "{}",
      }),
      { params: Promise.resolve({ id }) },
    );
    return { status: res.status, body: (await res.json()) as { code?: string; signedOut?: boolean } };
  }
  async function keys(cookie: string, userId: string, address?: string): Promise<number> {
    const request = new Request("http://api.test/api/console/orgs/acme/keys", {
      headers: headersFor(cookie, userId, { address }),
    });
    return (await keysRoute.GET(request, { params: Promise.resolve({ org: "acme" }) })).status;
  }
  const row = async (id: string) =>
    (
      await fx.db.query<{ ip: string; seen: number; expiresIn: number; ended: boolean }>(
        `select ip_address as ip, extract(epoch from now() - last_seen_at)::float8 as seen,
                extract(epoch from expires_at - now())::float8 as "expiresIn", ended_at is not null as ended
           from console_sessions where id = $1`,
        [id],
      )
    )[0];

  beforeAll(async () => {
    fx = await setupApi(driver, { AUTH_SECRET: "l".repeat(40) });
    const [org] = await fx.db.query<{ id: string }>("select id from organizations where slug = 'acme'");
    acmeId = org!.id;
  });
  afterAll(async () => {
    await fx?.close();
  });

  it("lists the account's live sessions: browser, address, started, last seen; this one marked; no one else's", async () => {
    const user = await owner();
    const laptop = await login(user.email, "10.37.1.1", FIREFOX);
    const phone = await login(user.email, "10.37.1.2", SAFARI_IOS);
    const stranger = await owner();
    await login(stranger.email, "10.37.1.3", FIREFOX);
    const sessions = await listed(laptop.cookie, user.id);
    expect(sessions.map((s) => [s.id, s.browser, s.address, s.current]).sort()).toEqual(
      [
        [laptop.id, "Firefox on Linux", "10.37.1.1", true],
        [phone.id, "Safari on iOS", "10.37.1.2", false],
      ].sort(),
    );
    for (const s of sessions) {
      expect(Date.parse(s.startedAt)).toBeGreaterThan(Date.now() - 60_000);
      expect(Date.parse(s.lastSeenAt)).toBeGreaterThanOrEqual(Date.parse(s.startedAt));
    }
    expect((await listed(phone.cookie, user.id)).find((s) => s.current)?.id).toBe(phone.id);
  });

  it("signs out one session: refused at once, the others go on; audited; CSRF-checked", async () => {
    const user = await owner();
    const laptop = await login(user.email, "10.37.2.1", FIREFOX);
    const phone = await login(user.email, "10.37.2.2", SAFARI_IOS);
    expect((await signOutOne(laptop.cookie, user.id, phone.id, false)).status).toBe(403);
    expect(await keys(phone.cookie, user.id)).toBe(200);

    const done = await signOutOne(laptop.cookie, user.id, phone.id);
    expect(done).toEqual({ status: 200, body: { signedOut: true, id: phone.id } });
    expect(await keys(phone.cookie, user.id)).toBe(401);
    expect(
      (await authRequest("/api/auth/session", { cookie: phone.cookie }).then((r) => r.json())) ?? null,
    ).toBe(null);
    expect(await keys(laptop.cookie, user.id)).toBe(200);
    expect((await listed(laptop.cookie, user.id)).map((s) => s.id)).toEqual([laptop.id]);
    // Already ended: gone.
    expect((await signOutOne(laptop.cookie, user.id, phone.id)).body.code).toBe("CONSOLE_NOT_FOUND");
    const audit = await fx.db.query<{
      action: string;
      actorId: string;
      orgId: string | null;
      details: unknown;
    }>(
      `select action, actor_id as "actorId", org_id as "orgId", details from audit_events
        where target_id = $1 and action = 'account.session_signed_out'`,
      [user.id],
    );
    expect(audit).toEqual([
      {
        action: "account.session_signed_out",
        actorId: user.id,
        orgId: null,
        details: { sessionId: phone.id, browser: "Safari on iOS", address: "10.37.2.2", current: false },
      },
    ]);
  });

  it("an account cannot end another account's session (404, it goes on), nor one with a malformed id", async () => {
    const user = await owner();
    const mine = await login(user.email, "10.37.3.1", FIREFOX);
    const other = await owner();
    const theirs = await login(other.email, "10.37.3.2", FIREFOX);
    const refused = await signOutOne(mine.cookie, user.id, theirs.id);
    expect([refused.status, refused.body.code]).toEqual([404, "CONSOLE_NOT_FOUND"]);
    expect(await keys(theirs.cookie, other.id)).toBe(200);
    for (const id of ["ses_short", "x".repeat(300), "'; drop table console_sessions; --"])
      expect((await signOutOne(mine.cookie, user.id, encodeURIComponent(id))).status).toBe(404);
    // Without a session: 401.
    const anonymous = await signOutOneRoute.POST(
      new Request(`http://api.test/api/console/account/sessions/${theirs.id}/sign-out`, {
        method: "POST",
        headers: { origin: "http://api.test", "content-type": "application/json" },
        body: "{}",
      }),
      { params: Promise.resolve({ id: theirs.id }) },
    );
    expect(anonymous.status).toBe(401);
    expect(await keys(theirs.cookie, other.id)).toBe(200);
  });

  it("last seen (and its address) is written at most once a minute, not on every request", async () => {
    const user = await owner();
    const s = await login(user.email, "10.37.4.1", FIREFOX);
    expect(await keys(s.cookie, user.id, "10.37.4.2")).toBe(200);
    expect((await row(s.id))!.ip).toBe("10.37.4.1"); // seen within the minute: not written again
    await fx.db.query(
      `update console_sessions set last_seen_at = now() - ($2::int + 5) * interval '1 second' where id = $1`,
      [s.id, LAST_SEEN_EVERY_SECONDS],
    );
    expect(await keys(s.cookie, user.id, "10.37.4.3")).toBe(200);
    const seen = (await row(s.id))!;
    expect(seen.ip).toBe("10.37.4.3");
    expect(seen.seen).toBeLessThan(5);
    expect(await keys(s.cookie, user.id, "10.37.4.4")).toBe(200);
    expect((await row(s.id))!.ip).toBe("10.37.4.3");
  });

  it("a renewal (GET /api/auth/session) extends the session; an expired session is refused and not listed", async () => {
    const user = await owner();
    const s = await login(user.email, "10.37.5.1", FIREFOX);
    const other = await login(user.email, "10.37.5.2", FIREFOX);
    await fx.db.query(`update console_sessions set expires_at = now() + interval '1 minute' where id = $1`, [
      s.id,
    ]);
    const renewed = await authRequest("/api/auth/session", { cookie: s.cookie });
    expect(((await renewed.json()) as { user?: { id: string } }).user?.id).toBe(user.id);
    expect((await row(s.id))!.expiresIn).toBeGreaterThan(7 * 3600);
    await fx.db.query(`update console_sessions set expires_at = now() - interval '1 second' where id = $1`, [
      s.id,
    ]);
    expect(await keys(s.cookie, user.id)).toBe(401);
    expect((await listed(other.cookie, user.id)).map((x) => x.id)).toEqual([other.id]);
  });

  it("a sign-in prunes rows ended or expired more than the keeping time ago, and keeps the recent ones", async () => {
    const user = await owner();
    const insert = (id: string, ended: string | null, expires: string) =>
      fx.db.query(
        `insert into console_sessions (id, user_id, created_at, last_seen_at, expires_at, ip_address, ended_at)
         values ($1, $2, now() - interval '30 days', now() - interval '30 days', now() + $3::interval, '10.0.0.1',
                 now() + $4::interval)`,
        [id, user.id, expires, ended],
      );
    const keep = `${ENDED_SESSION_KEEP_DAYS} days`;
    await insert("ses_oldEnded00000000", `-${keep} -1 hour`, "-1 day");
    await insert("ses_oldExpired000000", null, `-${keep} -1 hour`);
    await insert("ses_recentEnded00000", "-1 day", "+1 day");
    await login(user.email, "10.37.6.1", FIREFOX);
    const left = await fx.db.query<{ id: string }>(
      "select id from console_sessions where user_id = $1 and id = any($2::text[])",
      [user.id, ["ses_oldEnded00000000", "ses_oldExpired000000", "ses_recentEnded00000"]],
    );
    expect(left.map((r) => r.id)).toEqual(["ses_recentEnded00000"]);
  });
});
