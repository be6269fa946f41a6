// Property: whatever a client asks with one organization's key, no response carries an id of the other organization.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RESOURCES, call, setupApi, type ApiFixture } from "../support/api";

describe.each(["pglite", "pg"] as const)("tenant isolation on %s (property-based)", (driver) => {
  let fx: ApiFixture;
  const idsOf: Record<string, string[]> = {};
  const leaks: Record<string, (text: string) => boolean> = {};

  beforeAll(async () => {
    fx = await setupApi(driver);
    for (const org of [fx.acme, fx.globex]) {
      const rows = await fx.db.query<{ id: string }>(
        `select id from products where org_id = $1 union all select id from families where org_id = $1
         union all select id from categories where org_id = $1 union all select id from attributes where org_id = $1
         union all select id from media where org_id = $1 union all select id from channels where org_id = $1`,
        [org.orgId],
      );
      idsOf[org.slug] = rows.map((r) => r.id);
    }
    for (const slug of ["acme", "globex"]) {
      const other = slug === "acme" ? "globex" : "acme";
      const set = new Set(idsOf[other]);
      leaks[slug] = (text) => [...text.matchAll(/"([^"]+)"/g)].some((m) => set.has(m[1]!));
    }
  });
  afterAll(async () => {
    await fx?.close();
  });

  it("no response ever contains an id of the other organization", async () => {
    const anyId = fc.oneof(
      fc.constantFrom(...idsOf.acme!.slice(0, 200), ...idsOf.globex!.slice(0, 200)),
      fc.string({ maxLength: 20 }),
    );
    const request = fc.record({
      org: fc.constantFrom("acme", "globex"),
      resource: fc.constantFrom(...RESOURCES),
      page: fc.option(fc.integer({ min: 1, max: 30 }), { nil: undefined }),
      perPage: fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }),
      q: fc.option(
        fc.oneof(fc.constantFrom("a", "e", "chaise", "robe", "CRÈME", "00"), fc.string({ maxLength: 8 })),
        {
          nil: undefined,
        },
      ),
      sort: fc.option(fc.constantFrom("updatedAt.desc", "label.asc", "slug.desc", "code.asc", "type.asc"), {
        nil: undefined,
      }),
      familyId: fc.option(anyId, { nil: undefined }),
      categoryId: fc.option(anyId, { nil: undefined }),
      parentId: fc.option(anyId, { nil: undefined }),
      channelId: fc.option(anyId, { nil: undefined }),
    });
    const allowed: Record<string, string[]> = {
      products: ["familyId", "categoryId", "channelId"],
      attributes: ["familyId"],
      categories: ["parentId"],
      families: [],
      media: [],
    };
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const params = new URLSearchParams();
        for (const k of ["page", "perPage", "q", "sort"] as const)
          if (r[k] !== undefined) params.set(k, String(r[k]));
        for (const k of allowed[r.resource]!) {
          const v = r[k as "familyId"];
          if (v !== undefined) params.set(k, v);
        }
        const keys = r.org === "acme" ? fx.acme : fx.globex;
        const res = await call(`/public/v1/${r.resource}?${params}`, { key: keys.full });
        expect([200, 400]).toContain(res.status);
        expect(leaks[r.org]!(JSON.stringify(res.body))).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});
