// The console's audit log: filters (actor, action or family, days), keyset pages that neither skip nor repeat an
// event (ties within a millisecond included), the CSV export (RFC 4180, spreadsheet formulas defused), and who may
// read it (owners and admins of the organization only); through the route handlers with real sign-ins, on PGlite and
// on the Postgres server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as auditRoute from "@/app/api/console/orgs/[org]/audit/route";
import * as csvRoute from "@/app/api/console/orgs/[org]/audit/csv/route";
import { addMembership, createUser } from "@/db/users";
import { recordAudit } from "@/lib/audit/record";
import { csvCell } from "@/lib/console/audit-log";
import { setupApi, type ApiFixture } from "../support/api";
import { signIn } from "../support/console";

const PASSWORD = "correct horse battery";

describe("csvCell", () => {
  it("quotes what RFC 4180 requires and defuses what a spreadsheet would run", () => {
    expect(csvCell("plain")).toBe("plain");
    expect(csvCell('say "hi", then go')).toBe('"say ""hi"", then go"');
    expect(csvCell("two\nlines")).toBe('"two\nlines"');
    expect(csvCell("=HYPERLINK(1)")).toBe("'=HYPERLINK(1)");
    expect(csvCell("+1")).toBe("'+1");
    expect(csvCell("-2,3")).toBe(`"'-2,3"`);
    expect(csvCell("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(csvCell("a=b")).toBe("a=b");
  });
});

describe.each(["pglite", "pg"] as const)("console audit log on %s", (driver) => {
  let fx: ApiFixture;
  let acmeId: string;
  const cookies: Record<string, string> = {};

  async function session(email: string, orgSlug: string, role: "owner" | "admin" | "member") {
    const user = await createUser(fx.db, { email, name: email, password: PASSWORD });
    const [org] = await fx.db.query<{ id: string }>("select id from organizations where slug = $1", [
      orgSlug,
    ]);
    await addMembership(fx.db, { userId: user.id, orgId: org!.id, role });
    const { cookie } = await signIn(email, PASSWORD);
    cookies[role === "owner" ? "owner" : `${role}@${orgSlug}`] = cookie;
    return user;
  }

  async function get(route: "log" | "csv", query = "", as: string | null = "owner", org = "acme") {
    const headers = new Headers();
    if (as) headers.set("cookie", cookies[as]!);
    const path = `/api/console/orgs/${org}/audit${route === "csv" ? "/csv" : ""}`;
    const request = new Request(`http://api.test${path}${query ? `?${query}` : ""}`, { headers });
    const params = Promise.resolve({ org });
    return route === "csv" ? csvRoute.GET(request, { params }) : auditRoute.GET(request, { params });
  }

  // Events of acme at chosen times: 30 key events by alice on 2026-03-01 (ten of them in the same millisecond), 5
  // member events by bob on 2026-03-02, and one of globex (never shown to acme).
  beforeAll(async () => {
    fx = await setupApi(driver, { AUTH_SECRET: "k".repeat(40) });
    await session(`owner-${driver}@acme.test`, "acme", "owner");
    await session(`admin-${driver}@acme.test`, "acme", "admin");
    await session(`member-${driver}@acme.test`, "acme", "member");
    await session(`admin-${driver}@globex.test`, "globex", "admin");
    const orgs = await fx.db.query<{ id: string; slug: string }>("select id, slug from organizations");
    acmeId = orgs.find((o) => o.slug === "acme")!.id;
    const globexId = orgs.find((o) => o.slug === "globex")!.id;
    const actor = async (email: string) => ({
      id: (await createUser(fx.db, { email, name: email, password: PASSWORD })).id,
      email,
    });
    const alice = await actor(`Alice-${driver}@acme.test`);
    const bob = await actor(`bob-${driver}@acme.test`);
    const eve = await actor(`eve-${driver}@globex.test`);
    const at = async (id: string, iso: string) =>
      fx.db.query("update audit_events set created_at = $2::timestamptz where id = $1", [id, iso]);
    for (let i = 0; i < 30; i++) {
      const id = await recordAudit(fx.db, {
        orgId: acmeId,
        actor: alice,
        action: i % 3 === 0 ? "api_key.revoked" : "api_key.created",
        targetId: `key_${i}`,
        details: { name: i === 0 ? "=cmd|' /C calc'!A0" : `key ${i}`, prefix: `pca_${i}` },
      });
      await at(
        id,
        i < 10
          ? "2026-03-01T10:00:00.000Z"
          : `2026-03-01T${String(10 + (i % 10)).padStart(2, "0")}:30:00.${String(i).padStart(3, "0")}Z`,
      );
    }
    for (let i = 0; i < 5; i++) {
      const id = await recordAudit(fx.db, {
        orgId: acmeId,
        actor: bob,
        action: "member.role_changed",
        targetId: `usr_${i}`,
        details: { email: `m${i}@acme.test`, from: "member", role: "admin" },
      });
      await at(id, `2026-03-02T0${i}:00:00.000Z`);
    }
    await recordAudit(fx.db, {
      orgId: globexId,
      actor: eve,
      action: "api_key.created",
      targetId: "key_globex",
    });
  });
  afterAll(async () => {
    await fx?.close();
  });

  it("pages the whole log newest first, every event once, ties in one millisecond included", async () => {
    const all = await fx.db.query<{ id: string }>(
      "select id from audit_events where org_id = $1 order by created_at desc, id desc",
      [acmeId],
    );
    const seen: string[] = [];
    let query = "limit=7";
    for (let pages = 0; pages < 20; pages++) {
      const res = await get("log", query);
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body.events.length).toBeLessThanOrEqual(7);
      seen.push(...body.events.map((e: { id: string }) => e.id));
      if (!body.next) break;
      query = `limit=7&before=${body.next}`;
    }
    expect(seen).toEqual(all.map((r) => r.id));
  });

  it("filters by actor (any case), action, family and days, combined", async () => {
    const ids = async (query: string) =>
      (await (await get("log", `limit=500&${query}`)).json()).events.map((e: { action: string }) => e.action);
    expect(await ids(`actor=alice-${driver}@ACME.test`)).toHaveLength(30);
    expect(await ids("action=api_key.revoked")).toEqual(Array(10).fill("api_key.revoked"));
    expect(await ids("action=api_key.")).toHaveLength(30);
    expect(await ids("action=member.")).toEqual(Array(5).fill("member.role_changed"));
    expect(await ids("from=2026-03-02")).toEqual(Array(5).fill("member.role_changed"));
    expect(await ids("to=2026-03-01")).toHaveLength(30);
    expect(await ids("from=2026-03-01&to=2026-03-01")).toHaveLength(30);
    expect(await ids(`to=2026-03-01&actor=bob-${driver}@acme.test`)).toHaveLength(0);
    expect(await ids(`actor=eve-${driver}@globex.test`)).toHaveLength(0);
  });

  it("refuses a filter it cannot take, naming it: 400", async () => {
    for (const query of [
      "action=api_key.nope",
      "from=2026-13-01",
      "from=yesterday",
      "from=2026-03-02&to=2026-03-01",
      "before=bm90IGEgY3Vyc29y",
      "limit=0",
      "limit=501",
    ]) {
      const res = await get("log", query);
      expect(res.status, query).toBe(400);
      expect((await res.json()).code).toBe("CONSOLE_INVALID");
    }
  });

  it("exports what the filters keep as CSV, formulas defused", async () => {
    const res = await get("csv", "action=api_key.&from=2026-03-01&to=2026-03-01");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toMatch(
      /^attachment; filename="audit-acme-\d{4}-\d\d-\d\d\.csv"$/,
    );
    expect(res.headers.get("cache-control")).toBe("no-store");
    const lines = (await res.text()).split("\r\n");
    expect(lines[0]).toBe("createdAt,actorEmail,action,targetId,details,id");
    expect(lines.at(-1)).toBe("");
    expect(lines).toHaveLength(1 + 30 + 1);
    const first = lines.find((l) => l.includes("key_0,"))!;
    // The name starts with "=": inside the JSON cell it is not first, so the cell is only quoted.
    expect(first).toContain(`"{""name"":""=cmd|' /C calc'!A0"",""prefix"":""pca_0""}"`);
    expect(lines.filter((l) => l.includes("eve@globex"))).toEqual([]);
  });

  it("lets owners and admins read it; a member 403, another organization's admin 404, no session 401", async () => {
    expect((await get("log", "", "admin@acme")).status).toBe(200);
    for (const route of ["log", "csv"] as const) {
      const member = await get(route, "", "member@acme");
      expect(member.status).toBe(403);
      expect((await member.json()).code).toBe("CONSOLE_FORBIDDEN");
      const foreign = await get(route, "", "admin@globex");
      expect(foreign.status).toBe(404);
      expect((await foreign.json()).code).toBe("CONSOLE_NOT_FOUND");
      const anonymous = await get(route, "", null);
      expect(anonymous.status).toBe(401);
    }
    const own = await (await get("log", "limit=500", "admin@globex", "globex")).json();
    expect(own.events.map((e: { actorEmail: string }) => e.actorEmail)).toEqual([
      `eve-${driver}@globex.test`,
    ]);
  });
});
