// The console's usage and request log through their /api/console route handlers with real sign-ins: who may read
// them (owner, admin; not a member, another organization's admin, nobody signed in), the query's validation, and a
// request made through the real public route handler found in the log under its X-Request-Id and counted in usage
// after a flush, never in another organization's; on PGlite and on the Postgres server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as requestsRoute from "@/app/api/console/orgs/[org]/requests/route";
import * as usageRoute from "@/app/api/console/orgs/[org]/usage/route";
import * as productsRoute from "@/app/public/v1/products/route";
import { addMembership, createUser } from "@/db/users";
import { USAGE_DAYS, orgUsage } from "@/lib/console/usage";
import { dayOf, listRequestLog, usageSeries } from "@/lib/usage/queries";
import { DAY_MS, HOUR_MS } from "@/lib/usage/recorder";
import { generateApiKey } from "@/lib/keys/format";
import { call, setupApi, type ApiFixture } from "../support/api";
import { signIn } from "../support/console";

const PASSWORD = "correct horse battery";

interface Res {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe.each(["pglite", "pg"] as const)("console usage and request log on %s", (driver) => {
  let fx: ApiFixture;
  const cookies: Record<string, string> = {};

  async function session(email: string, orgSlug: string, role: "owner" | "admin" | "member") {
    const user = await createUser(fx.db, { email, name: email, password: PASSWORD });
    const [org] = await fx.db.query<{ id: string }>("select id from organizations where slug = $1", [
      orgSlug,
    ]);
    await addMembership(fx.db, { userId: user.id, orgId: org!.id, role });
    const { cookie } = await signIn(email, PASSWORD);
    return cookie;
  }

  async function get(
    what: "usage" | "requests",
    as: string | null,
    query: Record<string, string> = {},
    org = "acme",
  ): Promise<Res> {
    const qs = new URLSearchParams(query).toString();
    const request = new Request(`http://api.test/api/console/orgs/${org}/${what}${qs ? `?${qs}` : ""}`, {
      headers: as ? { cookie: as } : {},
    });
    const route = what === "usage" ? usageRoute : requestsRoute;
    const res = await route.GET(request, { params: Promise.resolve({ org }) });
    return { status: res.status, body: await res.json() };
  }

  async function flush() {
    await fx.runtime.usage!.flush();
    await fx.runtime.requestLog!.flush();
  }

  beforeAll(async () => {
    fx = await setupApi(driver, { AUTH_SECRET: "k".repeat(40) });
    cookies.owner = await session(`owner-${driver}@acme.test`, "acme", "owner");
    cookies.admin = await session(`admin-${driver}@acme.test`, "acme", "admin");
    cookies.member = await session(`member-${driver}@acme.test`, "acme", "member");
    cookies.other = await session(`admin-${driver}@globex.test`, "globex", "admin");
  });
  afterAll(async () => {
    await fx?.close();
  });

  it.each(["usage", "requests"] as const)("%s: owners and admins only", async (what) => {
    expect((await get(what, cookies.owner!)).status).toBe(200);
    expect((await get(what, cookies.admin!)).status).toBe(200);
    const member = await get(what, cookies.member!);
    expect(member.status).toBe(403);
    expect(member.body.code).toBe("CONSOLE_FORBIDDEN");
    const other = await get(what, cookies.other!);
    expect(other.status).toBe(404);
    expect(other.body.code).toBe("CONSOLE_NOT_FOUND");
    const nobody = await get(what, null);
    expect(nobody.status).toBe(401);
    expect(nobody.body.code).toBe("CONSOLE_UNAUTHENTICATED");
    // A member learns nothing from the query's errors either.
    expect((await get(what, cookies.member!, { nope: "1" })).status).toBe(403);
  });

  it("a request through the real route handler is in the log under its X-Request-Id after a flush, and in usage", async () => {
    const res = await productsRoute.GET(
      new Request("http://api.test/public/v1/products?perPage=2&api_key=leaked-secret", {
        headers: { authorization: `Bearer ${fx.acme.full}` },
      }),
    );
    // api_key in the query is a 400 (unknown parameter) for a request that has a key: logged with its code.
    const requestId = res.headers.get("x-request-id")!;
    const code = ((await res.json()) as { code?: string }).code ?? null;
    const ok = await productsRoute.GET(
      new Request("http://api.test/public/v1/products?perPage=1", {
        headers: { authorization: `Bearer ${fx.acme.full}` },
      }),
    );
    expect(ok.status).toBe(200);
    const okId = ok.headers.get("x-request-id")!;
    // Nothing is written before the flush.
    expect((await get("requests", cookies.owner!, { requestId: okId })).body.entries).toEqual([]);
    await flush();

    const found = await get("requests", cookies.owner!, { requestId });
    expect(found.status).toBe(200);
    expect(found.body.entries).toHaveLength(1);
    const e = found.body.entries[0];
    expect(e).toMatchObject({
      requestId,
      method: "GET",
      path: "/public/v1/products?perPage=2&api_key=[removed]",
      status: res.status,
      code,
    });
    expect(fx.acme.full.startsWith(e.keyPrefix)).toBe(true);
    expect(e.keyPrefix.length).toBeLessThan(fx.acme.full.length);
    expect(JSON.stringify(found.body)).not.toContain("leaked-secret");
    expect(JSON.stringify(found.body)).not.toContain(fx.acme.full);
    const okEntry = (await get("requests", cookies.admin!, { requestId: okId })).body.entries[0];
    expect(okEntry).toMatchObject({ status: 200, code: null, path: "/public/v1/products?perPage=1" });
    expect(okEntry.durationMs).toBeGreaterThan(0);

    // Filters: by key, by status class and exact status, by path prefix.
    const byKey = await get("requests", cookies.owner!, {
      key: e.keyId,
      status: "2xx",
      path: "/public/v1/prod",
    });
    expect(byKey.body.entries.map((x: { requestId: string }) => x.requestId)).toContain(okId);
    expect(byKey.body.entries.every((x: { status: number }) => x.status === 200)).toBe(true);
    const exact = await get("requests", cookies.owner!, { status: String(res.status) });
    expect(exact.body.entries.map((x: { requestId: string }) => x.requestId)).toContain(requestId);

    const usage = await get("usage", cookies.owner!);
    expect(usage.status).toBe(200);
    expect(usage.body.total.c2xx).toBeGreaterThanOrEqual(1);
    expect(usage.body.total.p50).toBeGreaterThan(0);
    // The window is 30 × 24 hours ending with the current one; its days run from its first hour's to today's, one
    // per UTC day: 31, or 30 when the current hour is a day's last (then the window starts at a midnight).
    const { days, from, to } = usage.body as { days: { t: number }[]; from: number; to: number };
    expect(to - from).toBe((USAGE_DAYS * 24 - 1) * HOUR_MS);
    expect(days.map((d) => d.t)).toEqual(days.map((_, i) => dayOf(from) + i * DAY_MS));
    expect(days.at(-1)!.t).toBe(dayOf(to));
    expect(days).toHaveLength(new Date(to).getUTCHours() === 23 ? USAGE_DAYS : USAGE_DAYS + 1);
    const oneKey = await get("usage", cookies.owner!, { key: e.keyId });
    expect(oneKey.body.key.id).toBe(e.keyId);
    expect(oneKey.body.hours.length).toBe(1);

    // Another organization sees none of it, not even by request id or through its own usage.
    const other = await get("requests", cookies.other!, { requestId }, "globex");
    expect(other.status).toBe(200);
    expect(other.body.entries).toEqual([]);
    const otherUsage = await get("usage", cookies.other!, {}, "globex");
    expect(otherUsage.body.total.c2xx + otherUsage.body.total.c4xx).toBe(0);
    // Nor can it name this organization's key.
    const foreignKey = await get("usage", cookies.other!, { key: e.keyId }, "globex");
    expect(foreignKey.status).toBe(400);
  });

  it.each([
    ["a day's last hour", Date.UTC(2026, 11, 7, 23, 30), USAGE_DAYS, Date.UTC(2026, 10, 8)],
    ["a day's first hour", Date.UTC(2026, 11, 8, 0, 10), USAGE_DAYS + 1, Date.UTC(2026, 10, 8)],
    ["noon", Date.UTC(2026, 11, 8, 12, 0), USAGE_DAYS + 1, Date.UTC(2026, 10, 8)],
  ])("the days of the window at %s: one per UTC day it touches", async (_at, now, count, first) => {
    const user = await createUser(fx.db, {
      email: `days-${now}-${driver}@acme.test`,
      name: "d",
      password: PASSWORD,
    });
    const [org] = await fx.db.query<{ id: string }>("select id from organizations where slug = 'acme'");
    await addMembership(fx.db, { userId: user.id, orgId: org!.id, role: "admin" });
    const usage = await orgUsage(fx.db, { id: user.id, email: user.email }, "acme", {}, now);
    expect(usage.to).toBe(Math.floor(now / HOUR_MS) * HOUR_MS);
    expect(usage.days.map((d) => d.t)).toEqual(Array.from({ length: count }, (_, i) => first + i * DAY_MS));
  });

  it("a 401 without a key is not logged (no organization)", async () => {
    const before = (await get("requests", cookies.owner!, {})).body.entries.length;
    const anonymous = await productsRoute.GET(new Request("http://api.test/public/v1/products"));
    expect(anonymous.status).toBe(401);
    await flush();
    expect(
      (await get("requests", cookies.owner!, { requestId: anonymous.headers.get("x-request-id")! })).body
        .entries,
    ).toEqual([]);
    expect((await get("requests", cookies.owner!, {})).body.entries.length).toBe(before);
  });

  it.each([
    ["requests", { status: "6xx" }],
    ["requests", { status: "abc" }],
    ["requests", { path: "no-slash" }],
    ["requests", { requestId: "a b" }],
    ["requests", { cursor: "not a cursor!" }],
    ["requests", { unknown: "1" }],
    ["usage", { key: "key_doesnotexist" }],
    ["usage", { from: "x" }],
  ] as const)("%s with %o: 400", async (what, query) => {
    const res = await get(what, cookies.owner!, { ...query });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("CONSOLE_INVALID");
  });
});

describe("the pipeline's hook", () => {
  it("logs and counts a 429 of a known key with its code", async () => {
    const fx = await setupApi("pglite", { RATE_LIMIT_REQUESTS: "1" });
    try {
      expect((await call("/public/v1/families", { key: fx.acme.full })).status).toBe(200);
      const limited = await call("/public/v1/families", { key: fx.acme.full });
      expect(limited.status).toBe(429);
      await fx.runtime.usage!.flush();
      await fx.runtime.requestLog!.flush();
      const page = await listRequestLog(fx.db, fx.acme.orgId, { requestId: limited.body.requestId });
      expect(page.entries).toMatchObject([{ status: 429, code: "PUBLIC_API_RATE_LIMIT_EXCEEDED" }]);
      const [day] = await usageSeries(fx.db, fx.acme.orgId, { unit: "day", since: 0 });
      expect(day).toMatchObject({ c2xx: 1, c4xx: 1, c429: 1 });
    } finally {
      await fx.close();
    }
  });

  it("logs and counts the 401 of a revoked and of an expired key in their organization, not that of an unknown key", async () => {
    const fx = await setupApi("pglite");
    try {
      const revoked = await call("/public/v1/families", { key: fx.acme.revoked });
      const expired = await call("/public/v1/families", { key: fx.acme.expired });
      const unknown = await call("/public/v1/families", { key: generateApiKey() });
      expect([revoked.status, expired.status, unknown.status]).toEqual([401, 401, 401]);
      await fx.runtime.usage!.flush();
      await fx.runtime.requestLog!.flush();
      const logged = async (requestId: string, orgId = fx.acme.orgId) =>
        (await listRequestLog(fx.db, orgId, { requestId })).entries;
      expect(await logged(revoked.body.requestId)).toMatchObject([
        { status: 401, code: "PUBLIC_API_KEY_REVOKED", path: "/public/v1/families" },
      ]);
      expect(await logged(expired.body.requestId)).toMatchObject([
        { status: 401, code: "PUBLIC_API_KEY_EXPIRED" },
      ]);
      expect(await logged(unknown.body.requestId)).toEqual([]);
      expect(await logged(revoked.body.requestId, fx.globex.orgId)).toEqual([]);
      const [day] = await usageSeries(fx.db, fx.acme.orgId, { unit: "day", since: 0 });
      expect(day).toMatchObject({ c4xx: 2 });
    } finally {
      await fx.close();
    }
  });

  it("off (USAGE_ENABLED=false, REQUEST_LOG_ENABLED=false): nothing held, nothing written", async () => {
    const fx = await setupApi("pglite", { USAGE_ENABLED: "false", REQUEST_LOG_ENABLED: "false" });
    try {
      expect(fx.runtime.usage).toBeUndefined();
      expect(fx.runtime.requestLog).toBeUndefined();
      expect((await call("/public/v1/families", { key: fx.acme.full })).status).toBe(200);
      await fx.runtime.close();
      const [n] = await fx.db.query<{ u: number; l: number }>(
        "select (select count(*)::int from usage_hours) as u, (select count(*)::int from request_log) as l",
      );
      expect(n).toEqual({ u: 0, l: 0 });
    } finally {
      await fx.close();
    }
  });

  it("the runtime's close writes what is pending", async () => {
    const fx = await setupApi("pglite");
    try {
      const res = await call("/public/v1/families", { key: fx.acme.full });
      await fx.runtime.close();
      const page = await listRequestLog(fx.db, fx.acme.orgId, {
        requestId: res.body.requestId ?? res.headers.get("x-request-id"),
      });
      expect(page.entries).toHaveLength(1);
    } finally {
      await fx.close();
    }
  });
});
