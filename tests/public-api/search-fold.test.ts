// A search finds a product by its own SKU whatever its letters, on PGlite and on the Postgres server: identifiers,
// codes and slugs are C-collated, and the fold of a stored text and of a search term must agree (migration 0009; the
// write preview's property test found a Greek capital that did not).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "../support/api";
import { postProduct, setupWritePreview, type WriteFixture } from "../support/write-preview";

describe.each(["pglite", "pg"] as const)("search by SKU on %s", (driver) => {
  let w: WriteFixture;
  beforeAll(async () => {
    w = await setupWritePreview(driver);
  }, 120_000);
  afterAll(async () => {
    await w?.f.close();
  });

  it.each([
    ["ЧАЙ-ТЕСТ-01", ["ЧАЙ-ТЕСТ-01", "чай-тест", "Чай"]],
    ["ΔΟΚΙΜΗ-Ͳ-7", ["ΔΟΚΙΜΗ-Ͳ", "δοκιμη-ͳ"]],
    ["𞡭Ͳ𑼍", ["𞡭Ͳ𑼍"]],
    ["ÉTÉ-2026-X", ["ete-2026-x", "ÉTÉ"]],
  ])("%s is found by its SKU and by parts of it in any case", async (sku, terms) => {
    const created = await postProduct(w.writer, w.body({ sku }));
    expect(created.status).toBe(201);
    for (const q of terms) {
      const res = await call(`/public/v1/products?q=${encodeURIComponent(q)}`, { key: w.f.acme.full });
      expect(
        res.body.data.map((p: { id: string }) => p.id),
        q,
      ).toContain(created.body.id);
    }
  });
});
