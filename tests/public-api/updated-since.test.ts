// updatedSince on every list, on PGlite and on the Postgres server: inclusive to the millisecond in any time zone,
// combinable with filters, sorts and search, and refused in French outside the years 0001-9999 in UTC.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RESOURCES, call } from "../support/api";
import { postProduct, setupWritePreview, type WriteFixture } from "../support/write-preview";

describe.each(["pglite", "pg"] as const)("updatedSince on %s", (driver) => {
  let w: WriteFixture;
  const acme = () => w.f.acme.full;
  const get = (path: string, key: string | null = acme()) => call(path, { key });
  const q = (sql: string, params: unknown[] = []) => w.f.db.query(sql, params);

  beforeAll(async () => {
    w = await setupWritePreview(driver);
  }, 120_000);
  afterAll(async () => {
    await w?.f.close();
  });

  describe("updatedSince", () => {
    let id: string;
    const at = "2031-03-04T05:06:07.089Z"; // later than every seeded product
    beforeAll(async () => {
      const created = await postProduct(w.writer, w.body());
      id = created.body.id;
      await q("update products set updated_at = $2::timestamptz where id = $1", [id, at]);
    });
    const ids = async (query: string) =>
      (await get(`/public/v1/products?${query}`)).body.data.map((p: { id: string }) => p.id);

    it("includes the equal instant, excludes one millisecond later, in any time zone", async () => {
      expect(await ids(`updatedSince=${at}`)).toEqual([id]);
      expect(await ids("updatedSince=2031-03-04T05:06:07.090Z")).toEqual([]);
      expect(await ids(`updatedSince=${encodeURIComponent("2031-03-04T07:06:07.089+02:00")}`)).toEqual([id]);
      expect(await ids(`updatedSince=${encodeURIComponent("2031-03-03T23:36:07.089-05:30")}`)).toEqual([id]);
      expect(await ids(`updatedSince=${encodeURIComponent("2031-03-04T07:06:07.090+02:00")}`)).toEqual([]);
      expect(await ids("updatedSince=2031-03-04T05:06Z")).toEqual([id]);
    });

    it("combines with filters, sorts and search, and pages past the end with the true total", async () => {
      const [p] = (await q("select identifier, family_id from products where id = $1", [id])) as {
        identifier: string;
        family_id: string;
      }[];
      expect(
        await ids(`updatedSince=${at}&familyId=${p!.family_id}&sort=label.asc&q=${p!.identifier}`),
      ).toEqual([id]);
      const past = await get(`/public/v1/products?updatedSince=${at}&page=3&perPage=1`);
      expect(past.status).toBe(200);
      expect(past.body).toEqual({
        data: [],
        pagination: { page: 3, perPage: 1, total: 1, totalPages: 1, hasAny: true },
      });
      const recent = await get("/public/v1/products?updatedSince=2000-01-01T00:00:00Z&perPage=1");
      const all = await get("/public/v1/products?perPage=1");
      expect(recent.body.pagination.total).toBe(all.body.pagination.total);
    });

    it.each(RESOURCES)("%s takes it", async (r) => {
      const res = await get(`/public/v1/${r}?updatedSince=2000-01-01T00:00:00.000Z&perPage=1`);
      expect(res.status).toBe(200);
      const none = await get(`/public/v1/${r}?updatedSince=2099-01-01T00:00:00.000Z`);
      expect(none.body.pagination.total).toBe(0);
    });

    it.each([
      "2031-03-04",
      "2031-03-04T05:06:07",
      "2031-03-04T05:06:07.0891Z",
      "2031-02-30T00:00:00Z",
      "2031-03-04T24:00:00Z",
      "2031-03-04T05:06:07+2",
      "yesterday",
      "",
    ])("400 naming updatedSince for %j", async (v) => {
      const res = await get(`/public/v1/products?updatedSince=${encodeURIComponent(v)}`);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("PUBLIC_API_INVALID_QUERY");
      expect(res.body.message).toContain("« updatedSince »");
      expect(res.headers.get("etag")).toBeNull();
    });
  });

  // Issue 21, row 3: an instant outside the years 0001-9999 in UTC was a 500 on every list (Postgres refuses year 0
  // and year 10000); "yesterday" was refused with zod's English "Invalid input".
  describe("updatedSince within the years 0001 to 9999 in UTC", () => {
    const RANGE =
      "instant compris entre 0001-01-01T00:00:00Z et 9999-12-31T23:59:59.999Z en UTC attendu, en ISO 8601 avec fuseau horaire (ex. 2026-06-07T09:30:12.345Z)";
    const FORM = "date et heure ISO 8601 avec fuseau horaire attendue (ex. 2026-06-07T09:30:12.345Z)";
    const refused: [string, string][] = [
      ["0000-01-01T00:00:00Z", RANGE],
      ["0001-01-01T00:00:00+01:00", RANGE],
      ["0001-01-01T00:59:59.999+01:00", RANGE],
      ["9999-12-31T23:59:59.999-23:59", RANGE],
      ["9999-12-31T23:00:00-01:00", RANGE],
      ["yesterday", FORM],
      ["2031-02-30T00:00:00Z", FORM],
      ["", FORM],
    ];
    describe.each(RESOURCES)("/public/v1/%s", (r) => {
      it.each(refused)("400 in French for %j, naming the expected form", async (v, expected) => {
        const res = await get(`/public/v1/${r}?updatedSince=${encodeURIComponent(v)}`);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          statusCode: 400,
          error: "Bad Request",
          code: "PUBLIC_API_INVALID_QUERY",
          message: `Paramètre « updatedSince » invalide : ${expected} (reçu « ${v} »).`,
          requestId: expect.any(String),
        });
      });

      it("takes the first and the last instants of the range, in any time zone", async () => {
        const total = (await get(`/public/v1/${r}?perPage=1`)).body.pagination.total;
        for (const v of ["0001-01-01T00:00:00Z", "0001-01-01T00:00:00-01:00", "0001-01-01T01:00+01:00"]) {
          const res = await get(`/public/v1/${r}?perPage=1&updatedSince=${encodeURIComponent(v)}`);
          expect(res.status, v).toBe(200);
          expect(res.body.pagination.total, v).toBe(total);
        }
        for (const v of [
          "9999-12-31T23:59:59.999Z",
          "9999-12-31T23:59:59.999+23:59",
          "9999-12-31T22:59-01:00",
        ]) {
          const res = await get(`/public/v1/${r}?updatedSince=${encodeURIComponent(v)}`);
          expect(res.status, v).toBe(200);
          expect(res.body.pagination.total, v).toBe(0);
        }
      });
    });
  });
});
