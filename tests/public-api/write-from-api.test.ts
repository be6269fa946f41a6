// Issue 23: a client builds a valid creation from the API alone. Nothing is hard-coded: the family, its required
// attributes, each one's type and options, a category and a media come from GET answers (the details preview, which
// `writes` turns on), and the first refusal's details name what is missing. The 201's Location then reads the product
// whole. On both drivers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WRITE_SCOPE, READ_SCOPES } from "@/lib/keys/scopes";
import { call, setupApi, type ApiFixture } from "../support/api";
import { insertKey, valueFromDetail } from "../support/write-preview";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe.each(["pglite", "pg"] as const)("a creation built from the API alone, on %s", (driver) => {
  let fx: ApiFixture;
  let key: string;
  beforeAll(async () => {
    fx = await setupApi(driver, { PUBLIC_API_PREVIEW: "writes" });
    key = await insertKey(fx, fx.acme.orgId, [...READ_SCOPES, WRITE_SCOPE]);
  });
  afterAll(async () => {
    await fx?.close();
  });

  const get = async (path: string): Promise<Json> => {
    const res = await call(path, { key });
    expect(res.status, path).toBe(200);
    return res.body as Json;
  };
  const post = (body: unknown) =>
    call("/public/v1/products", {
      key,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  it("every family of the demo: discover, be told what is missing, fill it, 201, read it back at its Location", async () => {
    const families = (await get("/public/v1/families?perPage=100")).data as Json[];
    const category = ((await get("/public/v1/categories?perPage=1")).data as Json[])[0]!;
    const media = ((await get("/public/v1/media?perPage=1")).data as Json[])[0]!;
    expect(families.length).toBeGreaterThan(0);
    for (const family of families) {
      // A body without values: the refusal's details name each required attribute.
      const refused = await post({ familyId: family.id, categoryId: category.id, values: {} });
      expect(refused.status, family.code).toBeGreaterThanOrEqual(400);
      const missing = new Set(
        (refused.body.details as Json[]).filter((d) => d.code === "REQUIRED").map((d) => d.field),
      );
      const detail = await get(`/public/v1/families/${family.id}`);
      const required = (detail.attributes as Json[]).filter((a) => a.required);
      expect(required.length, family.code).toBeGreaterThan(0);
      for (const a of required)
        expect(missing.has(`values.${a.code}`), `${family.code}: ${a.code}`).toBe(true);

      const unique = `${family.code}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
      const values: Record<string, unknown> = {};
      for (const a of required) {
        const attribute = await get(`/public/v1/attributes/${a.id}`);
        values[a.code] = valueFromDetail(attribute, media.id, unique);
      }
      const created = await post({ familyId: family.id, categoryId: category.id, values });
      expect(created.status, `${family.code}: ${JSON.stringify(created.body)}`).toBe(201);
      const location = new URL(created.headers.get("location")!);
      expect(location.href).toBe(`${fx.config.baseUrl}/public/v1/products/${created.body.id}`);
      const read = await get(location.pathname);
      expect(read).toMatchObject({ id: created.body.id, status: "draft", family: { id: family.id } });
      for (const a of required) {
        if (a.type !== "MEDIA")
          expect(read.values[a.code], `${family.code}: ${a.code}`).toEqual(values[a.code]);
      }
    }
  });
});
