// The "Reading whole products (preview)" guide: listed only while `details` is on (and with `writes`, which turns it
// on); what it says of the API holds on a seeded demo: a product read in a channel, an unknown channelId refused, an
// ETag answered by a 304, its links point to reference pages that exist.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { resetConfig } from "@/lib/config";
import { getGuide, getGuides } from "@/lib/portal/guides";
import { getReferenceEndpoints } from "@/lib/portal/reference";
import { call, setupApi, type ApiFixture } from "../support/api";

const SLUG = "reading-whole-products";

function preview(value: string) {
  vi.stubEnv("PUBLIC_API_PREVIEW", value);
  vi.stubEnv("PUBLIC_API_WRITE_PREVIEW", "false");
  resetConfig();
}

describe("the guide", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    resetConfig();
  });

  it("is listed only while details is on", () => {
    preview("none");
    expect(getGuides().map((g) => g.slug)).not.toContain(SLUG);
    preview("details");
    expect(getGuide(SLUG)!.title).toBe("Reading whole products (preview)");
    preview("writes");
    expect(getGuides().map((g) => g.slug)).toContain(SLUG);
  });

  it("links to reference pages that exist", () => {
    preview("details");
    const slugs = new Set(getReferenceEndpoints().map((e) => e.slug));
    const links = [...getGuide(SLUG)!.markdown.matchAll(/\]\(\/reference\/([\w-]+)\)/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThanOrEqual(4);
    for (const l of links) expect(slugs.has(l), l).toBe(true);
  });
});

describe("what it says of the API", () => {
  let fx: ApiFixture;
  beforeAll(async () => {
    fx = await setupApi("pglite", { PUBLIC_API_PREVIEW: "details" });
  });
  afterAll(async () => {
    await fx?.close();
  });

  it("a product in a channel, an unknown channelId, ETag and 304", async () => {
    const key = fx.acme.full;
    const id = (await call("/public/v1/products?perPage=1", { key })).body.data[0].id;
    const channel = (await call("/public/v1/channels?perPage=1", { key })).body.data[0];
    expect(channel).toMatchObject({
      id: expect.any(String),
      code: expect.any(String),
      locale: expect.any(String),
    });
    const plain = await call(`/public/v1/products/${id}`, { key });
    expect(plain.status).toBe(200);
    expect(plain.body.values.sku).toBe(plain.body.identifier);
    const inChannel = await call(`/public/v1/products/${id}?channelId=${channel.id}`, { key });
    expect(inChannel.status).toBe(200);
    expect(inChannel.headers.get("etag")).toBeTruthy();
    const unknown = await call(`/public/v1/products/${id}?channelId=chn_nothing`, { key });
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe("PUBLIC_API_INVALID_QUERY");
    const again = await call(`/public/v1/products/${id}`, {
      key,
      headers: { "if-none-match": plain.headers.get("etag")! },
    });
    expect(again.status).toBe(304);
  });

  it("many at once: the list of the products named, by ids or identifiers; more than 100 is a 400", async () => {
    const key = fx.acme.full;
    const three = (await call("/public/v1/products?perPage=3", { key })).body.data;
    const ids = three.map((p: { id: string }) => p.id).join(",");
    const named = await call(`/public/v1/products?ids=${ids},prd_nowhere&perPage=100`, { key });
    expect(named.status).toBe(200);
    expect(named.body).toEqual({
      data: three,
      pagination: { page: 1, perPage: 100, total: 3, totalPages: 1, hasAny: true },
    });
    const skus = three.map((p: { identifier: string }) => encodeURIComponent(p.identifier)).join(",");
    const bySku = await call(`/public/v1/products?identifiers=${skus}&ids=${three[0].id}`, { key });
    expect(bySku.body.data).toEqual([three[0]]);
    const reversed = await call(
      `/public/v1/products?ids=${[...ids.split(",")].reverse().join(",")},prd_nowhere&perPage=100`,
      { key },
    );
    expect(reversed.headers.get("etag")).toBe(named.headers.get("etag"));
    const many = Array.from({ length: 101 }, (_, i) => `prd_${i}`).join(",");
    const refused = await call(`/public/v1/families?ids=${many}`, { key });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe("PUBLIC_API_INVALID_QUERY");
    expect(refused.body.message).toMatch(/^Paramètre « ids » invalide/);
  });
});
