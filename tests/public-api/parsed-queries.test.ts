// Queries kept parsed by their string as sent (lib/public-api/params.ts: ParsedQueries), one class isolated: a
// string parsed again gives what parseQuery gives, a refused one is refused again, and what is kept is bounded,
// shared read-only and per definition.
import { describe, expect, it } from "vitest";
import { familiesQuery } from "@/lib/catalog/resources/families";
import { productsQuery } from "@/lib/catalog/resources/products";
import { PublicApiError } from "@/lib/public-api/api-errors";
import { canonicalJson } from "@/lib/public-api/page-cache";
import { ParsedQueries, parseQuery } from "@/lib/public-api/params";

// `ids` is a parameter of the preview feature `details`.
const PREVIEW = ["details"] as const;

const SENT = [
  "",
  "page=3&perPage=100&sort=label.asc",
  "q=chaise+bois&page=2",
  "familyId=fam_abc&categoryId=cat_def&sort=updatedAt.desc",
  "updatedSince=2026-11-30T10%3A00%3A00%2B02%3A00&perPage=100",
  "ids=prd_a,prd_b,%20prd_c",
];

describe("ParsedQueries", () => {
  it("gives what parseQuery gives, the first time and from what it kept", () => {
    const queries = new ParsedQueries(100, PREVIEW);
    for (const sent of SENT) {
      const plain = parseQuery(new URLSearchParams(sent), productsQuery, PREVIEW);
      const first = queries.parse(sent, productsQuery);
      const again = queries.parse(sent, productsQuery);
      expect(first.query).toEqual(plain);
      expect(first.canonical).toBe(canonicalJson(plain));
      expect(again).toBe(first);
    }
  });

  it("refuses a refused query every time, and keeps none", () => {
    const queries = new ParsedQueries(100, PREVIEW);
    for (const sent of ["perPage=1000", "page=0", "sort=price.asc", "colour=red", "page=1&page=2"]) {
      const plain = (() => {
        try {
          parseQuery(new URLSearchParams(sent), productsQuery, PREVIEW);
        } catch (e) {
          return e as PublicApiError;
        }
        throw new Error(`${sent} was not refused`);
      })();
      for (let i = 0; i < 2; i++) {
        expect(() => queries.parse(sent, productsQuery)).toThrow(plain.message);
      }
    }
  });

  it("shares a kept query frozen: no handler can change another request's", () => {
    const queries = new ParsedQueries(100, PREVIEW);
    const { query } = queries.parse("ids=prd_a,prd_b", productsQuery);
    expect(Object.isFrozen(query)).toBe(true);
    expect(Object.isFrozen(query.ids)).toBe(true);
    expect(() => {
      (query as { page: number }).page = 9;
    }).toThrow(TypeError);
    expect(queries.parse("ids=prd_a,prd_b", productsQuery).query.page).toBe(1);
  });

  it("keeps at most its bound per definition, the least recently asked going first", () => {
    const queries = new ParsedQueries(10, PREVIEW);
    const first = queries.parse("page=1", productsQuery);
    for (let page = 2; page <= 10; page++) queries.parse(`page=${page}`, productsQuery);
    expect(queries.parse("page=1", productsQuery)).toBe(first); // asked again: now the most recent
    for (let page = 11; page <= 20; page++) queries.parse(`page=${page}`, productsQuery);
    const afresh = queries.parse("page=1", productsQuery);
    expect(afresh).not.toBe(first);
    expect(afresh).toEqual(first);
    const none = new ParsedQueries(0, PREVIEW);
    expect(none.parse("page=1", productsQuery)).not.toBe(none.parse("page=1", productsQuery));
  });

  it("keeps definitions apart: one string, each definition's own answer or refusal", () => {
    const queries = new ParsedQueries(100, PREVIEW);
    expect(queries.parse("sort=label.asc", productsQuery).query.sort).toEqual(
      parseQuery(new URLSearchParams("sort=label.asc"), productsQuery, PREVIEW).sort,
    );
    expect(queries.parse("page=2", familiesQuery).query).toEqual(
      parseQuery(new URLSearchParams("page=2"), familiesQuery, PREVIEW),
    );
    expect(() => queries.parse("familyId=fam_abc", familiesQuery)).toThrow(PublicApiError);
    expect(queries.parse("familyId=fam_abc", productsQuery).query.familyId).toBe("fam_abc");
  });

  it("parses under its own preview features: without `details`, `ids` is an unknown parameter", () => {
    expect(() => new ParsedQueries(100).parse("ids=prd_a", productsQuery)).toThrow(PublicApiError);
    expect(new ParsedQueries(100, PREVIEW).parse("ids=prd_a", productsQuery).query.ids).toEqual(["prd_a"]);
  });
});
