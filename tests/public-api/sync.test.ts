// A client keeping a copy of the products in sync (issue 15), on PGlite and on the Postgres server: a full walk sorted
// by updatedAt.asc, changes (creations through the write preview, updates and a deletion in the database), then one
// updatedSince pass from the last instant seen (plus the total to notice deletions) gives exactly a fresh full walk.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Product } from "@/lib/catalog/resources/schemas";
import { call } from "../support/api";
import { postProduct, setupWritePreview, type WriteFixture } from "../support/write-preview";

describe.each(["pglite", "pg"] as const)("keeping a copy of the products in sync on %s", (driver) => {
  let w: WriteFixture;

  // Walks every page of a query sorted by updatedAt.asc; returns the items and the list's total.
  async function walk(extra = ""): Promise<{ items: Product[]; total: number }> {
    const items: Product[] = [];
    for (let page = 1; ; page++) {
      const res = await call(`/public/v1/products?sort=updatedAt.asc&perPage=100&page=${page}${extra}`, {
        key: w.f.acme.full,
      });
      expect(res.status).toBe(200);
      items.push(...res.body.data);
      if (page >= res.body.pagination.totalPages) return { items, total: res.body.pagination.total };
    }
  }
  const byId = (items: Product[]) => new Map(items.map((p) => [p.id, p]));
  const lastSeen = (items: Iterable<Product>) =>
    [...items]
      .map((p) => p.updatedAt)
      .sort()
      .at(-1)!;

  beforeAll(async () => {
    w = await setupWritePreview(driver);
  }, 120_000);
  afterAll(async () => {
    await w?.f.close();
  });

  it("a full walk, then an updatedSince pass, equals a fresh full walk", async () => {
    const first = await walk();
    expect(first.items).toHaveLength(first.total);
    const copy = byId(first.items);
    const since = lastSeen(copy.values());
    const poll = await call("/public/v1/products?sort=updatedAt.asc&perPage=100", { key: w.f.acme.full });

    // Changes: three creations, two updates (one moves the product's family), one deletion.
    for (let i = 0; i < 3; i++) expect((await postProduct(w.writer, w.body())).status).toBe(201);
    const [a, b, gone] = first.items;
    await w.f.db.query(
      "update products set label = 'Renommé par le test', updated_at = now() where id = $1",
      [a!.id],
    );
    await w.f.db.query(
      `update products set family_id = (select id from families where org_id = $2 and id <> $3 limit 1),
              updated_at = now() where id = $1`,
      [b!.id, w.f.acme.orgId, b!.family.id],
    );
    await w.f.db.query("delete from products where id = $1", [gone!.id]);

    // The poll of the first page is no longer a 304.
    const polled = await call("/public/v1/products?sort=updatedAt.asc&perPage=100", {
      key: w.f.acme.full,
      headers: { "if-none-match": poll.headers.get("etag")! },
    });
    expect(polled.status).toBe(200);

    // The client's pass: what changed since the last instant seen (inclusive), merged by id.
    const changed = await walk(`&updatedSince=${encodeURIComponent(since)}`);
    expect(changed.items.length).toBeGreaterThanOrEqual(5);
    for (const p of changed.items) copy.set(p.id, p);
    // Deletions do not appear in updatedSince: the total says the copy is too large, so the ids are walked again.
    const total = (await call("/public/v1/products?perPage=1", { key: w.f.acme.full })).body.pagination.total;
    if (copy.size > total) {
      const live = new Set((await walk()).items.map((p) => p.id));
      for (const id of copy.keys()) if (!live.has(id)) copy.delete(id);
    }

    const fresh = await walk();
    expect(copy.size).toBe(fresh.total);
    expect(byId(fresh.items)).toEqual(copy);
    expect(copy.has(gone!.id)).toBe(false);
    expect(copy.get(a!.id)!.label).toBe("Renommé par le test");
  });
});
