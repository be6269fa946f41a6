// The console's API keys and audit log, end to end through the /api/console route handlers with real sign-ins, and
// the public API answering with the keys made there; on PGlite and on the Postgres server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as auditRoute from "@/app/api/console/orgs/[org]/audit/route";
import * as keysRoute from "@/app/api/console/orgs/[org]/keys/route";
import * as revokeRoute from "@/app/api/console/orgs/[org]/keys/[id]/revoke/route";
import * as rollRoute from "@/app/api/console/orgs/[org]/keys/[id]/roll/route";
import { addMembership, createUser } from "@/db/users";
import * as productsRoute from "@/app/public/v1/products/route";
import { renderToStaticMarkup } from "react-dom/server";
import { createElement } from "react";
import { ScopeChoices, scopesHelp } from "@/components/console/scope-choices";
import { splitFieldError } from "@/components/console/field-error";
import { tryItPath } from "@/components/console/keys-manager";
import { csrfTokenFor } from "@/lib/console/http";
import { keyScopeChoices } from "@/lib/console/keys";
import { rollKey } from "@/lib/keys/store";
import { READ_SCOPES, WRITE_SCOPE } from "@/lib/keys/scopes";
import { createRuntime, setRuntime } from "@/lib/runtime";
import { call, setupApi, type ApiFixture } from "../support/api";
import { signIn } from "../support/console";

const PASSWORD = "correct horse battery";
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

// A signed-in console user: the Cookie header of their session and the CSRF token a page would embed.
interface Session {
  id: string;
  email: string;
  cookie: string;
  csrf: string;
}

type Action = "list" | "create" | "roll" | "revoke" | "audit";

