// Reads by ids (preview `details`): `ids=` on every list and `identifiers=` on products answer the list's ordinary
// answer restricted to the items they name. Held against the plain list itself, walked whole and filtered here, for
// every list with filters, sorts and pages combined, on both drivers, with the products in memory or not: another
// organization's ids, unknown and malformed ones are absent (never a 500), more than 100 values is the 400 of the
// contract's shape, duplicates are one value (one query, one ETag), a request counts one against the rate limit,
// and the answer follows writes to the items it names (no page cache, count or index serves a stale one). Preview
// off, both parameters are unknown as any other name.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { call, setupApi, type ApiFixture } from "../support/api";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Item = Record<string, any>;

const LISTS = ["products", "families", "attributes", "categories", "media", "channels"] as const;
type List = (typeof LISTS)[number];

// Values that name nothing and must never break a list: too long for an id, control characters, a NUL, SQL.
const MALFORMED = ["a".repeat(200), "x\u0001y", "\u0000", "' or 1=1 --", "prd_%"];
// The same, as raw query text: a lone surrogate's UTF-8 bytes and an invalid byte.
const MALFORMED_RAW = ["%ED%A0%80", "%FF"];

// The pagination object of a page of a list of `total` items.
const paginationOf = (page: number, perPage: number, total: number) => ({
  page,
  perPage,
  total,
  totalPages: total === 0 ? 0 : Math.ceil(total / perPage),
  hasAny: total > 0,
});

// A list of values as one query parameter's value (each percent-encoded, comma-separated).
const joined = (values: readonly string[]) => values.map(encodeURIComponent).join(",");

// Every k-th item, about `n` of them.
const spread = <T>(items: readonly T[], n: number): T[] =>
  items.filter((_, i) => i % Math.max(1, Math.floor(items.length / n)) === 0).slice(0, n);

