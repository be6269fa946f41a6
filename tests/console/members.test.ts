// The console's members (issue 26), end to end through the /api/console route handlers with real sign-ins, on PGlite
// and on the Postgres server: who may list, invite, change a role, remove, revoke and leave, in their organization
// and in another; CSRF; the last owner kept; a link used once (also by two at the same moment) and not after its
// expiry (time injected); removal ending sessions; the audit log; mail through an SMTP transport when configured.
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as acceptRoute from "@/app/api/console/invitations/accept/route";
import * as registerRoute from "@/app/api/console/invitations/register/route";
import * as membersRoute from "@/app/api/console/orgs/[org]/members/route";
import * as inviteRoute from "@/app/api/console/orgs/[org]/members/invitations/route";
import * as revokeRoute from "@/app/api/console/orgs/[org]/members/invitations/[id]/revoke/route";
import * as roleRoute from "@/app/api/console/orgs/[org]/members/[id]/role/route";
import * as removeRoute from "@/app/api/console/orgs/[org]/members/[id]/remove/route";
import * as leaveRoute from "@/app/api/console/orgs/[org]/members/leave/route";
import { ID_PREFIX, newId } from "@/db/schema";
import { addMembership, createUser } from "@/db/users";
import { csrfTokenFor } from "@/lib/console/http";
import { invitationMail, mailInvitation, smtpSender, type Mail } from "@/lib/console/mail";
import { acceptInvitation, registerWithInvitation, viewInvitation } from "@/lib/console/invitation-accept";
import { INVITATION_TTL_MS, inviteMember } from "@/lib/console/invitations";
import { grantableRoles, mayManage } from "@/lib/console/members";
import { loadConfig } from "@/lib/config";
import { setupApi, type ApiFixture } from "../support/api";
import { signIn } from "../support/console";

const PASSWORD = "correct horse battery";
const ORIGIN = "http://api.test";

interface Session {
  id: string;
  email: string;
  cookie: string;
  csrf: string;
}

type Action = "list" | "invite" | "revoke" | "role" | "remove" | "leave" | "accept" | "register";
const ORG_ACTIONS: Action[] = ["list", "invite", "revoke", "role", "remove", "leave"];
const CHANGES: Action[] = ["invite", "revoke", "role", "remove", "leave", "accept"];

