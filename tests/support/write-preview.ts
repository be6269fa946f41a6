// The write preview's test fixture: an API on one driver with PUBLIC_API_WRITE_PREVIEW on, a key with
// products:write, and a family of acme with a valid value for each of its required attributes, so that a test builds
// a creatable body in one call. Used by the creation, idempotency, concurrency and property suites.
import { expect } from "vitest";
import { displayPrefix, generateApiKey, hashApiKey } from "@/lib/keys/format";
import { READ_SCOPES, WRITE_SCOPE } from "@/lib/keys/scopes";
import { newId } from "@/db/schema";
import * as products from "@/app/public/v1/products/route";
import { setupApi, type ApiFixture } from "./api";

// Inserts a key of an organization with the given scopes; returns its secret.
export async function insertKey(f: ApiFixture, orgId: string, scopes: readonly string[]): Promise<string> {
  const key = generateApiKey();
  await f.db.query(
    `insert into api_keys (id, org_id, name, prefix, key_hash, scopes) values ($1, $2, 'test', $3, $4, $5)`,
    [newId("key"), orgId, displayPrefix(key), hashApiKey(key), scopes],
  );
  return key;
}

// A valid value of an attribute as its detail (GET /public/v1/attributes/{id}) describes it: its type, its first
// option; a MEDIA value is the media given, a text is made unique with `unique`.
export function valueFromDetail(
  attribute: Record<string, any>, // eslint-disable-line @typescript-eslint/no-explicit-any
  mediaId: string,
  unique: string,
): unknown {
  switch (attribute.type) {
    case "TEXT":
    case "TEXTAREA":
      return `${attribute.label} ${unique}`;
    case "NUMBER":
      return 12.5;
    case "PRICE":
      return { EUR: 19.9 };
    case "BOOLEAN":
      return true;
    case "DATE":
      return "2026-11-25";
    case "SELECT":
      return attribute.options[0].code;
    case "MULTI_SELECT":
      return [attribute.options[0].code];
    case "MEDIA":
      return mediaId;
    default:
      throw new Error(`a type the test does not know: ${attribute.type}`);
  }
}

// A body the write preview accepts: a family, a category and a value for each of the family's required attributes.
export interface CreatableBody {
  familyId: string;
  categoryId: string;
  values: Record<string, unknown>;
}

// Creatable bodies built from the API as a client reads it (`get`: a GET's parsed 200 answer): per family, its first
// category and a value for each required attribute (the SKU left to the server). A family that requires a MEDIA
// value is left out: a run could make that media private.
export async function creatableBodies(
  get: (path: string) => Promise<Record<string, any>>, // eslint-disable-line @typescript-eslint/no-explicit-any
): Promise<CreatableBody[]> {
  const category = (await get("/public/v1/categories?perPage=1")).data[0];
  const media = (await get("/public/v1/media?perPage=1")).data[0];
  const bodies: CreatableBody[] = [];
  for (const family of (await get("/public/v1/families?perPage=100")).data) {
    const attributes: { id: string; code: string; type: string; required: boolean }[] = (
      await get(`/public/v1/families/${family.id}`)
    ).attributes;
    const required = attributes.filter((a) => a.required);
    if (required.some((a) => a.type === "MEDIA")) continue;
    const values: Record<string, unknown> = {};
    for (const a of required)
      values[a.code] = valueFromDetail(await get(`/public/v1/attributes/${a.id}`), media.id, "");
    bodies.push({ familyId: family.id, categoryId: category.id, values });
  }
  expect(bodies.length).toBeGreaterThan(0);
  return bodies;
}

// An answer of the route, its body parsed.
export interface PostAnswer {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

// Posts a body (a value is sent as JSON, a string as it is) to the route, as Next.js would.
export async function postProduct(
  key: string | null,
  body: unknown,
  headers: Record<string, string> = { "content-type": "application/json" },
  query = "",
): Promise<PostAnswer> {
  const h: Record<string, string> = { ...headers };
  if (key) h.authorization = `Bearer ${key}`;
  const res = await products.POST(
    new Request(`http://api.test/public/v1/products${query}`, {
      method: "POST",
      headers: h,
      // Bytes, so that no content type is added by the Request constructor itself.
      body: new TextEncoder().encode(typeof body === "string" ? body : JSON.stringify(body)),
    }),
  );
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : undefined };
}

