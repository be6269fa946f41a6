// The benchmark's multi-tenant mix (bench/mix.ts) draws only requests the API answers 200, for every organization
// and resource, and each organization's key reads its own catalog (a drawn request is never another tenant's).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadMix, mixDrawer, type Mix } from "@/bench/mix";
import { call, setupApi, type ApiFixture } from "../support/api";

let fx: ApiFixture;
let mix: Mix;

beforeAll(async () => {
  fx = await setupApi("pglite");
  mix = await loadMix(fx.db, [
    { id: fx.acme.orgId, slug: fx.acme.slug, keys: [fx.acme.full] },
    { id: fx.globex.orgId, slug: fx.globex.slug, keys: [fx.globex.full] },
  ]);
});
afterAll(() => fx?.close());

describe("the multi-tenant mix of the benchmark", () => {
  it("reads ids and words of each organization", () => {
    for (const org of mix.organizations) {
      expect(org.products).toBeGreaterThan(0);
      expect(org.familyIds.length).toBeGreaterThan(0);
      expect(org.categoryIds.length).toBeGreaterThan(0);
      expect(org.channelIds.length).toBeGreaterThan(0);
      expect(org.words.length).toBeGreaterThan(0);
    }
  });

  it("draws 600 distinct-enough requests over every resource, each answered 200", async () => {
    const draw = mixDrawer(mix, 42);
    const paths = new Set<string>();
    const resources = new Set<string>();
    for (let i = 0; i < 600; i++) {
      const d = draw();
      paths.add(d.path);
      resources.add(/^\/public\/v1\/([a-z]+)/.exec(d.path)![1]!);
      const res = await call(d.path, { key: d.authorization.slice("Bearer ".length) });
      expect({ path: d.path, status: res.status, body: res.status === 200 ? undefined : res.body }).toEqual({
        path: d.path,
        status: 200,
        body: undefined,
      });
    }
    expect([...resources].sort()).toEqual(["attributes", "categories", "families", "media", "products"]);
    // Every URL drawn afresh: most requests are a URL seen once (the page cache's best case is not the mix).
    expect(paths.size).toBeGreaterThan(400);
  });

  it("the same seed draws the same requests, another seed others", () => {
    const a = mixDrawer(mix, 7);
    const b = mixDrawer(mix, 7);
    const c = mixDrawer(mix, 8);
    const first = Array.from({ length: 20 }, () => a().path);
    expect(Array.from({ length: 20 }, () => b().path)).toEqual(first);
    expect(Array.from({ length: 20 }, () => c().path)).not.toEqual(first);
  });
});