interface Res {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

let seq = 0;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++seq}`;

describe.each(["pglite", "pg"] as const)("console members on %s", (driver) => {
  let fx: ApiFixture;
  let owner: Session; // owner of acme (its only owner unless a test adds one)
  let admin: Session; // admin of acme
  let member: Session; // member of acme
  let otherAdmin: Session; // admin of globex only
  let staff: Session; // the product team, member of no organization
  let acmeId: string;

  async function orgId(slug: string): Promise<string> {
    const [org] = await fx.db.query<{ id: string }>("select id from organizations where slug = $1", [slug]);
    return org!.id;
  }

  // A new organization of its own for a test that changes its owners.
  async function newOrg(): Promise<string> {
    const slug = unique("org").toLowerCase();
    await fx.db.query("insert into organizations (id, slug, name) values ($1, $2, $3)", [
      newId(ID_PREFIX.organization),
      slug,
      `Org ${slug}`,
    ]);
    return slug;
  }

  async function signedIn(email: string): Promise<Session> {
    const { cookie, response } = await signIn(email, PASSWORD);
    expect(response.status).toBe(302);
    expect(cookie).toMatch(/authjs\.session-token=/);
    const [u] = await fx.db.query<{ id: string }>("select id from users where email = $1", [email]);
    return { id: u!.id, email, cookie, csrf: csrfTokenFor(fx.config, u!.id, new Headers({ cookie })) };
  }

  // A new signed-in account, a member of `org` with `role` (none: of no organization).
  async function person(
    org: string | null,
    role: "owner" | "admin" | "member" = "member",
    opts: { isStaff?: boolean } = {},
  ): Promise<Session> {
    const email = `${unique(role)}@${driver}.test`;
    const user = await createUser(fx.db, { email, name: email, password: PASSWORD, isStaff: opts.isStaff });
    if (org) await addMembership(fx.db, { userId: user.id, orgId: await orgId(org), role });
    return signedIn(email);
  }

  // Calls a route handler in-process as the page's fetch would: same Origin, the CSRF token, JSON.
  async function act(
    action: Action,
    opts: {
      as?: Session | null;
      org?: string;
      id?: string;
      body?: unknown;
      csrf?: string | null;
      origin?: string | null;
    } = {},
  ): Promise<Res> {
    const org = opts.org ?? "acme";
    const id = opts.id ?? "usr_nobody000000000";
    const as = opts.as === undefined ? owner : opts.as;
    const base = `/api/console/orgs/${org}/members`;
    const path = {
      list: base,
      invite: `${base}/invitations`,
      revoke: `${base}/invitations/${id}/revoke`,
      role: `${base}/${id}/role`,
      remove: `${base}/${id}/remove`,
      leave: `${base}/leave`,
      accept: "/api/console/invitations/accept",
      register: "/api/console/invitations/register",
    }[action];
    const method = action === "list" ? "GET" : "POST";
    const headers = new Headers();
    if (as) headers.set("cookie", as.cookie);
    if (method === "POST") {
      const origin = opts.origin === undefined ? ORIGIN : opts.origin;
      const csrf = opts.csrf === undefined ? as?.csrf : opts.csrf;
      if (origin) headers.set("origin", origin);
      if (csrf) headers.set("x-csrf-token", csrf);
      headers.set("content-type", "application/json");
    }
    const request = new Request(`${ORIGIN}${path}`, {
      method,
      headers,
      body: method === "POST" ? JSON.stringify(opts.body ?? {}) : undefined,
    });
    const params = Promise.resolve({ org, id });
    const handler = {
      list: membersRoute.GET,
      invite: inviteRoute.POST,
      revoke: revokeRoute.POST,
      role: roleRoute.POST,
      remove: removeRoute.POST,
      leave: leaveRoute.POST,
      accept: acceptRoute.POST,
      register: registerRoute.POST,
    }[action] as (r: Request, c: { params: Promise<Record<string, string>> }) => Promise<Response>;
    const res = await handler(request, { params });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  }

  function expectError(res: Res, status: number, code: string, message?: RegExp) {
    expect(res.body).toEqual({
      statusCode: status,
      error: expect.any(String),
      message: expect.any(String),
      code,
    });
    expect(res.status).toBe(status);
    if (message) expect(res.body.message).toMatch(message);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect([...res.headers.keys()].filter((k) => k.startsWith("access-control-"))).toEqual([]);
  }

  // What a refused request must not have changed.
  async function snapshot() {
    return {
      memberships: await fx.db.query(
        "select org_id, user_id, role from memberships order by org_id, user_id",
      ),
      invitations: await fx.db.query("select id, accepted_at, revoked_at from invitations order by id"),
      users: (await fx.db.query<{ n: number }>("select count(*)::int as n from users"))[0]!.n,
      audit: (await fx.db.query<{ n: number }>("select count(*)::int as n from audit_events"))[0]!.n,
    };
  }

  async function auditOf(action: string, targetId: string) {
    return fx.db.query<{ actor_id: string; org_id: string; details: Record<string, unknown> | string }>(
      "select actor_id, org_id, details from audit_events where action = $1 and target_id = $2",
      [action, targetId],
    );
  }

  // Invites through the route as `as` (owner by default); the link's secret and the invitation.
  async function invite(email: string, role = "member", as: Session = owner, org = "acme") {
    const res = await act("invite", { as, org, body: { email, role } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const secret = new URL(res.body.url).pathname.split("/").pop()!;
    return { secret, invitation: res.body.invitation, url: res.body.url as string };
  }

  async function roleIn(org: string, userId: string): Promise<string | null> {
    const [row] = await fx.db.query<{ role: string }>(
      "select role from memberships where org_id = $1 and user_id = $2",
      [await orgId(org), userId],
    );
    return row?.role ?? null;
  }

  beforeAll(async () => {
    fx = await setupApi(driver, { AUTH_SECRET: "m".repeat(40) });
    acmeId = await orgId("acme");
    owner = await person("acme", "owner");
    admin = await person("acme", "admin");
    member = await person("acme", "member");
    otherAdmin = await person("globex", "admin");
    staff = await person(null, "member", { isStaff: true });
  });
  afterAll(async () => {
    await fx?.close();
  });

  it("the rules: owners grant any role and manage everyone; admins members and admins; members nothing", () => {
    expect(grantableRoles("owner")).toEqual(["member", "admin", "owner"]);
    expect(grantableRoles("admin")).toEqual(["member", "admin"]);
    expect(grantableRoles("member")).toEqual([]);
    expect(mayManage("owner", "owner")).toBe(true);
    expect(mayManage("admin", "owner")).toBe(false);
    expect(mayManage("admin", "admin")).toBe(true);
    expect(mayManage("member", "member")).toBe(false);
  });

  it.each(ORG_ACTIONS)("%s without a session: 401, nothing changed", async (action) => {
    const before = await snapshot();
    expectError(await act(action, { as: null, body: { email: "x@y.test" } }), 401, "CONSOLE_UNAUTHENTICATED");
    expect(await snapshot()).toEqual(before);
  });

  it("accepting while signed in needs a session (401); registering needs none but the console's Origin", async () => {
    const { secret } = await invite(`${unique("anon")}@x.test`);
    const before = await snapshot();
    expectError(await act("accept", { as: null, body: { token: secret } }), 401, "CONSOLE_UNAUTHENTICATED");
    const body = { token: secret, name: "N", password: PASSWORD };
    expectError(await act("register", { as: null, origin: null, body }), 403, "CONSOLE_CSRF");
    expectError(await act("register", { as: null, origin: "http://evil.test", body }), 403, "CONSOLE_CSRF");
    expect(await snapshot()).toEqual(before);
  });

  it.each(CHANGES)(
    "%s without the CSRF token, with a wrong one or another user's, or from a foreign Origin: 403",
    async (action) => {
      const target = await person("acme", "member");
      const { invitation, secret } = await invite(`${unique("csrf")}@x.test`);
      const id = action === "revoke" ? invitation.id : target.id;
      const body = action === "role" ? { role: "admin" } : { email: `${unique("c")}@x.test`, token: secret };
      const before = await snapshot();
      const as = action === "accept" ? target : owner;
      expectError(await act(action, { as, id, body, csrf: null }), 403, "CONSOLE_CSRF");
      expectError(
        await act(action, { as, id, body, csrf: `${as.csrf.slice(0, -2)}xx` }),
        403,
        "CONSOLE_CSRF",
      );
      expectError(await act(action, { as, id, body, csrf: member.csrf }), 403, "CONSOLE_CSRF");
      expectError(await act(action, { as, id, body, origin: "http://evil.test" }), 403, "CONSOLE_CSRF");
      expectError(await act(action, { as, id, body, origin: null }), 403, "CONSOLE_CSRF");
      expect(await snapshot()).toEqual(before);
    },
  );

  it("a member reads the members (no invitations) and may change nothing but leave: 403", async () => {
    const { invitation } = await invite(`${unique("seen")}@x.test`);
    const list = await act("list", { as: member });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({
      org: { slug: "acme" },
      role: "member",
      userId: member.id,
      canManage: false,
      grantableRoles: [],
      invitations: [],
    });
    const emails = list.body.members.map((m: { email: string }) => m.email);
    expect(emails).toEqual(expect.arrayContaining([owner.email, admin.email, member.email]));
    expect(list.body.members[0].role).toBe("owner");
    expect(JSON.stringify(list.body)).not.toMatch(/token|hash|password/i);

    const before = await snapshot();
    const refusals: Array<[Action, string, unknown]> = [
      ["invite", "", { email: `${unique("m")}@x.test`, role: "member" }],
      ["revoke", invitation.id, {}],
      ["role", admin.id, { role: "member" }],
      ["role", member.id, { role: "admin" }],
      ["remove", admin.id, {}],
    ];
    for (const [action, id, body] of refusals)
      expectError(await act(action, { as: member, id, body }), 403, "CONSOLE_FORBIDDEN");
    expect(await snapshot()).toEqual(before);
  });

  it.each(ORG_ACTIONS)(
    "%s by another organization's admin or the product team, with acme's slug and ids: 404, nothing changed",
    async (action) => {
      const { invitation } = await invite(`${unique("foreign")}@x.test`);
      const id = action === "revoke" ? invitation.id : member.id;
      const before = await snapshot();
      for (const as of [otherAdmin, staff]) {
        const body =
          action === "role" ? { role: "owner" } : { email: `${unique("f")}@x.test`, role: "owner" };
        expectError(await act(action, { as, id, body }), 404, "CONSOLE_NOT_FOUND");
      }
      expect(await snapshot()).toEqual(before);
      // The same answer as an organization that does not exist.
      expect((await act("list", { org: "nope" })).body).toEqual((await act("list", { as: otherAdmin })).body);
    },
  );

  it("ids of another organization under one's own: 404", async () => {
    const globexInvite = await invite(`${unique("g")}@x.test`, "member", otherAdmin, "globex");
    const before = await snapshot();
    expectError(await act("revoke", { id: globexInvite.invitation.id }), 404, "CONSOLE_NOT_FOUND");
    expectError(await act("role", { id: otherAdmin.id, body: { role: "member" } }), 404, "CONSOLE_NOT_FOUND");
    expectError(await act("remove", { id: otherAdmin.id }), 404, "CONSOLE_NOT_FOUND");
    expect(await snapshot()).toEqual(before);
  });

  it("an admin invites members and admins, changes and removes them, but never makes, changes or removes an owner", async () => {
    const before = await snapshot();
    expectError(
      await act("invite", { as: admin, body: { email: `${unique("o")}@x.test`, role: "owner" } }),
      403,
      "CONSOLE_FORBIDDEN",
      /Only owners invite owners/,
    );
    expectError(
      await act("role", { as: admin, id: owner.id, body: { role: "member" } }),
      403,
      "CONSOLE_FORBIDDEN",
    );
    expectError(
      await act("role", { as: admin, id: member.id, body: { role: "owner" } }),
      403,
      "CONSOLE_FORBIDDEN",
    );
    expectError(await act("remove", { as: admin, id: owner.id }), 403, "CONSOLE_FORBIDDEN");
    expect(await snapshot()).toEqual(before);

    const { invitation } = await invite(`${unique("adm")}@x.test`, "admin", admin);
    expect(invitation).toMatchObject({ role: "admin", status: "pending", invitedBy: admin.email });
    const target = await person("acme", "member");
    const promoted = await act("role", { as: admin, id: target.id, body: { role: "admin" } });
    expect(promoted.status).toBe(200);
    expect(promoted.body).toMatchObject({ userId: target.id, role: "admin" });
    expect(await roleIn("acme", target.id)).toBe("admin");
    const removed = await act("remove", { as: admin, id: target.id });
    expect(removed.status).toBe(200);
    expect(await roleIn("acme", target.id)).toBeNull();
  });

  it("the last owner cannot be demoted, removed or leave; with a second owner they can", async () => {
    const slug = await newOrg();
    const first = await person(slug, "owner");
    const other = await person(slug, "member");
    const before = await snapshot();
    expectError(
      await act("role", { as: first, org: slug, id: first.id, body: { role: "admin" } }),
      409,
      "CONSOLE_LAST_OWNER",
      /last owner/,
    );
    expectError(await act("leave", { as: first, org: slug }), 409, "CONSOLE_LAST_OWNER", /last owner/);
    expectError(await act("remove", { as: first, org: slug, id: first.id }), 400, "CONSOLE_INVALID", /Leave/);
    expect(await snapshot()).toEqual(before);

    // Only an owner makes an owner; then the first may step down, and the new owner is the last one.
    const made = await act("role", { as: first, org: slug, id: other.id, body: { role: "owner" } });
    expect(made.status).toBe(200);
    const down = await act("role", { as: first, org: slug, id: first.id, body: { role: "member" } });
    expect(down.status).toBe(200);
    expect(await roleIn(slug, first.id)).toBe("member");
    expectError(await act("leave", { as: other, org: slug }), 409, "CONSOLE_LAST_OWNER");
    expectError(
      await act("role", { as: other, org: slug, id: other.id, body: { role: "admin" } }),
      409,
      "CONSOLE_LAST_OWNER",
    );
    // The demoted account's sessions ended (a weaker role): it signs in again, then leaves.
    expectError(await act("list", { as: first, org: slug }), 401, "CONSOLE_UNAUTHENTICATED");
    const again = await signedIn(first.email);
    const left = await act("leave", { as: again, org: slug });
    expect(left.status).toBe(200);
    expect(await roleIn(slug, first.id)).toBeNull();
    expect(await auditOf("member.left", first.id)).toHaveLength(1);
  });

  it("two owners removing each other at the same moment: one wins, the organization keeps an owner", async () => {
    const slug = await newOrg();
    const a = await person(slug, "owner");
    const b = await person(slug, "owner");
    const both = () =>
      Promise.all([
        act("remove", { as: a, org: slug, id: b.id }),
        act("remove", { as: b, org: slug, id: a.id }),
      ]);
    let results: Res[];
    if (driver === "pg") {
      // Both removals are held after their checks (at ending the sessions: the accounts' rows are locked here) until
      // both have started, so that each could have seen two owners; the organization's lock makes the second wait
      // for the first and then find itself removed.
      let pending!: Promise<Res[]>;
      await fx.db.transaction(async (tx) => {
        await tx.query("select id from users where id in ($1, $2) for update", [a.id, b.id]);
        pending = both();
        for (let i = 0; i < 500; i++) {
          const [w] = await fx.db.query<{ n: number }>(
            `select count(*)::int as n from pg_stat_activity
              where datname = current_database() and wait_event_type = 'Lock'`,
          );
          if (w!.n >= 2) break;
          await new Promise((r) => setTimeout(r, 10));
        }
      });
      results = await pending;
    } else {
      results = await both();
    }
    // The loser finds itself removed: 404 in its transaction (or 401 when its session was read after the other's).
    const statuses = results.map((r) => r.status).sort();
    expect(statuses[0]).toBe(200);
    expect(driver === "pg" ? [404] : [401, 404]).toContain(statuses[1]);
    const [owners] = await fx.db.query<{ n: number }>(
      "select count(*)::int as n from memberships where org_id = $1 and role = 'owner'",
      [await orgId(slug)],
    );
    expect(owners!.n).toBe(1);
  });

  it("removal ends the removed member's sessions at once, not the remover's; audited with who and what", async () => {
    const target = await person("acme", "admin");
    expect((await act("list", { as: target })).status).toBe(200);
    const res = await act("remove", { id: target.id });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ userId: target.id, email: target.email, role: "admin" });
    expectError(await act("list", { as: target }), 401, "CONSOLE_UNAUTHENTICATED");
    expect((await act("list")).status).toBe(200);
    const [event] = await auditOf("member.removed", target.id);
    expect(event).toMatchObject({ actor_id: owner.id, org_id: acmeId });
    expect(typeof event!.details === "string" ? JSON.parse(event!.details) : event!.details).toEqual({
      email: target.email,
      role: "admin",
    });
  });

  it("an owner changes roles both ways, audited; the same role again changes nothing", async () => {
    const target = await person("acme", "member");
    const up = await act("role", { id: target.id, body: { role: "owner" } });
    expect(up.status).toBe(200);
    expect(await roleIn("acme", target.id)).toBe("owner");
    const same = await act("role", { id: target.id, body: { role: "owner" } });
    expect(same.status).toBe(200);
    const down = await act("role", { id: target.id, body: { role: "member" } });
    expect(down.status).toBe(200);
    const events = await auditOf("member.role_changed", target.id);
    expect(events.map((e) => (typeof e.details === "string" ? JSON.parse(e.details) : e.details))).toEqual(
      expect.arrayContaining([
        { email: target.email, from: "member", to: "owner" },
        { email: target.email, from: "owner", to: "member" },
      ]),
    );
    expect(events).toHaveLength(2);
    expectError(
      await act("role", { id: target.id, body: { role: "boss" } }),
      400,
      "CONSOLE_INVALID",
      /^role: /,
    );
  });

  it("invitations: validated, one open per address, none for a member; listed for managers; revoked at once", async () => {
    expectError(
      await act("invite", { body: { email: "nope", role: "member" } }),
      400,
      "CONSOLE_INVALID",
      /^email: /,
    );
    expectError(
      await act("invite", { body: { email: "a@b.test", role: "god" } }),
      400,
      "CONSOLE_INVALID",
      /^role: /,
    );
    expectError(
      await act("invite", { body: { email: member.email } }),
      409,
      "CONSOLE_MEMBER_CONFLICT",
      /already a member/,
    );
    const email = `${unique("Inv")}@X.test`;
    const { invitation, secret, url } = await invite(email, "admin");
    expect(url).toBe(`${ORIGIN}/console/invitations/${secret}`);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(invitation).toMatchObject({ email: email.toLowerCase(), role: "admin", status: "pending" });
    expect(Date.parse(invitation.expiresAt) - Date.parse(invitation.createdAt)).toBe(INVITATION_TTL_MS);
    // Only the SHA-256 is stored.
    const [row] = await fx.db.query<{ token_hash: string }>(
      "select token_hash from invitations where id = $1",
      [invitation.id],
    );
    expect(row!.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(
      JSON.stringify(await fx.db.query("select * from invitations where id = $1", [invitation.id])),
    ).not.toContain(secret);
    expectError(await act("invite", { body: { email } }), 409, "CONSOLE_MEMBER_CONFLICT", /open invitation/);

    const listed = await act("list", { as: admin });
    expect(listed.body.canManage).toBe(true);
    expect(listed.body.grantableRoles).toEqual(["member", "admin"]);
    expect(listed.body.invitations.map((i: { id: string }) => i.id)).toContain(invitation.id);
    expect(JSON.stringify(listed.body)).not.toContain(secret);

    const revoked = await act("revoke", { as: admin, id: invitation.id });
    expect(revoked.status).toBe(200);
    expect(revoked.body.status).toBe("revoked");
    expect((await act("revoke", { as: admin, id: invitation.id })).status).toBe(200);
    expect(await auditOf("member.invitation_revoked", invitation.id)).toHaveLength(1);
    expect((await auditOf("member.invited", invitation.id))[0]).toMatchObject({
      actor_id: owner.id,
      org_id: acmeId,
    });
    expect((await act("list")).body.invitations.map((i: { id: string }) => i.id)).not.toContain(
      invitation.id,
    );
    const after = await act("register", {
      as: null,
      body: { token: secret, name: "Late", password: PASSWORD },
    });
    expectError(after, 410, "CONSOLE_INVITATION_GONE", /revoked/);
    // A new link for the same address once the old one is revoked.
    await invite(email);
  });

  it("a new account from a link: made with the invited email and role, signs in, sees the organization; the link is single use", async () => {
    const email = `${unique("new")}@x.test`;
    const { secret, invitation } = await invite(email, "admin");
    const view = await viewInvitation(fx.db, secret);
    expect(view).toEqual({
      org: { slug: "acme", name: expect.any(String) },
      email,
      role: "admin",
      expiresAt: invitation.expiresAt,
      status: "pending",
      accountExists: false,
    });
    expectError(
      await act("register", { as: null, body: { token: secret, name: "New", password: "short" } }),
      400,
      "CONSOLE_INVALID",
      /^password: .*at least 8/,
    );
    const made = await act("register", {
      as: null,
      body: { token: secret, name: " New Person ", password: PASSWORD },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body).toEqual({ org: "acme", role: "admin", email });
    const again = await act("register", { as: null, body: { token: secret, name: "X", password: PASSWORD } });
    expectError(again, 410, "CONSOLE_INVITATION_GONE", /used already/);
    expect((await viewInvitation(fx.db, secret))?.status).toBe("accepted");

    const joined = await signedIn(email);
    const list = await act("list", { as: joined });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ role: "admin", userId: joined.id });
    expect(list.body.members.find((m: { email: string }) => m.email === email)).toMatchObject({
      name: "New Person",
      role: "admin",
    });
    expectError(await act("accept", { as: joined, body: { token: secret } }), 410, "CONSOLE_INVITATION_GONE");
    const [event] = await auditOf("member.joined", joined.id);
    expect(event).toMatchObject({ actor_id: joined.id, org_id: acmeId });
  });

  it("an existing account accepts signed in with the invited email; anyone else is refused and the link stays usable", async () => {
    const invitee = await person("globex", "member");
    const { secret } = await invite(invitee.email, "member");
    expect((await viewInvitation(fx.db, secret))?.accountExists).toBe(true);
    const wrong = await act("accept", { as: admin, body: { token: secret } });
    expectError(wrong, 403, "CONSOLE_FORBIDDEN", new RegExp(`for ${invitee.email}`));
    expectError(
      await act("register", { as: null, body: { token: secret, name: "X", password: PASSWORD } }),
      409,
      "CONSOLE_MEMBER_CONFLICT",
      /account exists/,
    );
    expectError(
      await act("accept", { as: invitee, body: { token: "x".repeat(43) } }),
      410,
      "CONSOLE_INVITATION_GONE",
    );
    expectError(await act("accept", { as: invitee, body: { token: "short" } }), 400, "CONSOLE_INVALID");
    const ok = await act("accept", { as: invitee, body: { token: secret } });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ org: "acme", role: "member" });
    expect(await roleIn("acme", invitee.id)).toBe("member");
  });

  it("two accepts of one link at the same moment: exactly one joins", async () => {
    const email = `${unique("race")}@x.test`;
    const { secret } = await invite(email);
    const body = { token: secret, name: "Racer", password: PASSWORD };
    const results = await Promise.all([
      act("register", { as: null, body }),
      act("register", { as: null, body }),
      act("register", { as: null, body }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 410, 410]);
    const [n] = await fx.db.query<{ n: number }>("select count(*)::int as n from users where email = $1", [
      email,
    ]);
    expect(n!.n).toBe(1);

    const invitee = await person(null);
    const second = await invite(invitee.email);
    const accepts = await Promise.all([
      act("accept", { as: invitee, body: { token: second.secret } }),
      act("accept", { as: invitee, body: { token: second.secret } }),
    ]);
    expect(accepts.map((r) => r.status).sort()).toEqual([200, 410]);
  });

  it("a link works until its expiry, not at it (time injected)", async () => {
    const t0 = new Date("2030-01-01T00:00:00.000Z");
    const actor = { id: owner.id, email: owner.email };
    const early = await person(null);
    const late = await person(null);
    const a = await inviteMember(fx.db, fx.config, actor, "acme", { email: early.email }, ORIGIN, {
      now: t0,
      send: null,
    });
    const b = await inviteMember(fx.db, fx.config, actor, "acme", { email: late.email }, ORIGIN, {
      now: t0,
      send: null,
    });
    const c = await inviteMember(
      fx.db,
      fx.config,
      actor,
      "acme",
      { email: `${unique("exp")}@x.test` },
      ORIGIN,
      {
        now: t0,
        send: null,
      },
    );
    expect(a.invitation.expiresAt).toBe("2030-01-08T00:00:00.000Z");
    const secret = (url: string) => url.split("/").pop()!;
    const justBefore = new Date(t0.getTime() + INVITATION_TTL_MS - 1);
    const atExpiry = new Date(t0.getTime() + INVITATION_TTL_MS);
    expect((await viewInvitation(fx.db, secret(b.url), { now: justBefore }))?.status).toBe("pending");
    expect((await viewInvitation(fx.db, secret(b.url), { now: atExpiry }))?.status).toBe("expired");
    await expect(
      acceptInvitation(
        fx.db,
        { id: late.id, email: late.email },
        { token: secret(b.url) },
        { now: atExpiry },
      ),
    ).rejects.toMatchObject({ code: "CONSOLE_INVITATION_GONE", message: expect.stringMatching(/expired/) });
    await expect(
      registerWithInvitation(
        fx.db,
        { token: secret(c.url), name: "Late", password: PASSWORD },
        { now: atExpiry },
      ),
    ).rejects.toMatchObject({ code: "CONSOLE_INVITATION_GONE" });
    expect(
      await acceptInvitation(
        fx.db,
        { id: early.id, email: early.email },
        { token: secret(a.url) },
        {
          now: justBefore,
        },
      ),
    ).toEqual({ org: "acme", role: "member" });
    // An expired invitation no longer blocks a new one for the same address, and is listed as expired.
    const listed = await act("list");
    expect(listed.body.invitations.find((i: { id: string }) => i.id === b.invitation.id)?.status).toBe(
      "pending",
    );
    const renewed = await inviteMember(fx.db, fx.config, actor, "acme", { email: late.email }, ORIGIN, {
      now: atExpiry,
      send: null,
    });
    expect(renewed.invitation.status).toBe("pending");
  });

  it("without SMTP_URL nothing is mailed and nothing fails; with a transport the link is mailed; a failing one is not fatal", async () => {
    expect(smtpSender({ SMTP_URL: undefined })).toBeNull();
    expect(typeof smtpSender({ SMTP_URL: "smtp://mail.test:2525" })).toBe("function");
    const plain = await invite(`${unique("nomail")}@x.test`);
    expect(plain.url).toMatch(/\/console\/invitations\//);
    const res = await act("invite", { body: { email: `${unique("nm")}@x.test` } });
    expect(res.body.mailed).toBe(false);

    const sent: Mail[] = [];
    const send = vi.fn(async (m: Mail) => void sent.push(m));
    const email = `${unique("mail")}@x.test`;
    const made = await inviteMember(fx.db, fx.config, owner, "acme", { email, role: "admin" }, ORIGIN, {
      send,
    });
    expect(made.mailed).toBe(true);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ to: email, from: "Public Catalog API <no-reply@api.test>" });
    expect(sent[0]!.subject).toMatch(/Invitation to join/);
    expect(sent[0]!.text).toContain(made.url);
    expect(sent[0]!.text).toContain(" as admin ");

    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const failed = await inviteMember(
      fx.db,
      fx.config,
      owner,
      "acme",
      { email: `${unique("f")}@x.test` },
      ORIGIN,
      {
        send: async () => {
          throw new Error("connection refused");
        },
      },
    );
    expect(failed.mailed).toBe(false);
    expect(failed.invitation.status).toBe("pending");
    error.mockRestore();

    const config = loadConfig({
      PUBLIC_BASE_URL: "https://portal.example.com",
      SMTP_FROM: "Ops <ops@example.com>",
    });
    expect(invitationMail(config, { ...mailFields(), to: "a@b.test" }).from).toBe("Ops <ops@example.com>");
    expect(await mailInvitation(loadConfig({}), { ...mailFields(), to: "a@b.test" })).toBe(false);
  });
});

// A minimal SMTP server on loopback (no TLS, no auth): the messages it was given, as raw DATA.
async function fakeSmtp(): Promise<{ url: string; messages: string[]; close: () => Promise<void> }> {
  const messages: string[] = [];
  const server = createServer((socket) => {
    let buffer = "";
    let inData = false;
    socket.write("220 fake ESMTP\r\n");
    socket.on("data", (chunk) => {
      buffer += chunk.toString("utf8");
      for (;;) {
        if (inData) {
          const end = buffer.indexOf("\r\n.\r\n");
          if (end < 0) return;
          messages.push(buffer.slice(0, end));
          buffer = buffer.slice(end + 5);
          inData = false;
          socket.write("250 queued\r\n");
          continue;
        }
        const eol = buffer.indexOf("\r\n");
        if (eol < 0) return;
        const line = buffer.slice(0, eol).toUpperCase();
        buffer = buffer.slice(eol + 2);
        if (line.startsWith("EHLO")) socket.write("250-fake\r\n250 8BITMIME\r\n");
        else if (line.startsWith("DATA")) {
          inData = true;
          socket.write("354 go\r\n");
        } else if (line.startsWith("QUIT")) socket.end("221 bye\r\n");
        else socket.write("250 ok\r\n");
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("invitation mail through nodemailer", () => {
  it("reaches an SMTP server of SMTP_URL with the link; an unreachable one is reported, not thrown", async () => {
    const smtp = await fakeSmtp();
    try {
      const config = loadConfig({ PUBLIC_BASE_URL: "https://portal.example.com", SMTP_URL: smtp.url });
      expect(await mailInvitation(config, { ...mailFields(), to: "new@example.com" })).toBe(true);
      expect(smtp.messages).toHaveLength(1);
      const raw = smtp.messages[0]!;
      expect(raw).toMatch(/^To: new@example\.com$/m);
      expect(raw).toMatch(/^From: Public Catalog API <no-reply@portal\.example\.com>$/m);
      expect(raw).toMatch(/^Subject: Invitation to join Acme$/m);
      expect(raw).toContain("https://portal.example.com/console/invitations/x");
    } finally {
      await smtp.close();
    }
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const closed = loadConfig({ SMTP_URL: smtp.url });
    expect(await mailInvitation(closed, { ...mailFields(), to: "new@example.com" })).toBe(false);
    expect(error).toHaveBeenCalledWith("[console] the invitation could not be mailed:", expect.any(String));
    error.mockRestore();
  });
});

function mailFields() {
  return {
    orgName: "Acme",
    role: "member",
    url: "https://portal.example.com/console/invitations/x",
    expiresAt: "2030-01-08T00:00:00.000Z",
    invitedBy: "owner@acme.test",
  };
}