interface Res {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe.each(["pglite", "pg"] as const)("console keys on %s", (driver) => {
  let fx: ApiFixture;
  let owner: Session; // owner of acme
  let member: Session; // member of acme
  let otherAdmin: Session; // admin of globex only
  let acmeKeyId: string; // a key of acme that the refusals aim at
  let globexKeyId: string;

  async function session(email: string, orgSlug: string, role: "owner" | "admin" | "member") {
    const user = await createUser(fx.db, { email, name: email, password: PASSWORD });
    const [org] = await fx.db.query<{ id: string }>("select id from organizations where slug = $1", [
      orgSlug,
    ]);
    await addMembership(fx.db, { userId: user.id, orgId: org!.id, role });
    const { cookie, response } = await signIn(email, PASSWORD);
    expect(response.status).toBe(302);
    return {
      id: user.id,
      email: user.email,
      cookie,
      csrf: csrfTokenFor(fx.config, user.id, new Headers({ cookie })),
    };
  }

  // Calls a console route handler in-process, as the page's fetch would: same Origin, the CSRF token, JSON.
  async function act(
    action: Action,
    opts: {
      as?: Session | null;
      org?: string;
      keyId?: string;
      body?: unknown;
      csrf?: string | null;
      origin?: string | null;
    } = {},
  ): Promise<Res> {
    const org = opts.org ?? "acme";
    const id = opts.keyId ?? acmeKeyId;
    const as = opts.as === undefined ? owner : opts.as;
    const path = {
      list: `/api/console/orgs/${org}/keys`,
      create: `/api/console/orgs/${org}/keys`,
      roll: `/api/console/orgs/${org}/keys/${id}/roll`,
      revoke: `/api/console/orgs/${org}/keys/${id}/revoke`,
      audit: `/api/console/orgs/${org}/audit`,
    }[action];
    const method = action === "list" || action === "audit" ? "GET" : "POST";
    const headers = new Headers();
    if (as) headers.set("cookie", as.cookie);
    if (method === "POST") {
      const origin = opts.origin === undefined ? "http://api.test" : opts.origin;
      const csrf = opts.csrf === undefined ? as?.csrf : opts.csrf;
      if (origin) headers.set("origin", origin);
      if (csrf) headers.set("x-csrf-token", csrf);
      headers.set("content-type", "application/json");
    }
    const request = new Request(`http://api.test${path}`, {
      method,
      headers,
      body: method === "POST" ? JSON.stringify(opts.body ?? {}) : undefined,
    });
    const params = Promise.resolve({ org, id });
    const res =
      action === "list"
        ? await keysRoute.GET(request, { params })
        : action === "create"
          ? await keysRoute.POST(request, { params })
          : action === "roll"
            ? await rollRoute.POST(request, { params })
            : action === "revoke"
              ? await revokeRoute.POST(request, { params })
              : await auditRoute.GET(request, { params });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  }

  const ALL: Action[] = ["list", "create", "roll", "revoke", "audit"];
  const CHANGES: Action[] = ["create", "roll", "revoke"];
  const createBody = (over: Record<string, unknown> = {}) => ({
    name: "ci",
    scopes: [...READ_SCOPES],
    ...over,
  });

  function expectError(res: Res, status: number, code: string) {
    expect(res.status).toBe(status);
    expect(res.body).toEqual({
      statusCode: status,
      error: expect.any(String),
      message: expect.any(String),
      code,
    });
    expectConsoleHeaders(res);
  }
  function expectConsoleHeaders(res: Res) {
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect([...res.headers.keys()].filter((k) => k.startsWith("access-control-"))).toEqual([]);
  }
  // What a refused request must not have changed.
  async function snapshot() {
    return {
      keys: await fx.db.query("select id, expires_at, revoked_at, rolled_to from api_keys order by id"),
      audit: (await fx.db.query<{ n: number }>("select count(*)::int as n from audit_events"))[0]!.n,
    };
  }

  beforeAll(async () => {
    fx = await setupApi(driver, { AUTH_SECRET: "k".repeat(40) });
    owner = await session(`owner-${driver}@acme.test`, "acme", "owner");
    member = await session(`member-${driver}@acme.test`, "acme", "member");
    otherAdmin = await session(`admin-${driver}@globex.test`, "globex", "admin");
    const made = await act("create", { body: createBody({ name: "target" }) });
    expect(made.status).toBe(201);
    acmeKeyId = made.body.id;
    const foreign = await act("create", {
      as: otherAdmin,
      org: "globex",
      body: createBody({ name: "globex" }),
    });
    expect(foreign.status).toBe(201);
    globexKeyId = foreign.body.id;
  });
  afterAll(async () => {
    await fx?.close();
  });

  it.each(ALL)("%s without a session: 401", async (action) => {
    const before = await snapshot();
    expectError(await act(action, { as: null, body: createBody() }), 401, "CONSOLE_UNAUTHENTICATED");
    expect(await snapshot()).toEqual(before);
  });

  it("a member lists the keys (never a secret) and may change nothing: 403", async () => {
    const list = await act("list", { as: member });
    expect(list.status).toBe(200);
    expectConsoleHeaders(list);
    expect(list.body).toMatchObject({ org: { slug: "acme" }, role: "member", canManage: false });
    expect(list.body.keys.map((k: { id: string }) => k.id)).toContain(acmeKeyId);
    expect(JSON.stringify(list.body)).not.toMatch(/"key"|key_hash/);
    const before = await snapshot();
    for (const action of [...CHANGES, "audit"] as Action[]) {
      expectError(await act(action, { as: member, body: createBody() }), 403, "CONSOLE_FORBIDDEN");
    }
    expect(await snapshot()).toEqual(before);
  });

  it.each(ALL)(
    "%s by an admin of another organization with this one's slug and key id: 404, nothing changed",
    async (action) => {
      const before = await snapshot();
      expectError(await act(action, { as: otherAdmin, body: createBody() }), 404, "CONSOLE_NOT_FOUND");
      expect(await snapshot()).toEqual(before);
    },
  );

  it("an unknown organization answers like one the user is not a member of", async () => {
    const res = await act("list", { org: "nope" });
    const other = await act("list", { org: "globex" });
    expectError(res, 404, "CONSOLE_NOT_FOUND");
    expect(other.body).toEqual(res.body);
  });

  it.each(["roll", "revoke"] as const)(
    "%s of another organization's key id under one's own organization: 404",
    async (action) => {
      const before = await snapshot();
      expectError(await act(action, { keyId: globexKeyId }), 404, "CONSOLE_NOT_FOUND");
      expectError(await act(action, { keyId: "key_doesnotexist0000" }), 404, "CONSOLE_NOT_FOUND");
      expect(await snapshot()).toEqual(before);
    },
  );

  it.each(CHANGES)(
    "%s without the CSRF token, with a wrong one or another user's, or from a foreign Origin: 403",
    async (action) => {
      const before = await snapshot();
      expectError(await act(action, { csrf: null, body: createBody() }), 403, "CONSOLE_CSRF");
      expectError(
        await act(action, { csrf: owner.csrf.slice(0, -2) + "xx", body: createBody() }),
        403,
        "CONSOLE_CSRF",
      );
      expectError(await act(action, { csrf: member.csrf, body: createBody() }), 403, "CONSOLE_CSRF");
      expectError(await act(action, { origin: "http://evil.test", body: createBody() }), 403, "CONSOLE_CSRF");
      expectError(await act(action, { origin: null, body: createBody() }), 403, "CONSOLE_CSRF");
      expect(await snapshot()).toEqual(before);
    },
  );

  it("creates a key with every scope the form sends (all by default); 400 with none, an unknown one or a past expiry", async () => {
    const res = await act("create", { body: createBody({ name: "  all  " }) });
    expect(res.status).toBe(201);
    expectConsoleHeaders(res);
    expect(res.body).toMatchObject({ name: "all", scopes: [...READ_SCOPES], expiresAt: null });
    expect(res.body.key).toMatch(/^pca_/);
    expect((await call("/public/v1/products", { key: res.body.key })).status).toBe(200);
    const listed = (await act("list")).body.keys.find((k: { id: string }) => k.id === res.body.id);
    expect(listed).toMatchObject({ prefix: res.body.prefix, status: "active", lastUsedAt: null });
    expect(res.body.key.startsWith(listed.prefix)).toBe(true);

    const before = await snapshot();
    expectError(await act("create", { body: createBody({ scopes: [] }) }), 400, "CONSOLE_INVALID");
    expectError(
      await act("create", { body: createBody({ scopes: ["orders:read"] }) }),
      400,
      "CONSOLE_INVALID",
    );
    const write = await act("create", { body: createBody({ scopes: [...READ_SCOPES, "products:write"] }) });
    expectError(write, 400, "CONSOLE_INVALID");
    expect(write.body.message).toBe(
      'scopes: Scope "products:write" exists only when the write preview is on (PUBLIC_API_PREVIEW=writes).',
    );
    expectError(await act("create", { body: createBody({ name: " " }) }), 400, "CONSOLE_INVALID");
    expectError(
      await act("create", { body: createBody({ expiresAt: "2020-01-01T00:00:00Z" }) }),
      400,
      "CONSOLE_INVALID",
    );
    expectError(await act("create", { body: createBody({ extra: 1 }) }), 400, "CONSOLE_INVALID");
    expect(await snapshot()).toEqual(before);
  });

  it("a key with a deselected scope: 200 on an allowed resource, 403 on the deselected one; an expiry is kept", async () => {
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const res = await act("create", {
      body: createBody({
        name: "no products",
        scopes: READ_SCOPES.filter((s) => s !== "products:read"),
        expiresAt,
      }),
    });
    expect(res.status).toBe(201);
    expect(res.body.expiresAt).toBe(expiresAt);
    expect((await call("/public/v1/families", { key: res.body.key })).status).toBe(200);
    const refused = await call("/public/v1/products", { key: res.body.key });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("PUBLIC_API_INSUFFICIENT_SCOPE");
  });

  it("rolls: both keys work during the grace (24 h by default); the old one expires then", async () => {
    const old = (await act("create", { body: createBody({ name: "rolling", scopes: ["media:read"] }) })).body;
    expect((await call("/public/v1/media", { key: old.key })).status).toBe(200); // cached now
    const res = await act("roll", { keyId: old.id });
    expect(res.status).toBe(201);
    expect(res.body.key).toMatchObject({ name: "rolling", scopes: ["media:read"] });
    expect(res.body.key.key).not.toBe(old.key);
    const graceEnd = Date.parse(res.body.previous.expiresAt) - Date.now();
    expect(graceEnd).toBeGreaterThan(86_400_000 - 60_000);
    expect(graceEnd).toBeLessThanOrEqual(86_400_000);
    expect(res.body.previous).toMatchObject({ id: old.id, status: "active", rolledTo: res.body.key.id });
    expect((await call("/public/v1/media", { key: old.key })).status).toBe(200);
    expect((await call("/public/v1/media", { key: res.body.key.key })).status).toBe(200);
    // A rolled key is not rolled again (its successor is).
    expectError(await act("roll", { keyId: old.id }), 409, "CONSOLE_KEY_NOT_ACTIVE");
    // Past the grace (moved into the past here), the old key is expired, the new one goes on.
    await fx.db.query("update api_keys set expires_at = now() - interval '1 second' where id = $1", [old.id]);
    fx.runtime.keyCache.forgetKeyId(old.id);
    expect((await call("/public/v1/media", { key: old.key })).body.code).toBe("PUBLIC_API_KEY_EXPIRED");
    expect((await call("/public/v1/media", { key: res.body.key.key })).status).toBe(200);
  });

  it("rolls with grace 0: the old key is refused at once on this instance (401), the new one works", async () => {
    const old = (await act("create", { body: createBody({ name: "now" }) })).body;
    expect((await call("/public/v1/products", { key: old.key })).status).toBe(200); // cached now
    const res = await act("roll", { keyId: old.id, body: { graceSeconds: 0 } });
    expect(res.status).toBe(201);
    expect(res.body.previous.status).toBe("expired");
    const refused = await call("/public/v1/products", { key: old.key });
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe("PUBLIC_API_KEY_EXPIRED");
    expect((await call("/public/v1/products", { key: res.body.key.key })).status).toBe(200);
    expectError(await act("roll", { keyId: old.id, body: { graceSeconds: -1 } }), 400, "CONSOLE_INVALID");
    expectError(await act("roll", { keyId: old.id, body: { graceSeconds: 1.5 } }), 400, "CONSOLE_INVALID");
  });

  it("a roll never lengthens an earlier expiry", async () => {
    const soon = new Date(Date.now() + 3_600_000).toISOString();
    const old = (await act("create", { body: createBody({ name: "soon", expiresAt: soon }) })).body;
    const res = await act("roll", { keyId: old.id, body: { graceSeconds: 7 * 86_400 } });
    expect(res.body.previous.expiresAt).toBe(soon);
    expect(res.body.key.expiresAt).toBeNull();
    // The store's own entry point, in a transaction of its own.
    const again = await rollKey(fx.db, fx.acme.orgId, res.body.key.id, 0);
    expect(again).toMatchObject({ name: "soon", scopes: [...READ_SCOPES] });
    expect(await rollKey(fx.db, fx.globex.orgId, again!.id, 0)).toBeNull();
  });

  it("revokes: the key is refused at once on this instance (401); revoking again changes nothing", async () => {
    const made = (await act("create", { body: createBody({ name: "doomed" }) })).body;
    expect((await call("/public/v1/categories", { key: made.key })).status).toBe(200); // cached now
    const res = await act("revoke", { keyId: made.id });
    expect(res.status).toBe(200);
    expectConsoleHeaders(res);
    expect(res.body).toMatchObject({
      id: made.id,
      status: "revoked",
      revokedAt: expect.stringMatching(ISO_MS),
    });
    const refused = await call("/public/v1/categories", { key: made.key });
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe("PUBLIC_API_KEY_REVOKED");
    const audits = (await snapshot()).audit;
    const again = await act("revoke", { keyId: made.id });
    expect(again.body.revokedAt).toBe(res.body.revokedAt);
    expect((await snapshot()).audit).toBe(audits);
    expectError(await act("roll", { keyId: made.id }), 409, "CONSOLE_KEY_NOT_ACTIVE");
  });

  it("the audit log lists create, roll and revoke with the actor, the key and the time, newest first", async () => {
    const made = (await act("create", { body: createBody({ name: "audited" }) })).body;
    const rolled = (await act("roll", { keyId: made.id, body: { graceSeconds: 3600 } })).body;
    await act("revoke", { keyId: rolled.key.id });
    const res = await act("audit");
    expect(res.status).toBe(200);
    expectConsoleHeaders(res);
    const events = res.body.events as Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(events.slice(0, 3).map((e) => [e.action, e.targetId])).toEqual([
      ["api_key.revoked", rolled.key.id],
      ["api_key.rolled", made.id],
      ["api_key.created", made.id],
    ]);
    for (const e of events.slice(0, 3)) {
      expect(e).toMatchObject({
        actorId: owner.id,
        actorEmail: owner.email,
        createdAt: expect.stringMatching(ISO_MS),
      });
    }
    expect(events[1]!.details).toMatchObject({
      graceSeconds: 3600,
      newKeyId: rolled.key.id,
      name: "audited",
    });
    expect(events[2]!.details).toMatchObject({
      name: "audited",
      prefix: made.prefix,
      scopes: [...READ_SCOPES],
    });
    expect(JSON.stringify(events)).not.toContain(made.key);
    // Only this organization's events: globex's creation is not there.
    expect(events.some((e) => e.targetId === globexKeyId)).toBe(false);
  });

  // POST /public/v1/products with a key: 400 (an empty body) once the scope is granted, 403 without it.
  async function postProduct(key: string) {
    const res = await productsRoute.POST(
      new Request("http://api.test/public/v1/products", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: "{}",
      }),
    );
    return { status: res.status, body: await res.json() };
  }

  it("with the write preview on: products:write is offered unchecked, granted on request, honoured, kept by a roll", async () => {
    const on = createRuntime({ ...fx.config, preview: ["writes"] }, fx.db);
    setRuntime(on);
    try {
      expect(keyScopeChoices(on.config)).toEqual([
        ...READ_SCOPES.map((scope) => ({ scope, checked: true, preview: false })),
        { scope: WRITE_SCOPE, checked: false, preview: true },
      ]);
      // The read scopes alone stay the default: a key made without asking for products:write cannot write.
      const reader = await act("create", { body: createBody({ name: "reader" }) });
      expect(reader.body.scopes).toEqual([...READ_SCOPES]);
      expect(await postProduct(reader.body.key)).toMatchObject({
        status: 403,
        body: { code: "PUBLIC_API_INSUFFICIENT_SCOPE" },
      });

      const made = await act("create", {
        body: createBody({ name: "writer", scopes: [WRITE_SCOPE, "products:read"] }),
      });
      expect(made.status).toBe(201);
      expect(made.body.scopes).toEqual(["products:read", WRITE_SCOPE]);
      expect(await postProduct(made.body.key)).toMatchObject({
        status: 400,
        body: { code: "PUBLIC_API_INVALID_BODY" },
      });
      const rolled = await act("roll", { keyId: made.body.id, body: { graceSeconds: 0 } });
      expect(rolled.status).toBe(201);
      expect(rolled.body.key.scopes).toEqual(["products:read", WRITE_SCOPE]);
      expect((await postProduct(rolled.body.key.key)).status).toBe(400);
      const audit = (await act("audit")).body.events.find(
        (e: { action: string; targetId: string }) =>
          e.action === "api_key.created" && e.targetId === made.body.id,
      );
      expect(audit.details.scopes).toEqual(["products:read", WRITE_SCOPE]);
    } finally {
      setRuntime(fx.runtime);
      await on.close();
    }
    // Off again: the scope is neither offered nor granted.
    expect(keyScopeChoices(fx.config).map((c) => c.scope)).toEqual([...READ_SCOPES]);
    expectError(await act("create", { body: createBody({ scopes: [WRITE_SCOPE] }) }), 400, "CONSOLE_INVALID");
  });
});

