// The shared fixture of the account tests (account.test.ts, two-factor.test.ts, org-two-factor.test.ts): an API on
// one driver with acme and globex, fresh signed-in accounts, console routes called as the console's pages call them,
// and two-factor turned on through the routes.
import { Secret, TOTP } from "otpauth";
import { afterAll, afterEach, beforeAll, expect, vi } from "vitest";
import * as confirmRoute from "@/app/api/console/account/two-factor/confirm/route";
import * as setupRoute from "@/app/api/console/account/two-factor/setup/route";
import * as keysRoute from "@/app/api/console/orgs/[org]/keys/route";
import { addMembership, createUser, type User } from "@/db/users";
import { csrfTokenFor } from "@/lib/console/http";
import { TOTP_PARAMS } from "@/lib/console/two-factor-secret";
import { setupApi, type ApiFixture } from "../support/api";
import { authRequest, consoleUserOf, cookieHeader, csrf, storeCookies } from "../support/console";

export const PASSWORD = "correct horse battery";
export const NEW_PASSWORD = "another good password";
export const BASE = "http://api.test";

export type Handler = (request: Request, context: { params: Promise<never> }) => Promise<Response>;
export type Org = "acme" | "globex";

// A code of a base32 secret at a time (ms).
export const codeAt = (secret: string, timestamp: number) =>
  new TOTP({ secret: Secret.fromBase32(secret), ...TOTP_PARAMS }).generate({ timestamp });

// Registers the fixture's set-up and tear-down in the calling describe block and returns its helpers; `fx` is set
// once the block's tests run.
export function accountsFixture(driver: "pglite" | "pg") {
  let fx!: ApiFixture;
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

  const me = async (cookie: string) => consoleUserOf(new Headers({ cookie }));
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

  return {
    get fx() {
      return fx;
    },
    orgIds,
    account,
    signInWith,
    call,
    me,
    keys,
    audit,
    enableTwoFactor,
  };
}