// The exact error body of a write refusal.
export function refusal(
  statusCode: number,
  error: string,
  code: string,
  message: string,
  details: { field: string; code: string; message?: unknown }[],
) {
  return {
    statusCode,
    error,
    code,
    message,
    requestId: expect.any(String),
    details: details.map((d) => ({ field: d.field, code: d.code, message: d.message ?? expect.any(String) })),
  };
}

// The fixture: the API, a writer key of acme, a family and a category of acme and of globex, a valid body maker.
export interface WriteFixture {
  f: ApiFixture;
  writer: string;
  familyId: string;
  categoryId: string;
  otherFamilyId: string;
  otherCategoryId: string;
  /** An attribute of acme that the family does not have. */
  outsider: string;
  /** A valid value for each required attribute of the family but the SKU, and a name. */
  base: Record<string, unknown>;
  /** A new SKU each call. */
  sku(): string;
  /** A creatable body: base values, a new SKU, then `values` and `extra` laid over them. */
  body(
    values?: Record<string, unknown>,
    extra?: Record<string, unknown>,
  ): Record<string, unknown> & {
    values: Record<string, unknown>;
  };
  one<T>(sql: string, params: unknown[]): Promise<T>;
}

// Sets the fixture up on a driver (the embedded PGlite or the Postgres server of TEST_DATABASE_URL).
export async function setupWritePreview(
  driver: "pglite" | "pg",
  env: Record<string, string> = {},
): Promise<WriteFixture> {
  const f = await setupApi(driver, { PUBLIC_API_WRITE_PREVIEW: "true", ...env });
  const one = async <T>(sql: string, params: unknown[]): Promise<T> => {
    const [row] = await f.db.query<T>(sql, params);
    if (!row) throw new Error(`no row: ${sql}`);
    return row;
  };
  const org = f.acme.orgId;
  const writer = await insertKey(f, org, [...READ_SCOPES, WRITE_SCOPE]);
  const familyId = (
    await one<{ id: string }>("select id from families where org_id = $1 order by code limit 1", [org])
  ).id;
  const categoryId = (
    await one<{ id: string }>("select id from categories where org_id = $1 order by slug limit 1", [org])
  ).id;
  const otherFamilyId = (
    await one<{ id: string }>("select id from families where org_id = $1 limit 1", [f.globex.orgId])
  ).id;
  const otherCategoryId = (
    await one<{ id: string }>("select id from categories where org_id = $1 limit 1", [f.globex.orgId])
  ).id;
  // A valid value for every required attribute of the family.
  const required = await f.db.query<{ id: string; code: string; type: string }>(
    `select a.id, a.code, a.type from family_attributes fa join attributes a on a.id = fa.attribute_id
      where fa.org_id = $1 and fa.family_id = $2 and fa.is_required`,
    [org, familyId],
  );
  const base: Record<string, unknown> = {};
  for (const a of required) {
    if (a.code === "sku") continue;
    if (a.type === "SELECT" || a.type === "MULTI_SELECT") {
      // Its first option (attribute_options).
      const { code } = await one<{ code: string }>(
        "select code from attribute_options where org_id = $1 and attribute_id = $2 order by position, code limit 1",
        [org, a.id],
      );
      base[a.code] = a.type === "SELECT" ? code : [code];
    } else {
      base[a.code] = (
        {
          TEXT: "Chaise test",
          TEXTAREA: "Une description.",
          NUMBER: 1.5,
          PRICE: { EUR: 19.99 },
          BOOLEAN: true,
          DATE: "2026-01-31",
        } as Record<string, unknown>
      )[a.type];
    }
  }
  base.name = "Chaise test";
  const outsider = (
    await one<{ code: string }>(
      `select code from attributes a where org_id = $1 and type = 'TEXT'
        and not exists (select 1 from family_attributes fa where fa.family_id = $2 and fa.attribute_id = a.id)
      order by code limit 1`,
      [org, familyId],
    )
  ).code;
  let n = 0;
  const sku = () => `TEST-SKU-${driver}-${Date.now().toString(36)}-${++n}`;
  return {
    f,
    writer,
    familyId,
    categoryId,
    otherFamilyId,
    otherCategoryId,
    outsider,
    base,
    sku,
    body: (values = {}, extra = {}) => ({
      familyId,
      categoryId,
      values: { ...base, sku: sku(), ...values },
      ...extra,
    }),
    one,
  };
}