// The create form's scope checkboxes as the page renders them (the page passes keyScopeChoices(config)).
describe("the create form's scopes", () => {
  const boxes = (html: string) =>
    [...html.matchAll(/<input ([^>]*)\/>/g)].map((m) => ({
      scope: /value="([^"]+)"/.exec(m[1]!)?.[1],
      checked: /\bchecked\b/.test(m[1]!),
    }));

  it("write preview off: the five read scopes, all checked; nothing about writes", () => {
    const html = renderToStaticMarkup(
      createElement(ScopeChoices, { choices: keyScopeChoices({ preview: [] }), hydrated: true }),
    );
    expect(boxes(html)).toEqual(READ_SCOPES.map((scope) => ({ scope, checked: true })));
    expect(html).not.toMatch(/write|preview/i);
  });

  it("write preview on: products:write offered last, unchecked and marked preview; the read scopes checked", () => {
    const html = renderToStaticMarkup(
      createElement(ScopeChoices, { choices: keyScopeChoices({ preview: ["writes"] }), hydrated: true }),
    );
    expect(boxes(html)).toEqual([
      ...READ_SCOPES.map((scope) => ({ scope, checked: true })),
      { scope: WRITE_SCOPE, checked: false },
    ]);
    expect(html).toMatch(/<code>products:write<\/code><span class="tag changed">preview<\/span>/);
  });

  // Issue 21, row 20: the help text said "All scopes are selected" whatever was checked.
  it("the help text tells what is selected now: all, some, or none", () => {
    const off = keyScopeChoices({ preview: [] });
    expect(scopesHelp(off, new Set(READ_SCOPES))).toMatch(/^All 5 read scopes are selected/);
    expect(scopesHelp(off, new Set(["products:read", "media:read"]))).toBe(
      "Selected: products:read, media:read.",
    );
    expect(scopesHelp(off, new Set())).toBe("No scope is selected: select at least one.");
    const on = keyScopeChoices({ preview: ["writes"] });
    expect(scopesHelp(on, new Set(READ_SCOPES))).toMatch(/^All 5 read scopes are selected.* products:write/);
    expect(scopesHelp(on, new Set([...READ_SCOPES, WRITE_SCOPE]))).toMatch(/^Selected: .*products:write\./);
    const html = renderToStaticMarkup(createElement(ScopeChoices, { choices: off, hydrated: true }));
    expect(html).toContain("All 5 read scopes are selected");
  });

  // A box changed before React attached would not be in the selection the help text and the submit read.
  it("the boxes are disabled until React has attached, enabled after", () => {
    const choices = keyScopeChoices({ preview: [] });
    const disabled = (hydrated: boolean) =>
      [
        ...renderToStaticMarkup(createElement(ScopeChoices, { choices, hydrated })).matchAll(
          /<input ([^>]*)\/>/g,
        ),
      ].map((m) => /\bdisabled\b/.test(m[1]!));
    expect(disabled(false)).toEqual(READ_SCOPES.map(() => true));
    expect(disabled(true)).toEqual(READ_SCOPES.map(() => false));
  });
});

