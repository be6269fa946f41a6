// The changelog editor end to end through the /api/console/changelog route handlers with real sign-ins: the product
// team writes, publishes, edits, unpublishes and promotes entries, the portal's listChangelog() follows, each change
// is in the entry's history; nobody else changes anything. On PGlite and on the Postgres server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as listRoute from "@/app/api/console/changelog/route";
import * as entryRoute from "@/app/api/console/changelog/[id]/route";
import * as publishRoute from "@/app/api/console/changelog/[id]/publish/route";
import * as unpublishRoute from "@/app/api/console/changelog/[id]/unpublish/route";
import * as promoteRoute from "@/app/api/console/changelog/[id]/promote/route";
import { addMembership, createUser } from "@/db/users";
import { csrfTokenFor } from "@/lib/console/http";
import { listChangelog } from "@/lib/portal/changelog-reader";
import { setupApi, type ApiFixture } from "../support/api";
import { signIn } from "../support/console";

const PASSWORD = "correct horse battery";
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const ENDPOINTS = [
  "/public/v1/products",
  "/public/v1/families",
  "/public/v1/attributes",
  "/public/v1/categories",
  "/public/v1/media",
];

interface Session {
  id: string;
  email: string;
  cookie: string;
  csrf: string;
}

type Action = "list" | "get" | "create" | "edit" | "put" | "publish" | "unpublish" | "promote";

