// Simultaneous creations on the Postgres server (write preview): one SKU, one unique value, one Idempotency-Key,
// twenty requests at once each. Exactly one product is created; the others get the 409 or the first answer again.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postProduct, setupWritePreview, type WriteFixture } from "../support/write-preview";

const N = 20;
const JSON_TYPE = { "content-type": "application/json" };

describe("write preview on the Postgres server: twenty simultaneous creations", () => {
  let w: WriteFixture;
  const count = async (sql: string, params: unknown[]) =>
    (await w.f.db.query<{ n: number }>(`select count(*)::int as n ${sql}`, params))[0]!.n;

  beforeAll(async () => {
    w = await setupWritePreview("pg");
  }, 120_000);
  afterAll(async () => {
    await w?.f.close();
  });

  it("the same SKU: one 201, nineteen 409 PUBLIC_API_CONFLICT, one product", async () => {
    const b = w.body();
    const answers = await Promise.all(Array.from({ length: N }, () => postProduct(w.writer, b)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([201, ...Array<number>(N - 1).fill(409)]);
    for (const a of answers.filter((x) => x.status === 409)) {
      expect(a.body.code).toBe("PUBLIC_API_CONFLICT");
      expect(a.body.details).toEqual([
        expect.objectContaining({ field: "values.sku", code: "ALREADY_EXISTS" }),
      ]);
    }
    expect(
      await count("from products where org_id = $1 and identifier = $2", [w.f.acme.orgId, b.values.sku]),
    ).toBe(1);
    // No value of a refused creation was left behind.
    expect(
      await count(
        "from product_values v where v.org_id = $1 and not exists (select 1 from products p where p.id = v.product_id)",
        [w.f.acme.orgId],
      ),
    ).toBe(0);
  });

  it("the same value of a uniqueValue attribute under twenty SKUs: one 201, nineteen 409", async () => {
    const ean = `ean-race-${randomUUID()}`;
    const answers = await Promise.all(
      Array.from({ length: N }, () => postProduct(w.writer, w.body({ ean }))),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, ...Array<number>(N - 1).fill(409)]);
    for (const a of answers.filter((x) => x.status === 409))
      expect(a.body.details).toEqual([
        expect.objectContaining({ field: "values.ean", code: "ALREADY_EXISTS" }),
      ]);
    expect(
      await count(
        `from product_values v join attributes a on a.id = v.attribute_id
          where v.org_id = $1 and a.code = 'ean' and v.value = to_jsonb($2::text)`,
        [w.f.acme.orgId, ean],
      ),
    ).toBe(1);
  });

  it("the same Idempotency-Key: one creation, twenty identical answers", async () => {
    const key = randomUUID();
    const b = w.body();
    const answers = await Promise.all(
      Array.from({ length: N }, () => postProduct(w.writer, b, { ...JSON_TYPE, "idempotency-key": key })),
    );
    const first = answers[0]!;
    expect(first.status).toBe(201);
    for (const a of answers) {
      expect(a.status).toBe(201);
      expect(a.text).toBe(first.text);
      expect(a.headers.get("location")).toBe(first.headers.get("location"));
    }
    // One of them ran the creation; the other nineteen were replayed.
    expect(answers.filter((a) => a.headers.get("idempotent-replayed") === "true")).toHaveLength(N - 1);
    expect(
      await count("from products where org_id = $1 and identifier = $2", [w.f.acme.orgId, b.values.sku]),
    ).toBe(1);
  });
});
