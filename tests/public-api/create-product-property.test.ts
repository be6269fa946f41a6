// Property: POST /public/v1/products never answers a 5xx, whatever the body. Bodies are generated from the OpenAPI
// document's request schema (CreateProductRequest and one component per attribute type): valid ones for a family of
// acme (the catalog's attribute codes, options, media and channels filled in), and broken ones (wrong types, unknown
// fields and attributes, missing fields, foreign ids, values too long, a taken SKU, random JSON and random text,
// bodies drawn from the schema alone), some as dry runs or with an Idempotency-Key. Every answer is a documented
// status whose body matches its schema; every valid body is created (201) or drafted (200); every 201 is then listed
// by GET /public/v1/products (q = its SKU) and counted in `total`. On PGlite and on the Postgres server.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createdProductSchema, productDraftSchema } from "@/lib/catalog/resources/schemas";
import { errorBodySchema } from "@/lib/public-api/api-errors";
import { buildOpenApiDocument } from "@/lib/public-api/openapi/document";
import { call } from "../support/api";
import { postProduct, setupWritePreview, type WriteFixture } from "../support/write-preview";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const DOC = buildOpenApiDocument("http://api.test", { preview: ["writes"] }) as Json;
const SCHEMAS = DOC.components.schemas as Record<string, Json>;
const OPERATION = DOC.paths["/public/v1/products"].post as Json;
const DOCUMENTED = new Set(Object.keys(OPERATION.responses));
const TYPE_COMPONENT: Record<string, string> = Object.fromEntries(
  (SCHEMAS.AttributeValue!.anyOf as Json[])
    .filter((a) => a.$ref)
    .map((a) => {
      const name = String(a.$ref).split("/").pop()!;
      return [SCHEMAS[name]!.title as string, name];
    }),
);
// The per-channel alternative of a scopable attribute.
const PER_CHANNEL = (SCHEMAS.AttributeValue!.anyOf as Json[]).find((a) => a.title === "Per channel")!;

const resolve = (s: Json): Json => (s.$ref ? SCHEMAS[String(s.$ref).split("/").pop()!]! : s);

// Strings Postgres cannot store as text or jsonb: NUL, and lone UTF-16 surrogates (both arrive as JSON escapes,
// "\u0000", "\ud800"). The catalog refuses them with a 400 INVALID_TEXT (tested below); left out of the generated
// valid bodies, which must be created.
const storable = (v: unknown): boolean =>
  typeof v === "string"
    ? !/\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(v)
    : Array.isArray(v)
      ? v.every(storable)
      : typeof v === "object" && v !== null
        ? Object.entries(v).every(([k, x]) => storable(k) && storable(x))
        : true;
const jsonValue = () => fc.jsonValue().filter(storable);

// An arbitrary of the values a JSON schema (as the document has it) describes. Strings are kept short (a TEXTAREA's
// 10 000 characters are reached by the "too long" mutation), keys of maps follow `propertyNames`.
function fromSchema(schema: Json, keys?: fc.Arbitrary<string>): fc.Arbitrary<unknown> {
  const s = resolve(schema);
  if (s.anyOf) return fc.oneof(...(s.anyOf as Json[]).map((a) => fromSchema(a)));
  switch (s.type) {
    case "string": {
      if (s.format === "date")
        return fc
          .date({ min: new Date("1900-01-01"), max: new Date("2199-12-31"), noInvalidDate: true })
          .map((d) => d.toISOString().slice(0, 10));
      if (typeof s.pattern === "string" && s.pattern.startsWith("^"))
        return fc.stringMatching(new RegExp(s.pattern));
      const text = fc
        .string({ unit: "grapheme", minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 30, 30) })
        .filter(storable);
      return typeof s.pattern === "string" ? text.filter((t) => new RegExp(s.pattern).test(t)) : text;
    }
    case "number":
      return fc.double({ min: s.minimum ?? -1e12, max: 1e12, noNaN: true, noDefaultInfinity: true });
    case "boolean":
      return fc.boolean();
    case "array": {
      const item = fromSchema(s.items ?? {});
      const size = { minLength: s.minItems ?? 0, maxLength: 3 };
      return s.uniqueItems ? fc.uniqueArray(item, size) : fc.array(item, size);
    }
    case "object": {
      if (s.properties) {
        const props = Object.fromEntries(
          Object.entries(s.properties as Record<string, Json>).map(([k, v]) => [k, fromSchema(v)]),
        );
        return fc.record(props, { requiredKeys: (s.required as string[] | undefined) ?? [] });
      }
      const key = keys ?? (fromSchema(s.propertyNames ?? { type: "string" }) as fc.Arbitrary<string>);
      return fc.dictionary(key, fromSchema(s.additionalProperties ?? {}), {
        minKeys: s.minProperties ?? 0,
        maxKeys: 3,
      });
    }
    default:
      return jsonValue();
  }
}