function suite(driver: "pglite" | "pg", memory: boolean) {
  describe(`${driver}${memory ? ", products in memory" : ""}`, () => {
    let fx: ApiFixture;
    let key: string;
    let org: string;
    const get = (path: string, headers: Record<string, string> = {}, k = key) =>
      call(path, { key: k, headers });

    // Every item of a list (all pages of 100), as the plain list answers it.
    async function whole(list: List, filters = "", k = key): Promise<Item[]> {
      const items: Item[] = [];
      for (let page = 1; ; page++) {
        const res = await get(`/public/v1/${list}?${filters}&perPage=100&page=${page}`, {}, k);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        items.push(...res.body.data);
        if (page >= res.body.pagination.totalPages) return items;
      }
    }

    // The list restricted to `names` equals the plain list with the same filters, walked whole and kept to the items
    // named (by id, by identifier, or both), on every page asked.
    async function expectRestricted(
      list: List,
      filters: string,
      names: { ids?: string; identifiers?: string },
      keep: (item: Item) => boolean,
      pages: [perPage: number, page: number][] = [
        [100, 1],
        [7, 1],
        [7, 2],
        [7, 5],
        [3, 1000],
      ],
    ): Promise<Item[]> {
      const expected = (await whole(list, filters)).filter(keep);
      const named = [
        names.ids === undefined ? "" : `&ids=${names.ids}`,
        names.identifiers === undefined ? "" : `&identifiers=${names.identifiers}`,
      ].join("");
      for (const [perPage, page] of pages) {
        const res = await get(`/public/v1/${list}?${filters}${named}&perPage=${perPage}&page=${page}`);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.body, `${list}?${filters} perPage=${perPage} page=${page}`).toEqual({
          data: expected.slice((page - 1) * perPage, page * perPage),
          pagination: paginationOf(page, perPage, expected.length),
        });
      }
      return expected;
    }

    // Per list: about 30 items of the organization, and a few of the other's.
    const mine = {} as Record<List, Item[]>;
    const theirs = {} as Record<List, Item[]>;
    // The named ids of a list: its own, the other organization's, unknown and malformed ones, duplicates; split
    // over two repeated parameters, with empty values and raw malformed bytes.
    const namesOf = (list: List) => {
      const ids = [
        ...mine[list].map((i) => i.id as string),
        ...theirs[list].map((i) => i.id as string),
        `${String(mine[list][0]!.id).split("_")[0]}_nothingHere000000`,
        ...MALFORMED,
        ...mine[list].slice(0, 3).map((i) => i.id as string),
      ];
      const half = Math.floor(ids.length / 2);
      return `${joined(ids.slice(0, half))},,${MALFORMED_RAW.join(",")}&ids=${joined(ids.slice(half))},`;
    };
    const isMine = (list: List) => {
      const ids = new Set(mine[list].map((i) => i.id));
      return (item: Item) => ids.has(item.id);
    };

    beforeAll(async () => {
      fx = await setupApi(driver, {
        PUBLIC_API_PREVIEW: "details",
        ...(memory ? { CATALOG_MEMORY_MIN_PRODUCTS: "0" } : { CATALOG_MEMORY_MAX_PRODUCTS: "0" }),
      });
      key = fx.acme.full;
      org = fx.acme.orgId;
      for (const list of LISTS) {
        mine[list] = spread(await whole(list), 30);
        theirs[list] = spread(await whole(list, "", fx.globex.full), 3);
        expect(mine[list].length, list).toBeGreaterThan(1);
      }
      if (memory) {
        const index = (await fx.runtime.catalog()).memory!;
        await vi.waitFor(() => expect(index.index(org)).toBeDefined(), { timeout: 30_000 });
      }
    });
    afterAll(async () => {
      await fx?.close();
    });

    it("products: every filter, sort and page of the plain list, restricted to the named ones", async () => {
      const n = mine.products;
      const word = String(n[2]!.label)
        .split(/\s+/)
        .find((w) => w.length >= 4)!;
      const since = n.map((i) => i.updatedAt as string).sort()[Math.floor(n.length / 2)]!;
      const channel = (await get("/public/v1/channels?perPage=1")).body.data[0].id;
      for (const filters of [
        "",
        "sort=label.asc",
        `familyId=${n[0]!.family.id}&sort=identifier.desc`,
        `categoryId=${n[1]!.category.id}&sort=updatedAt.asc`,
        `q=${encodeURIComponent(word)}`,
        `updatedSince=${encodeURIComponent(since)}&sort=status.asc,label.desc`,
        `channelId=${channel}&sort=label.desc`,
      ]) {
        const expected = await expectRestricted(
          "products",
          filters,
          { ids: namesOf("products") },
          isMine("products"),
        );
        if (filters === "") expect(expected).toHaveLength(n.length);
      }
      if (memory) {
        // The plain lists above were the index's pages; a read by ids is never one.
        const page = vi.spyOn((await fx.runtime.catalog()).memory!.index(org)!, "pageSlots");
        await get("/public/v1/products?sort=label.asc&perPage=17&page=3");
        expect(page).toHaveBeenCalledTimes(1);
        await get(`/public/v1/products?ids=${namesOf("products")}&sort=label.asc&perPage=17`);
        expect(page).toHaveBeenCalledTimes(1);
        page.mockRestore();
      }
    });

    it("families, attributes, categories, media and channels: filters, sorts and pages", async () => {
      const a = mine.attributes;
      const media = mine.media;
      const cases: [List, string[]][] = [
        ["families", ["", "sort=code.asc", `q=${encodeURIComponent(mine.families[0]!.code)}`]],
        [
          "attributes",
          [
            "",
            `type=${a[0]!.type},${a[1]!.type}`,
            "isScopable=true&sort=label.asc",
            "uniqueValue=false&sort=type.desc,code.asc",
            `familyId=${mine.families[0]!.id}`,
          ],
        ],
        [
          "categories",
          [
            "",
            "parentId=null",
            "isMaster=true&sort=slug.desc",
            `q=${encodeURIComponent(mine.categories[1]!.slug)}`,
          ],
        ],
        [
          "media",
          [
            "",
            `type=${media[0]!.type}`,
            "orphansOnly=true&sort=originalName.asc",
            `category=${encodeURIComponent(media[1]!.category)}`,
            "sort=category.desc,slug.asc",
          ],
        ],
        ["channels", ["", "sort=code.desc", `q=${encodeURIComponent(mine.channels[0]!.code)}`]],
      ];
      for (const [list, filters] of cases) {
        for (const f of filters) {
          const expected = await expectRestricted(list, f, { ids: namesOf(list) }, isMine(list));
          if (f === "") expect(expected, list).toHaveLength(mine[list].length);
        }
      }
    });

    it("products by identifier (SKU values), alone, filtered, and with ids (those named by both)", async () => {
      const n = mine.products;
      const skus = [
        ...n.map((i) => i.identifier as string),
        ...theirs.products.map((i) => i.identifier as string),
        "NO-SUCH-SKU",
        "\u0000",
        "' or 1=1 --",
        n[0]!.identifier,
      ];
      const named = new Set(n.map((i) => i.identifier));
      const bySku = (item: Item) => named.has(item.identifier);
      await expectRestricted("products", "", { identifiers: joined(skus) }, bySku);
      await expectRestricted("products", "sort=label.asc", { identifiers: joined(skus) }, bySku);
      await expectRestricted("products", `familyId=${n[0]!.family.id}`, { identifiers: joined(skus) }, bySku);
      // Both: ids of the first twenty, identifiers from the tenth on: the tenth to the twentieth.
      const ids = new Set(n.slice(0, 20).map((i) => i.id));
      const later = new Set(n.slice(10).map((i) => i.identifier));
      const both = await expectRestricted(
        "products",
        "sort=identifier.asc",
        { ids: joined([...ids]), identifiers: joined([...later]) },
        (item) => ids.has(item.id) && later.has(item.identifier),
      );
      expect(both).toHaveLength(10);
      // identifiers is the products' alone: any other list refuses it as an unknown parameter.
      for (const list of LISTS.filter((l) => l !== "products")) {
        const res = await get(`/public/v1/${list}?identifiers=X`);
        expect(res.status, list).toBe(400);
        expect(res.body.message, list).toMatch(
          /^Paramètre « identifiers » inconnu\. Paramètres acceptés : .*ids\.$/,
        );
      }
    });

    it("another organization's ids are absent, for either key", async () => {
      for (const list of LISTS.filter((l) => theirs[l].length > 0)) {
        const theirIds = joined(theirs[list].map((i) => i.id));
        const mineIds = joined(mine[list].map((i) => i.id));
        const res = await get(`/public/v1/${list}?ids=${theirIds}`);
        expect(res.body, list).toEqual({ data: [], pagination: paginationOf(1, 20, 0) });
        const other = await get(`/public/v1/${list}?ids=${mineIds}`, {}, fx.globex.full);
        expect(other.body, list).toEqual({ data: [], pagination: paginationOf(1, 20, 0) });
      }
      const res = await get(
        `/public/v1/products?identifiers=${joined(theirs.products.map((i) => i.identifier))}`,
      );
      expect(res.body.pagination.total).toBe(0);
    });

    it("unknown and malformed ids alone: an empty list, never a 500", async () => {
      for (const list of LISTS) {
        for (const query of [
          `ids=${joined(MALFORMED)}`,
          `ids=${MALFORMED_RAW.join(",")}`,
          "ids=%00",
          `ids=${"9".repeat(5000)}`,
          "ids=nothing,nothing,nothing",
        ]) {
          const res = await get(`/public/v1/${list}?${query}`);
          expect(res.status, `${list}?${query.slice(0, 40)}`).toBe(200);
          expect(res.body.pagination.total).toBe(0);
        }
      }
      const res = await get(`/public/v1/products?identifiers=${"Z".repeat(20_000)},%00,%ED%A0%80`);
      expect(res.status).toBe(200);
      expect(res.body.pagination.total).toBe(0);
    });

    it("more than 100 values: the 400 naming the parameter; empty: the 400 of what it expects", async () => {
      const many = Array.from({ length: 101 }, (_, i) => `prd_${String(i).padStart(3, "0")}`).join(",");
      const sent = `${many.slice(0, 60)}…`;
      for (const list of LISTS) {
        const res = await get(`/public/v1/${list}?ids=${many}`);
        expect(res.body, list).toEqual({
          statusCode: 400,
          message: `Paramètre « ids » invalide : au plus 100 valeurs séparées par des virgules attendues, 101 reçues (reçu « ${sent} »).`,
          error: "Bad Request",
          code: "PUBLIC_API_INVALID_QUERY",
          requestId: res.headers.get("x-request-id"),
        });
        // Values as sent: a hundred and one, however many are distinct or split over repeated parameters.
        const repeated = Array.from({ length: 101 }, (_, i) => `ids=prd_${i % 7}`).join("&");
        expect((await get(`/public/v1/${list}?${repeated}`)).status, list).toBe(400);
        // A hundred: taken.
        expect((await get(`/public/v1/${list}?ids=${many.slice(0, many.lastIndexOf(","))}`)).status).toBe(
          200,
        );
        for (const empty of ["ids=", "ids=,", "ids=%20,%20"]) {
          const none = await get(`/public/v1/${list}?${empty}`);
          expect(none.status, `${list}?${empty}`).toBe(400);
          expect(none.body.message).toBe(
            "Paramètre « ids » invalide : liste de 1 à 100 identifiants séparés par des virgules attendue (reçu «  »).",
          );
        }
      }
      const skus = await get(`/public/v1/products?identifiers=${many}`);
      expect(skus.body).toEqual({
        statusCode: 400,
        message: `Paramètre « identifiers » invalide : au plus 100 valeurs séparées par des virgules attendues, 101 reçues (reçu « ${sent} »).`,
        error: "Bad Request",
        code: "PUBLIC_API_INVALID_QUERY",
        requestId: skus.headers.get("x-request-id"),
      });
      // Each parameter has its own hundred.
      const hundred = many.slice(0, many.lastIndexOf(","));
      expect((await get(`/public/v1/products?ids=${hundred}&identifiers=${hundred}`)).status).toBe(200);
    });

    it("one set is one query: in any order, with duplicates, one ETag and one page-cache entry", async () => {
      const [a, b, c] = mine.products.map((i) => i.id as string);
      const first = await get(`/public/v1/products?ids=${a},${b},${c}`);
      const again = await get(`/public/v1/products?ids=${c},${a}&ids=${b},${a},,`);
      expect(again.body).toEqual(first.body);
      expect(again.headers.get("etag")).toBe(first.headers.get("etag"));
      expect(again.headers.get("server-timing")).toBe("page-cache;desc=hit");
      expect(
        (await get(`/public/v1/products?ids=${a},${b},${c}`, { "if-none-match": first.headers.get("etag")! }))
          .status,
      ).toBe(304);
      // Two sets whose answers have the same bytes (both empty) are two answers, each with its own tag.
      const none1 = await get("/public/v1/products?ids=prd_none1");
      const none2 = await get("/public/v1/products?ids=prd_none2");
      expect(none2.body).toEqual(none1.body);
      expect(none2.headers.get("etag")).not.toBe(none1.headers.get("etag"));
      expect(none2.headers.get("server-timing")).toBe("page-cache;desc=miss");
      // Not the plain list's entry either.
      const plain = await get("/public/v1/products");
      expect(plain.headers.get("etag")).not.toBe(first.headers.get("etag"));
      expect(plain.body.pagination.total).toBeGreaterThan(first.body.pagination.total);
    });

    it("a request with a hundred ids counts one against the rate limit", async () => {
      const own = mine.products.map((i) => i.id as string);
      const hundred = joined([...own, ...Array.from({ length: 100 - own.length }, (_, i) => `prd_pad${i}`)]);
      const remaining = async (path: string) => {
        const h = (await get(path)).headers;
        return { left: Number(h.get("x-ratelimit-remaining")), reset: h.get("x-ratelimit-reset") };
      };
      // Three requests within one window of the limit (a window that ends between them starts the count again).
      for (let attempt = 0; ; attempt++) {
        const before = await remaining("/public/v1/products?perPage=1");
        const during = await remaining(`/public/v1/products?ids=${hundred}`);
        const after = await remaining("/public/v1/products?perPage=1");
        if (attempt < 3 && new Set([before.reset, during.reset, after.reset]).size > 1) continue;
        expect([before.left - during.left, during.left - after.left]).toEqual([1, 1]);
        break;
      }
    });

    it("follows writes to the named items: updated, moved out of a filter, deleted, relabelled elsewhere", async () => {
      const n = mine.products.slice(0, 12);
      const ids = joined(n.map((i) => i.id));
      const keep = (gone: Set<string>) => (item: Item) =>
        n.some((i) => i.id === item.id) && !gone.has(item.id);
      const gone = new Set<string>();
      const path = `/public/v1/products?ids=${ids}&sort=label.asc&perPage=100`;
      const before = await get(path);
      await expectRestricted("products", "sort=label.asc", { ids }, keep(gone), [
        [100, 1],
        [5, 2],
      ]);
      // A label: the item shows it and moves in the label order; the old tag is no longer this answer's.
      await fx.db.query("update products set label = 'Zzz ' || label where org_id = $1 and id = $2", [
        org,
        n[0]!.id,
      ]);
      const relabelled = await get(path, { "if-none-match": before.headers.get("etag")! });
      expect(relabelled.status).toBe(200);
      expect(relabelled.body.data.at(-1).id).toBe(n[0]!.id);
      await expectRestricted("products", "sort=label.asc", { ids }, keep(gone), [
        [100, 1],
        [5, 3],
      ]);
      // A family: out of the family's restricted list, into the other's.
      const family = n[1]!.family.id;
      const [other] = await fx.db.query<{ id: string }>(
        "select id from families where org_id = $1 and id <> $2 order by id limit 1",
        [org, family],
      );
      const inFamily = await get(`/public/v1/products?ids=${ids}&familyId=${family}`);
      await fx.db.query("update products set family_id = $3 where org_id = $1 and id = $2", [
        org,
        n[1]!.id,
        other!.id,
      ]);
      const outOfFamily = await get(`/public/v1/products?ids=${ids}&familyId=${family}`);
      expect(outOfFamily.body.pagination.total).toBe(inFamily.body.pagination.total - 1);
      await expectRestricted("products", `familyId=${family}`, { ids }, keep(gone));
      await expectRestricted("products", `familyId=${other!.id}`, { ids }, keep(gone));
      // Deleted: absent, the total one less.
      await fx.db.query("delete from products where org_id = $1 and id = $2", [org, n[2]!.id]);
      gone.add(n[2]!.id);
      const deleted = await get(path);
      expect(deleted.body.pagination.total).toBe(relabelled.body.pagination.total - 1);
      await expectRestricted("products", "sort=label.asc", { ids }, keep(gone));
      await expectRestricted("products", "", { identifiers: joined(n.map((i) => i.identifier)) }, keep(gone));
      // A family relabelled: the named products of that family show its new label.
      await fx.db.query("update families set label = 'Famille renommée' where org_id = $1 and id = $2", [
        org,
        other!.id,
      ]);
      const shown = await get(path);
      expect(shown.body.data.find((i: Item) => i.id === n[1]!.id).family.label).toBe("Famille renommée");
      await expectRestricted("products", "sort=label.asc", { ids }, keep(gone));
      // A write to a product not named leaves the answer, and its tag, as they were.
      const current = await get(path);
      const unnamed = (await whole("products")).find((i) => !n.some((m) => m.id === i.id))!;
      await fx.db.query("update products set label = label || ' bis' where org_id = $1 and id = $2", [
        org,
        unnamed.id,
      ]);
      expect((await get(path, { "if-none-match": current.headers.get("etag")! })).status).toBe(304);
      // The other lists follow theirs: a family's label, a category deleted out of the named ones' reach.
      const families = joined(mine.families.map((i) => i.id));
      await fx.db.query("update families set label = label || ' (2)' where org_id = $1 and id = $2", [
        org,
        mine.families[0]!.id,
      ]);
      await expectRestricted("families", "sort=label.asc", { ids: families }, isMine("families"));
      const media = joined(mine.media.map((i) => i.id));
      await fx.db.query("update media set is_public = false where org_id = $1 and id = $2", [
        org,
        mine.media[0]!.id,
      ]);
      const hidden = await expectRestricted("media", "", { ids: media }, isMine("media"));
      expect(hidden.some((i) => i.id === mine.media[0]!.id)).toBe(false);
    });
  });
}

