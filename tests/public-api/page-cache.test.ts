// The page cache alone (one function isolated): bounded in entries and in bytes, oldest first out, a hit makes an
// entry the newest, a body over a tenth of the byte bound is not kept; the If-None-Match comparison, the cache key
// and the tag.
import { describe, expect, it } from "vitest";
import { PageCache, answerTag, canonicalJson, noneMatchHits, pageKey } from "@/lib/public-api/page-cache";

// Bodies go in as UTF-8 bytes and come out as the same bytes, with their tag.
const utf8 = (s: string) => ({ body: Buffer.from(s), tag: `"${s}"` });
const text = (p: { body: Uint8Array } | undefined) =>
  p === undefined ? undefined : Buffer.from(p.body).toString();

describe("PageCache", () => {
  it("keeps at most maxEntries, dropping the least recently used", () => {
    const c = new PageCache(3, 1_000_000);
    for (const k of ["a", "b", "c"]) c.set(k, utf8(k.repeat(10)));
    expect(text(c.get("a"))).toBe("aaaaaaaaaa"); // a is now the newest
    c.set("d", utf8("d"));
    expect(c.get("b")).toBeUndefined();
    expect([c.get("a"), c.get("c"), c.get("d")].map(text)).toEqual(["aaaaaaaaaa", "cccccccccc", "d"]);
    expect(c.stats()).toMatchObject({ entries: 3, hits: 4, misses: 1 });
  });

  it("keeps at most maxBytes, and no body over a tenth of it", () => {
    const c = new PageCache(1000, 100);
    c.set("big", utf8("x".repeat(11)));
    expect(c.get("big")).toBeUndefined();
    for (let i = 0; i < 12; i++) c.set(`k${i}`, utf8("é".repeat(5))); // 10 bytes each
    expect(c.stats().bytes).toBeLessThanOrEqual(100);
    expect(c.stats().entries).toBe(10);
    expect(c.get("k0")).toBeUndefined();
    expect(text(c.get("k11"))).toBe("ééééé");
    c.set("k11", utf8("y"));
    expect(c.stats().bytes).toBe(91);
  });

  it("keeps the entries asked again through a walk of entries asked once", () => {
    const c = new PageCache(10, 1_000_000);
    for (const k of ["p1", "p2", "p3"]) c.set(k, utf8(k));
    for (const k of ["p1", "p2", "p3"]) c.get(k); // asked again: protected
    // A walk of 100 pages asked once each: they push out each other, never the protected three.
    for (let i = 0; i < 100; i++) c.set(`walk${i}`, utf8(`w${i}`));
    expect([c.get("p1"), c.get("p2"), c.get("p3")].map(text)).toEqual(["p1", "p2", "p3"]);
    expect(c.get("walk89")).toBeUndefined();
    expect(text(c.get("walk99"))).toBe("w99");
    expect(c.stats().entries).toBe(10);
  });

  it("protects at most half of either bound: the oldest protected goes back on probation, not out", () => {
    const c = new PageCache(4, 1_000_000);
    for (const k of ["a", "b", "c"]) {
      c.set(k, utf8(k));
      c.get(k);
    }
    // a, the oldest protected, went back on probation when c was protected: the next entry pushes it out.
    c.set("d", utf8("d"));
    c.set("e", utf8("e"));
    expect(c.get("a")).toBeUndefined();
    expect([c.get("b"), c.get("c"), c.get("e")].map(text)).toEqual(["b", "c", "e"]);
    // By bytes: six protected entries of 10 bytes exceed half of 100, so the oldest goes back on probation, and
    // five new entries push it out.
    const bytes = new PageCache(100, 100);
    for (let i = 0; i < 6; i++) {
      bytes.set(`p${i}`, utf8(String(i).repeat(10)));
      bytes.get(`p${i}`);
    }
    for (let i = 0; i < 5; i++) bytes.set(`n${i}`, utf8(String(i).repeat(10)));
    expect(bytes.stats()).toMatchObject({ entries: 10, bytes: 100 });
    expect(bytes.get("p0")).toBeUndefined();
    expect([1, 2, 3, 4, 5].map((i) => text(bytes.get(`p${i}`)))).toEqual(
      [1, 2, 3, 4, 5].map((i) => String(i).repeat(10)),
    );
  });

  it("stores nothing with 0 entries (off)", () => {
    const c = new PageCache(0, 100);
    c.set("a", utf8("a"));
    expect(c.get("a")).toBeUndefined();
  });
});

describe("keys and tags", () => {
  const parts = {
    orgId: "org_1",
    orgSlug: "acme",
    version: "42",
    path: "/public/v1/products",
    baseUrl: "http://x",
  };
  const q = { page: 1, perPage: 20, sort: [{ field: "label", order: "asc" }] };
  const reordered = { sort: [{ order: "asc", field: "label" }], perPage: 20, page: 1 };

  it("one key for one canonical query and versions; another for any other part", () => {
    const k = pageKey({ ...parts, canonicalQuery: canonicalJson(q) });
    expect(pageKey({ ...parts, canonicalQuery: canonicalJson(reordered) })).toBe(k);
    for (const other of [
      { ...parts, version: "43" },
      { ...parts, orgId: "org_2" },
      { ...parts, orgSlug: "acme-renamed" },
      { ...parts, path: "/public/v1/families" },
      { ...parts, baseUrl: "http://y" },
    ])
      expect(pageKey({ ...other, canonicalQuery: canonicalJson(q) })).not.toBe(k);
    // A long query (a read by a hundred ids) keys by a hash, distinct per query.
    const ids = (n: number) => ({ ...q, ids: Array.from({ length: 100 }, (_, i) => `prd_${n}_${i}`) });
    const long = pageKey({ ...parts, canonicalQuery: canonicalJson(ids(1)) });
    expect(long).toMatch(/^[\w-]{43}$/);
    expect(pageKey({ ...parts, canonicalQuery: canonicalJson(ids(2)) })).not.toBe(long);
    expect(canonicalJson({ b: [2, 1], a: { d: 1, c: 2 } })).toBe('{"a":{"c":2,"d":1},"b":[2,1]}');
  });

  it("a tag names the bytes: the same whatever the versions, another for other bytes, organization or request", () => {
    const request = { orgId: "org_1", path: "/public/v1/products", canonicalQuery: canonicalJson(q) };
    const body = Buffer.from('{"data":[]}');
    const t = answerTag(request, body);
    expect(t).toMatch(/^"[\w-]{32}"$/);
    expect(
      answerTag({ ...request, canonicalQuery: canonicalJson(reordered) }, Buffer.from('{"data":[]}')),
    ).toBe(t);
    expect(answerTag(request, Buffer.from('{"data":[1]}'))).not.toBe(t);
    expect(answerTag({ ...request, orgId: "org_2" }, body)).not.toBe(t);
    expect(answerTag({ ...request, path: "/public/v1/families" }, body)).not.toBe(t);
    expect(answerTag({ ...request, canonicalQuery: canonicalJson({ ...q, page: 2 }) }, body)).not.toBe(t);
  });

  it("If-None-Match: a list, weak forms and *; nothing else", () => {
    expect(noneMatchHits('"a", "b"', '"b"')).toBe(true);
    expect(noneMatchHits('W/"b"', '"b"')).toBe(true);
    expect(noneMatchHits("*", '"b"')).toBe(true);
    expect(noneMatchHits('"a"', '"b"')).toBe(false);
    expect(noneMatchHits("b", '"b"')).toBe(false);
    expect(noneMatchHits(null, '"b"')).toBe(false);
  });
});