interface Attribute {
  id: string;
  code: string;
  type: string;
  unique_value: boolean;
  is_scopable: boolean;
  is_required: boolean;
}

// One request: its body (a value sent as JSON, or raw text), a dry run or not, an Idempotency-Key or not.
interface Case {
  kind: string;
  body: unknown;
  raw?: string;
  valid: boolean;
  dryRun: boolean;
  idempotencyKey?: string;
}

// How deeply a value nests objects and arrays (a scalar: 0, the body object: 1), walked without recursion.
function depthOf(root: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    max = Math.max(max, d);
    for (const x of Object.values(v)) stack.push([x, d + 1]);
  }
  return max;
}

const CURRENCY_DIGITS: Record<string, number> = { EUR: 2, USD: 2, JPY: 0, KWD: 3, CHF: 2 };

describe.each(["pglite", "pg"] as const)("POST /public/v1/products on %s (property-based)", (driver) => {
  let w: WriteFixture;
  let attributes: Attribute[];
  let options: Map<string, string[]>;
  let media: string[];
  let channels: string[];
  let takenSku: string;
  let serial = 0;
  const run = Date.now().toString(36).toUpperCase();
  // SKUs of one width, so that q=<sku> (a substring search) finds exactly one product.
  const nextSku = () => `PROP-${driver.toUpperCase()}-${run}-${String(++serial).padStart(6, "0")}`;

  beforeAll(async () => {
    w = await setupWritePreview(driver);
    const org = w.f.acme.orgId;
    attributes = await w.f.db.query<Attribute>(
      `select a.id, a.code, a.type, a.unique_value, a.is_scopable, fa.is_required
         from family_attributes fa join attributes a on a.id = fa.attribute_id
        where fa.org_id = $1 and fa.family_id = $2 order by a.code`,
      [org, w.familyId],
    );
    // The option codes a SELECT or MULTI_SELECT accepts: its options (attribute_options), the first 20.
    options = new Map();
    for (const a of attributes.filter((x) => x.type === "SELECT" || x.type === "MULTI_SELECT")) {
      const rows = await w.f.db.query<{ v: string }>(
        `select code as v from attribute_options where org_id = $1 and attribute_id = $2
          order by position, code limit 20`,
        [org, a.id],
      );
      options.set(
        a.code,
        rows.map((r) => r.v),
      );
      expect(rows.length, a.code).toBeGreaterThan(0);
    }
    media = (
      await w.f.db.query<{ id: string }>("select id from media where org_id = $1 limit 20", [org])
    ).map((m) => m.id);
    channels = (await w.f.db.query<{ id: string }>("select id from channels where org_id = $1", [org])).map(
      (c) => c.id,
    );
    takenSku = (
      await w.one<{ identifier: string }>("select identifier from products where org_id = $1 limit 1", [org])
    ).identifier;
    expect(attributes.some((a) => a.is_required)).toBe(true);
  }, 180_000);

  afterAll(async () => {
    await w?.f.close();
  });

  // A valid value for one attribute of the family: its type's component, the catalog's codes and ids filled in.
  function validValue(a: Attribute): fc.Arbitrary<unknown> {
    if (a.code === "sku") return fc.constant(null).map(() => nextSku());
    if (a.unique_value) return fc.constant(null).map(() => `U-${run}-${++serial}`);
    const one = (): fc.Arbitrary<unknown> => {
      switch (a.type) {
        case "SELECT":
          return fc.constantFrom(...options.get(a.code)!);
        case "MULTI_SELECT":
          return fc.uniqueArray(fc.constantFrom(...options.get(a.code)!), { maxLength: 3 });
        case "MEDIA":
          return fc.oneof(
            fc.constantFrom(...media),
            fc.uniqueArray(fc.constantFrom(...media), { minLength: 1, maxLength: 3 }),
          );
        case "PRICE":
          return fc
            .uniqueArray(fc.constantFrom(...Object.keys(CURRENCY_DIGITS)), { minLength: 1, maxLength: 3 })
            .chain((curs) =>
              fc.tuple(
                ...curs.map((c) =>
                  fc
                    .integer({ min: 0, max: 10_000_000 })
                    .map((n) => [c, n / 10 ** CURRENCY_DIGITS[c]!] as const),
                ),
              ),
            )
            .map((pairs) => Object.fromEntries(pairs));
        case "TEXT":
        case "TEXTAREA":
          // Any grapheme the schema allows (accents, emoji, control characters), not blank.
          return fromSchema(SCHEMAS[TYPE_COMPONENT[a.type]!]!);
        default:
          return fromSchema(SCHEMAS[TYPE_COMPONENT[a.type]!]!);
      }
    };
    if (!a.is_scopable) return one();
    // A scopable attribute: one value, or per channel (the document's per-channel object, on real channel ids).
    return fc.oneof(
      one(),
      fc
        .uniqueArray(fc.constantFrom(...channels), { minLength: 1, maxLength: channels.length })
        .chain((chs) => fc.tuple(...chs.map((c) => one().map((v) => [c, v] as const))))
        .map((pairs) => Object.fromEntries(pairs)),
    );
  }

  // A valid body: every required attribute, some optional ones.
  function validBody(): fc.Arbitrary<{
    familyId: string;
    categoryId: string;
    values: Record<string, unknown>;
  }> {
    const required = attributes.filter((a) => a.is_required || a.code === "sku");
    const optional = attributes.filter((a) => !a.is_required && a.code !== "sku");
    return fc.subarray(optional).chain((extra) =>
      fc
        .tuple(...[...required, ...extra].map((a) => validValue(a).map((v) => [a.code, v] as const)))
        .map((pairs) => ({
          familyId: w.familyId,
          categoryId: w.categoryId,
          values: Object.fromEntries(pairs),
        })),
    );
  }

  const anyValue = () => fc.oneof(...Object.values(TYPE_COMPONENT).map((c) => fromSchema(SCHEMAS[c]!)));
  const randomKey = fc.string({ unit: "grapheme", minLength: 1, maxLength: 20 }).filter(storable);

  // A broken body: a valid one with one thing wrong, or something else entirely.
  function brokenCase(): fc.Arbitrary<Omit<Case, "dryRun" | "idempotencyKey">> {
    const mutate = (kind: string, f: (b: Json) => fc.Arbitrary<unknown>) =>
      validBody().chain((b) => f(structuredClone(b)).map((body) => ({ kind, body, valid: false })));
    const someCode = (b: Json) => fc.constantFrom(...Object.keys(b.values));
    return fc.oneof(
      mutate("wrongType", (b) =>
        fc.tuple(someCode(b), anyValue()).map(([code, v]) => ({ ...b, values: { ...b.values, [code]: v } })),
      ),
      mutate("unknownField", (b) =>
        fc
          .tuple(
            randomKey.filter((k) => !["familyId", "categoryId", "values"].includes(k)),
            jsonValue(),
          )
          .map(([k, v]) => ({ ...b, [k]: v })),
      ),
      // A value nested around the API's limit (32 levels, the body's included) or far past it: the recursive walks
      // overflowed from 3,000 levels (issue 21, row 2).
      mutate("deep", (b) =>
        fc
          .tuple(
            someCode(b),
            fc.oneof(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 40, max: 3_000 })),
            fc.boolean(),
            anyValue(),
          )
          .map(([code, n, arrays, leaf]) => {
            let v: unknown = leaf;
            for (let i = 0; i < n; i++) v = arrays ? [v] : { k: v };
            return { ...b, values: { ...b.values, [code]: v } };
          }),
      ),
      mutate("organizationId", (b) => fc.constant({ ...b, organizationId: w.f.acme.orgId })),
      mutate("unknownAttribute", (b) =>
        fc.tuple(randomKey, anyValue()).map(([k, v]) => ({ ...b, values: { [k]: v, ...b.values } })),
      ),
      mutate("missingField", (b) =>
        fc.constantFrom("familyId", "categoryId", "values").map((k) => {
          delete b[k];
          return b;
        }),
      ),
      mutate("missingRequired", (b) =>
        fc.constantFrom(...attributes.filter((a) => a.is_required).map((a) => a.code)).map((code) => {
          delete b.values[code];
          return b;
        }),
      ),
      mutate("foreignOrRandomIds", (b) =>
        fc
          .record({
            familyId: fc.oneof(
              fc.constant(w.otherFamilyId),
              fc.string({ unit: "grapheme", maxLength: 200 }).filter(storable),
              jsonValue(),
            ),
            categoryId: fc.oneof(
              fc.constant(w.otherCategoryId),
              fc.constant(w.categoryId),
              fc.string({ unit: "grapheme" }).filter(storable),
            ),
          })
          .map((ids) => ({ ...b, ...ids })),
      ),
      mutate("tooLong", (b) =>
        fc.constantFrom(...attributes.filter((a) => a.type === "TEXT" || a.type === "TEXTAREA")).map((a) => ({
          ...b,
          values: {
            ...b.values,
            [a.code]: "é".repeat(Number(SCHEMAS[TYPE_COMPONENT[a.type]!]!.maxLength) + 1),
          },
        })),
      ),
      mutate("takenSku", (b) => fc.constant({ ...b, values: { ...b.values, sku: takenSku } })),
      mutate("unknownChannel", (b) =>
        fc
          .tuple(
            fc.constantFrom(...attributes.filter((a) => a.is_scopable).map((a) => a.code)),
            fc.dictionary(randomKey, anyValue(), { minKeys: 1, maxKeys: 2 }),
          )
          .map(([code, v]) => ({ ...b, values: { ...b.values, [code]: v } })),
      ),
      // Bodies drawn from the document's schema alone: random ids and attribute codes.
      fromSchema(SCHEMAS.CreateProductRequest!).map((body) => ({ kind: "schemaOnly", body, valid: false })),
      fromSchema(PER_CHANNEL).map((v) => ({
        kind: "perChannelOnly",
        body: { familyId: w.familyId, categoryId: w.categoryId, values: v },
        valid: false,
      })),
      jsonValue().map((body) => ({ kind: "randomJson", body, valid: false })),
      fc
        .string({ unit: "binary", maxLength: 60 })
        .map((raw) => ({ kind: "randomText", body: undefined, raw, valid: false })),
    );
  }

  // The server's rule for an Idempotency-Key as sent: 1 to 255 visible ASCII characters, inside optional quotes.
  const wellFormed = (sent: string): boolean => {
    let k = sent.trim();
    if (k.length >= 2 && k.startsWith('"') && k.endsWith('"')) k = k.slice(1, -1);
    return k.length >= 1 && k.length <= 255 && /^[\x21-\x7e]+$/.test(k);
  };

  // Built once the catalog is read (beforeAll).
  const cases = (): fc.Arbitrary<Case> =>
    fc
      .record({
        base: fc.oneof(
          { weight: 2, arbitrary: validBody().map((body) => ({ kind: "valid", body, valid: true })) },
          { weight: 3, arbitrary: brokenCase() },
        ),
        dryRun: fc.integer({ min: 0, max: 9 }).map((n) => n < 3),
        // No key, a fresh one, or any string (a reused or malformed key is a 422 or a 400).
        key: fc.oneof(
          fc.constant(undefined),
          fc.constant(null).map(() => `prop-${run}-${++serial}`),
          fc.string({ unit: "binary", maxLength: 300 }),
        ),
      })
      .map(({ base, dryRun, key }) => ({ ...base, dryRun, idempotencyKey: key }));

  it("never answers a 5xx; every answer matches its schema; every 201 is listed and counted", async () => {
    const total = async () =>
      (await call("/public/v1/products?perPage=1", { key: w.f.acme.full })).body.pagination.total as number;
    const before = await total();
    const created: { id: string; sku: string }[] = [];
    const kinds = new Map<string, number[]>();

    await fc.assert(
      fc.asyncProperty(cases(), async (c) => {
        const headers: Record<string, string> = { "content-type": "application/json" };
        if (c.idempotencyKey !== undefined) {
          // A header value cannot carry every character: a key a Request would refuse is sent percent-encoded.
          headers["idempotency-key"] = /^[\x20-\x7e]*$/.test(c.idempotencyKey)
            ? c.idempotencyKey
            : encodeURIComponent(c.idempotencyKey);
        }
        const freshKey = c.idempotencyKey === undefined || c.idempotencyKey.startsWith(`prop-${run}-`);
        const res = await postProduct(w.writer, c.raw ?? c.body, headers, c.dryRun ? "?dryRun=true" : "");
        const statuses = kinds.get(c.kind) ?? [];
        statuses.push(res.status);
        kinds.set(c.kind, statuses);
        const what = `${c.kind} ${res.status} ${res.text.slice(0, 300)}`;
        expect(res.status, what).toBeLessThan(500);
        expect(DOCUMENTED.has(String(res.status)), what).toBe(true);
        if (res.status === 201) {
          expect(createdProductSchema.safeParse(res.body).success, what).toBe(true);
          expect(res.headers.get("location"), what).toBe(`http://api.test/public/v1/products/${res.body.id}`);
          created.push({ id: res.body.id, sku: (c.body as Json).values.sku });
        } else if (res.status === 200) {
          expect(c.dryRun, what).toBe(true);
          expect(productDraftSchema.safeParse(res.body).success, what).toBe(true);
        } else {
          const parsed = errorBodySchema.safeParse(res.body);
          expect(parsed.success, `${what} ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
          expect(res.body.statusCode, what).toBe(res.status);
          if (res.status !== 401 && res.status !== 403 && res.status !== 429)
            expect(res.body.details?.length, what).toBeGreaterThan(0);
        }
        // Nested deeper than the API reads: the 400 naming where, whatever else is wrong.
        if (c.raw === undefined && depthOf(c.body) > 32) {
          expect(res.status, what).toBe(400);
          expect(res.body.details, what).toEqual([expect.objectContaining({ code: "TOO_DEEP" })]);
        }
        // A valid body is drafted by a dry run with a well-formed key or none (a dry run checks the key's form like
        // a creation), and created with a fresh key or none.
        const wellFormedKey =
          headers["idempotency-key"] === undefined || wellFormed(headers["idempotency-key"]);
        if (c.valid && c.dryRun && wellFormedKey) expect(res.status, what).toBe(200);
        if (c.valid && !c.dryRun && freshKey) expect(res.status, what).toBe(201);
      }),
      { numRuns: driver === "pg" ? 150 : 120 },
    );

    expect(created.length).toBeGreaterThan(10);
    for (const p of created) {
      const listed = await call(`/public/v1/products?q=${encodeURIComponent(p.sku)}`, { key: w.f.acme.full });
      expect(listed.status).toBe(200);
      expect(
        listed.body.data.map((d: Json) => [d.id, d.identifier]),
        p.sku,
      ).toEqual([[p.id, p.sku]]);
    }
    expect(await total()).toBe(before + created.length);
    // What the run covered, should it fail: each kind of body and the statuses it got.
    const summary = Object.fromEntries([...kinds].map(([k, s]) => [k, [...new Set(s)].sort().join(",")]));
    expect(Object.keys(summary).length, JSON.stringify(summary)).toBeGreaterThanOrEqual(10);
  });

  // Found by this property: Postgres refuses NUL and lone surrogates in text and jsonb; the catalog answers a 400
  // naming where they are (a value, an attribute code, an id).
  it("a string Postgres cannot store (NUL, a lone surrogate) is a 400, not a 500", async () => {
    for (const bad of ["a\u0000b", "\ud800"]) {
      for (const [body, field] of [
        [w.body({ name: bad }), "values.name"],
        [w.body({ [bad]: "x" }), `values.${bad.replace(/\u0000|\ud800/, "?")}`],
        [w.body({}, { familyId: bad }), "familyId"],
      ] as const) {
        for (const query of ["", "?dryRun=true"]) {
          const res = await postProduct(w.writer, body, undefined, query);
          expect(res.status, `${JSON.stringify(bad)} ${res.text.slice(0, 200)}`).toBe(400);
          expect(res.body.details).toEqual([
            {
              field,
              code: "INVALID_TEXT",
              message: "Texte invalide : caractère NUL ou demi-paire UTF-16 isolée.",
            },
          ]);
        }
      }
    }
  });
});