suite("pglite", false);
suite("pg", false);
suite("pglite", true);
suite("pg", true);

// Preview off: V1 as it was, `ids` and `identifiers` unknown parameters like any other name.
describe.each(["pglite", "pg"] as const)("preview off on %s", (driver) => {
  let fx: ApiFixture;
  beforeAll(async () => {
    fx = await setupApi(driver);
  });
  afterAll(async () => {
    await fx?.close();
  });

  it("refuses ids and identifiers as unknown parameters, in the words of any unknown name", async () => {
    const key = fx.acme.full;
    const products = await call("/public/v1/products?ids=x", { key });
    expect(products.body).toEqual({
      statusCode: 400,
      message:
        "Paramètre « ids » inconnu. Paramètres acceptés : page, perPage, q, sort, updatedSince, categoryId, channelId, familyId.",
      error: "Bad Request",
      code: "PUBLIC_API_INVALID_QUERY",
      requestId: products.headers.get("x-request-id"),
    });
    for (const list of LISTS.filter((l) => l !== "channels")) {
      const unknown = (await call(`/public/v1/${list}?per_page=1`, { key })).body.message as string;
      for (const name of ["ids", "identifiers"]) {
        const res = await call(`/public/v1/${list}?${name}=${fx.acme.orgId}`, { key });
        expect(res.status).toBe(400);
        expect(res.body.message).toBe(unknown.replace("« per_page »", `« ${name} »`));
      }
    }
    expect((await call("/public/v1/channels?ids=x", { key })).status).toBe(404);
  });
});