interface Res {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe.each(["pglite", "pg"] as const)("changelog editor on %s", (driver) => {
  let fx: ApiFixture;
  let team: Session; // product team (staff, no organization)
  let team2: Session; // another product-team member
  let owner: Session; // owner of acme, not staff
  let draftId: string; // a draft the refusals aim at

  async function session(email: string, opts: { staff?: boolean; org?: string } = {}): Promise<Session> {
    const user = await createUser(fx.db, { email, name: email, password: PASSWORD, isStaff: opts.staff });
    if (opts.org) {
      const [org] = await fx.db.query<{ id: string }>("select id from organizations where slug = $1", [
        opts.org,
      ]);
      await addMembership(fx.db, { userId: user.id, orgId: org!.id, role: "owner" });
    }
    const { cookie, response } = await signIn(email, PASSWORD);
    expect(response.status).toBe(302);
    return {
      id: user.id,
      email: user.email,
      cookie,
      csrf: csrfTokenFor(fx.config, user.id, new Headers({ cookie })),
    };
  }

  // Calls a console route handler in-process, as the editor's fetch would: same Origin, the CSRF token, JSON.
  async function act(
    action: Action,
    opts: {
      as?: Session | null;
      id?: string;
      body?: unknown;
      csrf?: string | null;
      origin?: string | null;
    } = {},
  ): Promise<Res> {
    const id = opts.id ?? draftId;
    const as = opts.as === undefined ? team : opts.as;
    const path =
      action === "list" || action === "create"
        ? "/api/console/changelog"
        : action === "get" || action === "edit" || action === "put"
          ? `/api/console/changelog/${id}`
          : `/api/console/changelog/${id}/${action}`;
    const method = action === "list" || action === "get" ? "GET" : action === "put" ? "PUT" : "POST";
    const headers = new Headers();
    if (as) headers.set("cookie", as.cookie);
    if (method !== "GET") {
      const origin = opts.origin === undefined ? "http://api.test" : opts.origin;
      const csrf = opts.csrf === undefined ? as?.csrf : opts.csrf;
      if (origin) headers.set("origin", origin);
      if (csrf) headers.set("x-csrf-token", csrf);
      headers.set("content-type", "application/json");
    }
    const request = new Request(`http://api.test${path}`, {
      method,
      headers,
      body: method === "GET" ? undefined : JSON.stringify(opts.body ?? {}),
    });
    const params = Promise.resolve({ id });
    const handler = {
      list: () => listRoute.GET(request, { params: Promise.resolve({}) }),
      create: () => listRoute.POST(request, { params: Promise.resolve({}) }),
      get: () => entryRoute.GET(request, { params }),
      edit: () => entryRoute.POST(request, { params }),
      put: () => entryRoute.PUT(request, { params }),
      publish: () => publishRoute.POST(request, { params }),
      unpublish: () => unpublishRoute.POST(request, { params }),
      promote: () => promoteRoute.POST(request, { params }),
    }[action];
    const res = await handler();
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  }

  const ALL: Action[] = ["list", "get", "create", "edit", "put", "publish", "unpublish", "promote"];
  const CHANGES: Action[] = ["create", "edit", "put", "publish", "unpublish", "promote"];
  const draft = (over: Record<string, unknown> = {}) => ({
    title: "Media filters",
    publishedOn: "2026-07-01",
    type: "Added",
    endpoints: ["/public/v1/media"],
    bodyMd: "You can filter media by **type**.",
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
    expect([...res.headers.keys()].filter((k) => k.startsWith("access-control-"))).toEqual([]);
  }
  // What a refused request must not have changed.
  async function snapshot() {
    return {
      entries: await fx.db.query(
        `select id, slug, title, published_on::text, type, breaking, endpoints, body_md, is_planned, status,
                updated_at from changelog_entries order by id`,
      ),
      audit: (await fx.db.query<{ n: number }>("select count(*)::int as n from audit_events"))[0]!.n,
    };
  }
  const titles = async () => (await listChangelog(fx.db)).map((e) => e.title);

  beforeAll(async () => {
    fx = await setupApi(driver, { AUTH_SECRET: "c".repeat(40) });
    team = await session(`team-${driver}@catalog.test`, { staff: true });
    team2 = await session(`team2-${driver}@catalog.test`, { staff: true });
    owner = await session(`owner-${driver}@acme.test`, { org: "acme" });
    const made = await act("create", { body: draft({ title: "Refusal target" }) });
    expect(made.status).toBe(201);
    draftId = made.body.entry.id;
  });
  afterAll(async () => {
    await fx?.close();
  });

  it.each(ALL)("%s without a session: 401, nothing changed", async (action) => {
    const before = await snapshot();
    expectError(await act(action, { as: null, body: draft() }), 401, "CONSOLE_UNAUTHENTICATED");
    expect(await snapshot()).toEqual(before);
  });

  it.each(ALL)(
    "%s by a user who is not on the product team (an acme owner): 403, nothing changed",
    async (action) => {
      const before = await snapshot();
      expectError(await act(action, { as: owner, body: draft() }), 403, "CONSOLE_FORBIDDEN");
      // An invalid body is refused the same way: the staff check comes first.
      expectError(await act(action, { as: owner, body: { nope: 1 } }), 403, "CONSOLE_FORBIDDEN");
      expect(await snapshot()).toEqual(before);
    },
  );

  it.each(CHANGES)(
    "%s without the CSRF token, with a wrong one or another user's, or from a foreign Origin: 403",
    async (action) => {
      const before = await snapshot();
      expectError(await act(action, { csrf: null, body: draft() }), 403, "CONSOLE_CSRF");
      expectError(
        await act(action, { csrf: team.csrf.slice(0, -2) + "xx", body: draft() }),
        403,
        "CONSOLE_CSRF",
      );
      expectError(await act(action, { csrf: team2.csrf, body: draft() }), 403, "CONSOLE_CSRF");
      expectError(await act(action, { origin: "http://evil.test", body: draft() }), 403, "CONSOLE_CSRF");
      expectError(await act(action, { origin: null, body: draft() }), 403, "CONSOLE_CSRF");
      expect(await snapshot()).toEqual(before);
    },
  );

  it("draft → not on the changelog → publish → on it → edit → unpublish → gone; the history has each step", async () => {
    const created = await act("create", {
      body: draft({ title: "Happy path", endpoints: ["/public/v1/media", "/public/v1/products"] }),
    });
    expect(created.status).toBe(201);
    expectConsoleHeaders(created);
    const id = created.body.entry.id as string;
    expect(created.body.entry).toMatchObject({
      id: expect.stringMatching(/^chg_/),
      slug: "2026-07-01-happy-path",
      title: "Happy path",
      publishedOn: "2026-07-01",
      type: "Added",
      breaking: false,
      endpoints: ["/public/v1/media", "/public/v1/products"],
      bodyMd: "You can filter media by **type**.",
      isPlanned: false,
      status: "draft",
    });
    expect(await titles()).not.toContain("Happy path");
    const listed = await act("list");
    expect(listed.status).toBe(200);
    expect(listed.body.entries.find((e: { id: string }) => e.id === id)).toMatchObject({ status: "draft" });

    const published = await act("publish", { id });
    expect(published.status).toBe(200);
    expect(published.body.entry.status).toBe("published");
    expect(await titles()).toContain("Happy path");
    // Publishing again changes nothing and records nothing.
    const again = await act("publish", { id });
    expect(again.body.history).toHaveLength(2);

    const edited = await act("edit", {
      id,
      as: team2,
      body: { title: "Happy path, edited", breaking: true, bodyMd: "Now **breaking**." },
    });
    expect(edited.status).toBe(200);
    // A published entry keeps its slug (its anchor on /changelog and its id in the feeds).
    expect(edited.body.entry).toMatchObject({
      title: "Happy path, edited",
      breaking: true,
      slug: "2026-07-01-happy-path",
      status: "published",
      endpoints: ["/public/v1/media", "/public/v1/products"],
    });
    const onPage = (await listChangelog(fx.db)).find((e) => e.id === id);
    expect(onPage).toMatchObject({
      title: "Happy path, edited",
      breaking: true,
      bodyMd: "Now **breaking**.",
    });
    // An edit that changes nothing records nothing.
    expect((await act("put", { id, body: { breaking: true } })).body.history).toHaveLength(3);

    const unpublished = await act("unpublish", { as: team2, id });
    expect(unpublished.status).toBe(200);
    expect(unpublished.body.entry.status).toBe("draft");
    expect(await titles()).not.toContain("Happy path, edited");

    const res = await act("get", { id });
    expect(res.status).toBe(200);
    expectConsoleHeaders(res);
    expect(res.body.entry).toMatchObject({ id, status: "draft", title: "Happy path, edited" });
    const history = res.body.history as Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(history.map((e) => [e.action, e.actorEmail])).toEqual([
      ["changelog.unpublished", team2.email],
      ["changelog.edited", team2.email],
      ["changelog.published", team.email],
      ["changelog.created", team.email],
    ]);
    for (const e of history) {
      expect(e).toMatchObject({ targetId: id, createdAt: expect.stringMatching(ISO_MS) });
      expect(e.details).toMatchObject({ id, title: expect.any(String) });
    }
    expect(history.map((e) => e.actorId)).toEqual([team2.id, team2.id, team.id, team.id]);
    expect(history[3]!.details.title).toBe("Happy path");
    expect(history[1]!.details).toMatchObject({
      title: "Happy path, edited",
      fields: ["title", "breaking", "bodyMd"],
    });
    // The product team's events have no organization: no organization's audit log shows them.
    const [row] = await fx.db.query<{ n: number }>(
      "select count(*)::int as n from audit_events where target_id = $1 and org_id is not null",
      [id],
    );
    expect(row!.n).toBe(0);
  });

  it("a draft never published follows its date and title; slugs stay unique", async () => {
    const a = (await act("create", { body: draft({ title: "Same title", publishedOn: "2026-08-01" }) })).body;
    const b = (await act("create", { body: draft({ title: "Same title!", publishedOn: "2026-08-01" }) }))
      .body;
    expect(a.entry.slug).toBe("2026-08-01-same-title");
    expect(b.entry.slug).toBe("2026-08-01-same-title-2");
    const moved = await act("edit", { id: a.entry.id, body: { publishedOn: "2026-08-02", title: "Moved" } });
    expect(moved.body.entry.slug).toBe("2026-08-02-moved");
    // b keeps its own slug when an edit leaves the date and title's slug as they were.
    expect((await act("edit", { id: b.entry.id, body: { type: "Fixed" } })).body.entry.slug).toBe(
      "2026-08-01-same-title-2",
    );
    const odd = await act("create", { body: draft({ title: "日本", publishedOn: "2026-08-01" }) });
    expect(odd.body.entry.slug).toBe("2026-08-01-entry");
  });

  it("promotes a planned (roadmap) item to released, dated today or the given day; 409 when not planned", async () => {
    const planned = (await act("create", { body: draft({ title: "Webhooks soon", isPlanned: true }) })).body;
    await act("publish", { id: planned.entry.id });
    const before = (await listChangelog(fx.db)).find((e) => e.id === planned.entry.id);
    expect(before).toMatchObject({ isPlanned: true });
    const today = new Date().toISOString().slice(0, 10);
    const res = await act("promote", { id: planned.entry.id });
    expect(res.status).toBe(200);
    expect(res.body.entry).toMatchObject({ isPlanned: false, publishedOn: today, status: "published" });
    expect(res.body.history[0]).toMatchObject({
      action: "changelog.promoted",
      actorEmail: team.email,
      details: { id: planned.entry.id, title: "Webhooks soon", publishedOn: today },
    });
    expectError(await act("promote", { id: planned.entry.id }), 409, "CONSOLE_CHANGELOG_NOT_PLANNED");

    // A seeded roadmap item, on a chosen day; its planned path (not in the OpenAPI document yet) stays editable.
    const seeded = "chg_2026060700000003";
    const promoted = await act("promote", { id: seeded, body: { publishedOn: "2026-09-15" } });
    expect(promoted.body.entry).toMatchObject({
      isPlanned: false,
      publishedOn: "2026-09-15",
      slug: "planned-detailed-product-endpoints",
      endpoints: ["/public/v1/products/{id}"],
    });
    const kept = await act("edit", {
      id: seeded,
      body: { endpoints: ["/public/v1/products/{id}", "/public/v1/products"] },
    });
    expect(kept.status).toBe(200);
    expectError(
      await act("promote", { id: seeded, body: { publishedOn: "15/09/2026" } }),
      400,
      "CONSOLE_INVALID",
    );
  });

  it("endpoints outside the OpenAPI document's paths, and other invalid input: 400, nothing changed", async () => {
    const before = await snapshot();
    for (const endpoints of [
      ["/public/v1/orders"],
      ["/public/v1/products/{id}"],
      ["/public/v1/products", "/public/v1/productz"],
      ["/PUBLIC/v1/products"],
      ["products"],
      [""],
    ]) {
      expectError(await act("create", { body: draft({ endpoints }) }), 400, "CONSOLE_INVALID");
      expectError(await act("edit", { body: { endpoints } }), 400, "CONSOLE_INVALID");
    }
    const named = await act("create", { body: draft({ endpoints: ["/public/v1/orders"] }) });
    expect(named.body.message).toContain("/public/v1/orders");
    for (const body of [
      draft({ title: " " }),
      draft({ title: "x".repeat(201) }),
      draft({ publishedOn: "2026-02-30" }),
      draft({ publishedOn: "2026-7-1" }),
      draft({ type: "Improved" }),
      draft({ breaking: "yes" }),
      draft({ isPlanned: 1 }),
      draft({ status: "published" }),
      draft({ slug: "mine" }),
      { title: "No date", type: "Added" },
    ]) {
      expectError(await act("create", { body }), 400, "CONSOLE_INVALID");
    }
    expectError(await act("edit", { body: { status: "published" } }), 400, "CONSOLE_INVALID");
    expectError(await act("edit", { body: { type: "Nope" } }), 400, "CONSOLE_INVALID");
    expect(await snapshot()).toEqual(before);
    // Every path of the document is accepted.
    const all = await act("create", { body: draft({ title: "All endpoints", endpoints: ENDPOINTS }) });
    expect(all.status).toBe(201);
    expect(all.body.entry.endpoints).toEqual(ENDPOINTS);
  });

  it("an unknown entry id: 404 for every entry action", async () => {
    for (const action of ["get", "edit", "put", "publish", "unpublish", "promote"] as Action[]) {
      expectError(await act(action, { id: "chg_doesnotexist0000", body: {} }), 404, "CONSOLE_NOT_FOUND");
    }
  });

  it("lists every entry for the product team, drafts and the seeded ones, newest first", async () => {
    const res = await act("list");
    expect(res.status).toBe(200);
    const entries = res.body.entries as Array<{ id: string; status: string; publishedOn: string }>;
    expect(entries.some((e) => e.status === "draft")).toBe(true);
    expect(entries.map((e) => e.id)).toContain("chg_2026060700000001");
    const days = entries.map((e) => e.publishedOn);
    expect(days).toEqual([...days].sort().reverse());
  });
});