// Issue 21, row 20: a refused field named by its code ("expiresAt: …") is shown next to that field, in words.
describe("the create form's errors", () => {
  const fields = ["name", "scopes", "expiresAt"];

  it("a message that names a field of the form goes next to it, without the code", () => {
    expect(splitFieldError("expiresAt: The expiry must be in the future.", fields)).toEqual({
      field: "expiresAt",
      text: "The expiry must be in the future.",
    });
    expect(splitFieldError("scopes.0: expected one of products:read, media:read", fields)).toEqual({
      field: "scopes",
      text: "Expected one of products:read, media:read",
    });
    expect(splitFieldError("name: A key needs a name.", fields).field).toBe("name");
  });

  it("anything else stays a message of the whole form", () => {
    for (const message of [
      "The console could not be reached. Check your connection and try again.",
      "endpoints: not a field of this form",
      "Cross-origin request refused: the Origin is not the console's.",
    ]) {
      expect(splitFieldError(message, fields)).toEqual({ field: null, text: message });
    }
  });
});

// Issue 21, row 20: "Try it" always opened products, a 403 for a key without products:read.
describe("the new key's Try it", () => {
  it("opens the reference page of the key's first read scope", () => {
    expect(tryItPath(["products:read", "media:read"])).toBe("/reference/products#try-it");
    expect(tryItPath(["media:read"])).toBe("/reference/media#try-it");
    expect(tryItPath(["families:read", "categories:read"])).toBe("/reference/families#try-it");
    expect(tryItPath(["products:write"])).toBe("/reference/products#try-it");
  });
});
