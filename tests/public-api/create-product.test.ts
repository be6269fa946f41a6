// POST /public/v1/products behind PUBLIC_API_WRITE_PREVIEW: each status and code with its exact body, on PGlite
// and on the Postgres server; a created product is listed at once; with the switch off, the V1 405.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { optionsOf } from "@/db/seed";
import { HOME } from "@/db/seed/vocabulary";
import { prepareProduct } from "@/lib/catalog/writes/create-product";
import { CatalogWriteError } from "@/lib/catalog/catalog-errors";
import { READ_SCOPES, WRITE_SCOPE } from "@/lib/keys/scopes";
import { requestFingerprint } from "@/lib/public-api/idempotency";
import * as products from "@/app/public/v1/products/route";
import { call, setupApi, type ApiFixture } from "../support/api";
import {
  insertKey,
  postProduct,
  refusal,
  setupWritePreview,
  type WriteFixture,
} from "../support/write-preview";

const ANY_ID = expect.any(String);
const post = postProduct;

describe.each(["pglite", "pg"] as const)("POST /public/v1/products on %s (write preview on)", (driver) => {
  let f: ApiFixture;
  let w: WriteFixture;
  let writer: string;
  let familyId: string;
  let categoryId: string;
  let otherFamilyId: string;
  let otherCategoryId: string;
  let outsider: string; // an attribute of the organization that the family does not have

  const one = <T>(sql: string, params: unknown[]): Promise<T> => w.one<T>(sql, params);
  const body = (values: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
    w.body(values, extra);

  beforeAll(async () => {
    w = await setupWritePreview(driver);
    ({ f, writer, familyId, categoryId, otherFamilyId, otherCategoryId, outsider } = w);
  }, 120_000);
  afterAll(async () => {
    await f?.close();
  });

  it("creates a draft product: 201, Location, then listed with its identifier and label, counted at once", async () => {
    const before = await call("/public/v1/products?perPage=1", { key: f.acme.full });
    const b = body({ name: "Fauteuil d'essai" });
    const res = await post(writer, b);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^prd_/),
      familyId,
      categoryId,
      status: "draft",
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
    expect(res.headers.get("location")).toBe(`http://api.test/public/v1/products/${res.body.id}`);
    // Rate limited like the reads: the request counted against its key.
    expect(res.headers.get("x-ratelimit-limit")).toBe("100000");
    const after = await call("/public/v1/products?perPage=1", { key: f.acme.full });
    expect(after.body.pagination.total).toBe(before.body.pagination.total + 1);
    const listed = await call(`/public/v1/products?q=${b.values.sku as string}`, { key: f.acme.full });
    expect(listed.body.data).toEqual([
      expect.objectContaining({
        id: res.body.id,
        identifier: b.values.sku,
        label: "Fauteuil d'essai",
        status: "draft",
      }),
    ]);
  });

  it("takes a scopable value per channel", async () => {
    const ch = (
      await one<{ id: string }>("select id from channels where org_id = $1 limit 1", [f.acme.orgId])
    ).id;
    const res = await post(writer, body({ name: { [ch]: "Nom canal" } }));
    expect(res.status).toBe(201);
  });

  it("400 PUBLIC_API_INVALID_BODY for a body that is not JSON", async () => {
    const res = await post(writer, "{ nope");
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      refusal(400, "Bad Request", "PUBLIC_API_INVALID_BODY", "Corps de requête invalide : JSON mal formé.", [
        { field: "body", code: "INVALID_JSON", message: "Le corps n'est pas un JSON valide." },
      ]),
    );
  });

  it("400 for a body that is not an object", async () => {
    const res = await post(writer, [1, 2]);
    expect(res.body).toEqual(
      refusal(400, "Bad Request", "PUBLIC_API_INVALID_BODY", "Corps de requête invalide.", [
        { field: "body", code: "INVALID_TYPE", message: "Le corps doit être un objet JSON." },
      ]),
    );
  });

  it("400 for an organizationId and an unknown top-level field", async () => {
    const res = await post(writer, body({}, { organizationId: f.globex.orgId, colour: "x" }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      refusal(400, "Bad Request", "PUBLIC_API_INVALID_BODY", "Corps de requête invalide.", [
        {
          field: "organizationId",
          code: "FORBIDDEN_FIELD",
          message: "Champ « organizationId » interdit : l'organisation est celle de la clé API.",
        },
        {
          field: "colour",
          code: "UNKNOWN_FIELD",
          message: "Champ « colour » inconnu. Champs acceptés : familyId, categoryId, values.",
        },
      ]),
    );
  });

  it("400 for an unknown values key and values of the wrong type", async () => {
    const res = await post(writer, body({ nope: 1, name: 42, price: { EUR: 1.999, XXY: 1 } }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      refusal(400, "Bad Request", "PUBLIC_API_INVALID_BODY", "Corps de requête invalide.", [
        {
          field: "values.name",
          code: "INVALID_TYPE",
          message: "Valeur invalide pour « name » : une chaîne de caractères attendu.",
        },
        {
          field: "values.price.EUR",
          code: "INVALID_PRECISION",
          message: "Montant invalide : au plus 2 décimale(s) pour EUR.",
        },
        {
          field: "values.price.XXY",
          code: "UNKNOWN_CURRENCY",
          message: "Devise « XXY » inconnue (ISO 4217).",
        },
        {
          field: "values.nope",
          code: "UNKNOWN_ATTRIBUTE",
          message: "Attribut « nope » inconnu dans l'organisation.",
        },
      ]),
    );
  });

  // acme's color options, in their order (the seed's vocabulary: 20 colors).
  const COLOR_CODES = optionsOf(HOME).color!.map((o) => o.code);
  const colorAttribute = async () =>
    (
      await one<{ id: string }>("select id from attributes where org_id = $1 and code = 'color'", [
        f.acme.orgId,
      ])
    ).id;

  it("400 for an unknown option code, listing the attribute's options", async () => {
    expect(COLOR_CODES).toHaveLength(20);
    const res = await post(writer, body({ color: "pas-une-couleur" }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      refusal(400, "Bad Request", "PUBLIC_API_INVALID_BODY", "Corps de requête invalide.", [
        {
          field: "values.color",
          code: "UNKNOWN_OPTION",
          message: `Option « pas-une-couleur » inconnue pour l'attribut « color ». Options valides : ${COLOR_CODES.join(", ")}.`,
        },
      ]),
    );
    expect(res.body.details[0].message).toContain(
      "Options valides : blanc_casse, creme, ecru, gris_perle, anthracite, bleu_petrole,",
    );
  });

  it("400 for unknown codes of a MULTI_SELECT, each at its index; the options are read in one statement", async () => {
    const fragrances = optionsOf(HOME).fragrance!.map((o) => o.code);
    const values = { color: "nope", material: COLOR_CODES[0], fragrance: [fragrances[1], "x", "y"] };
    const res = await post(writer, body(values));
    expect(res.status).toBe(400);
    const unknown = (code: string) =>
      `Option « ${code} » inconnue pour l'attribut « fragrance ». Options valides : ${fragrances.join(", ")}.`;
    expect(res.body.details).toEqual([
      { field: "values.color", code: "UNKNOWN_OPTION", message: expect.stringMatching(/^Option « nope »/) },
      { field: "values.material", code: "UNKNOWN_OPTION", message: expect.stringMatching(/chene_massif/) },
      { field: "values.fragrance.1", code: "UNKNOWN_OPTION", message: unknown("x") },
      { field: "values.fragrance.2", code: "UNKNOWN_OPTION", message: unknown("y") },
    ]);
    // Every option reference of the body in one statement.
    const statements: string[] = [];
    const counted = {
      query: <R>(text: string, params?: readonly unknown[]) => {
        statements.push(text);
        return f.db.query<R>(text, params);
      },
    };
    await expect(prepareProduct(counted, f.acme.orgId, body(values))).rejects.toBeInstanceOf(
      CatalogWriteError,
    );
    expect(statements.filter((t) => t.includes("attribute_options"))).toHaveLength(1);
    expect(statements.filter((t) => t.includes("product_values"))).toHaveLength(0);
  });

  it("an option of the table no product uses is taken (201); past 20 options the message lists the first 20", async () => {
    const attribute = await colorAttribute();
    await f.db.query(
      `insert into attribute_options (org_id, attribute_id, code, label, position)
       values ($1, $2, 'or_rose', 'Or rosé', 20)`,
      [f.acme.orgId, attribute],
    );
    const used = await one<{ n: number }>(
      "select count(*)::int as n from product_values where attribute_id = $1 and value = to_jsonb($2::text)",
      [attribute, "or_rose"],
    );
    expect(used.n).toBe(0);
    const created = await post(writer, body({ color: "or_rose" }));
    expect(created.status).toBe(201);
    const res = await post(writer, body({ color: "Or rosé" }));
    expect(res.body.details).toEqual([
      {
        field: "values.color",
        code: "UNKNOWN_OPTION",
        message: `Option « Or rosé » inconnue pour l'attribut « color ». Options valides : ${COLOR_CODES.join(", ")}, … (20 premières sur 21).`,
      },
    ]);
  });

  it("400 for any code of a SELECT that has no option", async () => {
    await f.db.query(
      `insert into attributes (id, org_id, slug, code, label, type) values ('att_no_option', $1, 'finish', 'finish', 'Finition', 'SELECT')`,
      [f.acme.orgId],
    );
    const res = await post(writer, body({ finish: "mat" }));
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([
      {
        field: "values.finish",
        code: "UNKNOWN_OPTION",
        message: "Option « mat » inconnue : l'attribut « finish » n'a aucune option.",
      },
    ]);
  });

  it("takes a media of the organization and refuses one of another", async () => {
    const mine = (await one<{ id: string }>("select id from media where org_id = $1 limit 1", [f.acme.orgId]))
      .id;
    const theirs = (
      await one<{ id: string }>("select id from media where org_id = $1 limit 1", [f.globex.orgId])
    ).id;
    expect((await post(writer, body({ main_image: mine }))).status).toBe(201);
    const res = await post(writer, body({ main_image: theirs }));
    expect(res.body).toEqual(
      refusal(400, "Bad Request", "PUBLIC_API_INVALID_BODY", "Corps de requête invalide.", [
        {
          field: "values.main_image",
          code: "UNKNOWN_MEDIA",
          message: `Média « ${theirs} » introuvable dans l'organisation.`,
        },
      ]),
    );
  });

  it("lists POST in the preflight", async () => {
    const res = await products.OPTIONS();
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-methods")).toBe("GET, HEAD, POST, OPTIONS");
  });

  it("401 without a key", async () => {
    const res = await post(null, body());
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      statusCode: 401,
      error: "Unauthorized",
      code: "PUBLIC_API_KEY_MISSING",
      message: "Clé API manquante.",
      requestId: ANY_ID,
    });
  });

  it("403 without products:write", async () => {
    const res = await post(f.acme.full, body());
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      statusCode: 403,
      error: "Forbidden",
      code: "PUBLIC_API_INSUFFICIENT_SCOPE",
      message: "La clé API n'a pas le scope « products:write » requis pour cette ressource.",
      requestId: ANY_ID,
    });
  });

  it("404 for a family or a category outside the organization, the same whether it exists elsewhere or not", async () => {
    const fam = refusal(
      404,
      "Not Found",
      "PUBLIC_API_FAMILY_NOT_FOUND",
      "Famille introuvable dans l'organisation de la clé API.",
      [
        {
          field: "familyId",
          code: "NOT_FOUND",
          message: "Famille introuvable dans l'organisation de la clé API.",
        },
      ],
    );
    for (const id of [otherFamilyId, "fam_nowhere"]) {
      const res = await post(writer, body({}, { familyId: id }));
      expect(res.status).toBe(404);
      expect(res.body).toEqual(fam);
    }
    const cat = refusal(
      404,
      "Not Found",
      "PUBLIC_API_CATEGORY_NOT_FOUND",
      "Catégorie introuvable dans l'organisation de la clé API.",
      [
        {
          field: "categoryId",
          code: "NOT_FOUND",
          message: "Catégorie introuvable dans l'organisation de la clé API.",
        },
      ],
    );
    for (const id of [otherCategoryId, "cat_nowhere"]) {
      const res = await post(writer, body({}, { categoryId: id }));
      expect(res.status).toBe(404);
      expect(res.body).toEqual(cat);
    }
  });

  it("409 PUBLIC_API_CONFLICT when the SKU is taken", async () => {
    const identifier = (
      await one<{ identifier: string }>("select identifier from products where org_id = $1 limit 1", [
        f.acme.orgId,
      ])
    ).identifier;
    const res = await post(writer, body({ sku: identifier }));
    expect(res.status).toBe(409);
    expect(res.body).toEqual(
      refusal(
        409,
        "Conflict",
        "PUBLIC_API_CONFLICT",
        "Une valeur unique est déjà utilisée dans l'organisation.",
        [
          {
            field: "values.sku",
            code: "ALREADY_EXISTS",
            message: `Le SKU « ${identifier} » est déjà utilisé dans l'organisation.`,
          },
        ],
      ),
    );
  });

  it("409 when the value of a uniqueValue attribute is taken", async () => {
    const ean = `ean-${driver}-${Date.now()}`;
    expect((await post(writer, body({ ean }))).status).toBe(201);
    const res = await post(writer, body({ ean }));
    expect(res.status).toBe(409);
    expect(res.body).toEqual(
      refusal(
        409,
        "Conflict",
        "PUBLIC_API_CONFLICT",
        "Une valeur unique est déjà utilisée dans l'organisation.",
        [
          {
            field: "values.ean",
            code: "ALREADY_EXISTS",
            message: "La valeur de « ean » est déjà utilisée dans l'organisation.",
          },
        ],
      ),
    );
  });

  // Issue 21, row 2: a value nested 3,000 levels deep overflowed the value checks (a 500), and 10,000 levels the
  // Idempotency-Key's canonical form. The body is refused as it is read: 32 levels at most.
  describe("a body nested deeper than 32 levels", () => {
    // The body's text with values.color nested `n` levels deep (arrays, or objects under "a"): built as text, since
    // JSON.stringify itself overflows on such a value.
    const nested = (n: number, open = "[", close = "]") => {
      const b = body();
      return JSON.stringify({ ...b, values: { ...b.values, color: "<deep>" } }).replace(
        '"<deep>"',
        `${open.repeat(n)}1${close.repeat(n)}`,
      );
    };
    const tooDeep = (field: string) =>
      refusal(
        400,
        "Bad Request",
        "PUBLIC_API_INVALID_BODY",
        "Corps de requête invalide : JSON imbriqué sur plus de 32 niveaux.",
        [
          {
            field,
            code: "TOO_DEEP",
            message: "Valeur trop imbriquée : 32 niveaux d'objets et de tableaux au plus.",
          },
        ],
      );
    const arrayPath = `values.color${".0".repeat(30)}`;

    it("400 PUBLIC_API_INVALID_BODY naming the field, on a dry run and on a creation", async () => {
      for (const query of ["?dryRun=true", ""]) {
        const res = await post(writer, nested(3_000), undefined, query);
        expect(res.status, query).toBe(400);
        expect(res.body, query).toEqual(tooDeep(arrayPath));
      }
      const objects = await post(writer, nested(3_000, '{"a":', "}"), undefined, "?dryRun=true");
      expect(objects.body).toEqual(tooDeep(`values.color${".a".repeat(30)}`.slice(0, 100)));
    });

    it("400 with an Idempotency-Key at 10,000 levels, nothing recorded under the key", async () => {
      const key = `deep-${driver}-${Date.now()}`;
      const headers = { "content-type": "application/json", "idempotency-key": key };
      for (const query of ["", "?dryRun=true"]) {
        const res = await post(writer, nested(10_000), headers, query);
        expect(res.body, query).toEqual(tooDeep(arrayPath));
      }
      const [kept] = await f.db.query<{ n: number }>(
        "select count(*)::int as n from idempotency_keys where key = $1",
        [key],
      );
      expect(kept!.n).toBe(0);
    });

    it("the catalog's checks and the Idempotency-Key's fingerprint take any depth without overflowing", async () => {
      // 100,000 levels, the text Postgres cannot store at the bottom: past what the API reads, for the callers of
      // lib/catalog that do not go through it.
      let deep: unknown = "a\u0000b";
      for (let i = 0; i < 100_000; i++) deep = i % 2 ? { k: deep } : [deep];
      const b = body({ color: deep });
      const refused = await prepareProduct(f.db, f.acme.orgId, b).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(CatalogWriteError);
      expect((refused as CatalogWriteError).issues).toEqual([
        expect.objectContaining({
          field: `values.color${".k.0".repeat(50_000)}`.slice(0, 100),
          code: "INVALID_TEXT",
        }),
      ]);
      expect(requestFingerprint("POST", "/public/v1/products", b)).toMatch(/^[0-9a-f]{64}$/);
    });

    it("reads 32 levels: the value is then checked like any other (a SELECT takes no array)", async () => {
      const res = await post(writer, nested(30), undefined, "?dryRun=true");
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([
        expect.objectContaining({ field: "values.color", code: "INVALID_TYPE" }),
      ]);
    });
  });

  it("413 over 64 KB", async () => {
    const res = await post(writer, body({ description: "x".repeat(70_000) }));
    expect(res.status).toBe(413);
    expect(res.body).toEqual(
      refusal(
        413,
        "Payload Too Large",
        "PUBLIC_API_PAYLOAD_TOO_LARGE",
        "Corps de requête trop volumineux : 64 Ko au plus.",
        [{ field: "body", code: "TOO_LARGE", message: "Le corps dépasse 65536 octets." }],
      ),
    );
  });

  it("415 without a JSON content type", async () => {
    for (const [headers, got] of [
      [{}, "absent"],
      [{ "content-type": "text/plain" }, "text/plain"],
    ] as const) {
      const res = await post(writer, JSON.stringify(body()), headers);
      expect(res.status).toBe(415);
      expect(res.body).toEqual(
        refusal(
          415,
          "Unsupported Media Type",
          "PUBLIC_API_UNSUPPORTED_MEDIA_TYPE",
          "Type de contenu non pris en charge : envoyez Content-Type: application/json.",
          [
            {
              field: "Content-Type",
              code: "UNSUPPORTED_MEDIA_TYPE",
              message: `Type de contenu « ${got} » non pris en charge : application/json attendu.`,
            },
          ],
        ),
      );
    }
  });

  it("422 PUBLIC_API_UNPROCESSABLE for a missing required attribute and one the family does not have", async () => {
    const b = body({ [outsider]: "valeur" });
    delete (b.values as Record<string, unknown>).name;
    const res = await post(writer, b);
    expect(res.status).toBe(422);
    expect(res.body).toEqual(
      refusal(
        422,
        "Unprocessable Entity",
        "PUBLIC_API_UNPROCESSABLE",
        "Les données ne respectent pas les règles du catalogue.",
        [
          {
            field: `values.${outsider}`,
            code: "NOT_IN_FAMILY",
            message: `L'attribut « ${outsider} » n'appartient pas à la famille.`,
          },
          {
            field: "values.name",
            code: "REQUIRED",
            message: "Attribut « name » obligatoire pour cette famille.",
          },
        ],
      ),
    );
  });

  it("leaves nothing behind when refused", async () => {
    const count = (
      await one<{ n: number }>(
        "select count(*)::int as n from products where org_id = $1 and identifier like 'TEST-SKU-%'",
        [f.acme.orgId],
      )
    ).n;
    // The 201s of this suite only: the first creation, the scoped one, the media one, the option no product used
    // and the first ean.
    expect(count).toBe(5);
  });
});

describe("POST /public/v1/products with the write preview off", () => {
  let f: ApiFixture;
  beforeAll(async () => {
    f = await setupApi("pglite");
  }, 120_000);
  afterAll(async () => {
    await f?.close();
  });

  it("keeps the V1 preflight", async () => {
    expect((await products.OPTIONS()).headers.get("access-control-allow-methods")).toBe("GET, HEAD, OPTIONS");
  });

  it("answers 405 with Allow: GET, HEAD, as V1", async () => {
    const key = await insertKey(f, f.acme.orgId, [...READ_SCOPES, WRITE_SCOPE]);
    const res = await post(key, { familyId: "x", categoryId: "y", values: {} });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD");
    expect(res.body).toEqual({
      statusCode: 405,
      error: "Method Not Allowed",
      code: "PUBLIC_API_METHOD_NOT_ALLOWED",
      message: "Méthode POST non autorisée sur cette ressource. Méthodes autorisées : GET, HEAD.",
      requestId: ANY_ID,
    });
  });
});
