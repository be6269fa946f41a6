// Products' documents (migration 0019, lib/catalog/feed/product-documents.ts) held against the plain answer: whatever was
// written since the refresher last ran, and by whom, products read through their documents are exactly the products
// read anew (readProductDetails), on both drivers. And the documents are used (not only the fallback): a document
// changed behind the refresher's back is what a reader serves while the change log says it is current.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyChange, CHANGE_KINDS } from "@/lib/demo/catalog-activity";
import { readProductDetails } from "@/lib/catalog/resources/product-detail";
import {
  documentView,
  readProductLines,
  refreshProductDocuments,
} from "@/lib/catalog/feed/product-documents";
import type { CatalogContext } from "@/lib/catalog/context";
import { setupApi, type ApiFixture } from "../support/api";

describe.each(["pglite", "pg"] as const)("products' documents on %s", (driver) => {
  let fx: ApiFixture;
  let ctx: CatalogContext;
  let org: { id: string; slug: string };
  const base = "http://api.test";

  beforeAll(async () => {
    fx = await setupApi(driver, { PUBLIC_API_PREVIEW: "changes,export" });
    ctx = await fx.runtime.catalog();
    org = { id: fx.globex.orgId, slug: fx.globex.slug };
  });
  afterAll(async () => {
    await fx?.close();
  });

  // The organization's feed floor and the view of its documents, as a reader opens it.
  async function view() {
    const [s] = await fx.db.query<{ floor: string }>(
      "select coalesce((select floor from catalog_change_floors where org_id = $1), 0)::text as floor",
      [org.id],
    );
    return documentView(fx.db, org.id, base, s!.floor);
  }

  // Every product through the documents (the view as it is now), against every product read anew.
  async function expectSameAsFresh(): Promise<number> {
    const v = await view();
    const lines = await readProductLines(ctx, org, { after: "", limit: 100_000 }, base, v);
    const fresh = await readProductDetails(ctx, org, { after: "", limit: 100_000 }, base);
    expect(lines.map((l) => l.id)).toEqual(fresh.map((p) => p.id));
    lines.forEach((l, i) => expect(l.json, l.id).toBe(JSON.stringify(fresh[i])));
    return lines.length;
  }

  async function mark() {
    const [m] = await fx.db.query<{ mark: string | null; build_after: string | null }>(
      "select mark::text as mark, build_after from catalog_product_document_marks where org_id = $1",
      [org.id],
    );
    return m;
  }

  const head = async () =>
    (
      await fx.db.query<{ head: string }>(
        "select head::text as head from catalog_change_heads where org_id = $1",
        [org.id],
      )
    )[0]!.head;

  it("none is used before the refresher has built them; a build writes every product's, then the mark is set", async () => {
    expect(await view()).toBeUndefined();
    expect(await refreshProductDocuments(fx.db, ctx, org, base, 150)).toBe("wrote");
    // Mid-build: nothing used yet.
    expect((await mark())?.mark).toBeNull();
    expect(await view()).toBeUndefined();
    while ((await refreshProductDocuments(fx.db, ctx, org, base, 150)) === "wrote");
    expect((await mark())?.mark).toBe(await head());
    const [n] = await fx.db.query<{ n: number }>(
      "select count(*)::int as n from catalog_product_documents where org_id = $1",
      [org.id],
    );
    expect(n!.n).toBe(await expectSameAsFresh());
    expect((await view())?.changed.size).toBe(0);
  });

  it("serves the documents themselves while the log says they are current", async () => {
    const [p] = await fx.db.query<{ id: string; body: string }>(
      "select id, body from catalog_product_documents where org_id = $1 order by id limit 1",
      [org.id],
    );
    await fx.db.query("update catalog_product_documents set body = $3 where org_id = $1 and id = $2", [
      org.id,
      p!.id,
      '{"served":"from its document"}',
    ]);
    try {
      const [line] = await readProductLines(ctx, org, { ids: [p!.id] }, base, await view());
      expect(line?.json).toBe('{"served":"from its document"}');
    } finally {
      await fx.db.query("update catalog_product_documents set body = $3 where org_id = $1 and id = $2", [
        org.id,
        p!.id,
        p!.body,
      ]);
    }
  });

  it("every kind of change written behind the refresher is seen at once; the refresher then rewrites them", async () => {
    let salt = 1;
    for (const kind of CHANGE_KINDS)
      for (let pick = 0; pick < 3; pick++)
        await applyChange(fx.db, org.id, { kind, pick: pick * 7 + 1, salt: salt++ });
    const changed = (await view())!.changed;
    expect(changed.size).toBeGreaterThan(0);
    await expectSameAsFresh();
    expect(await refreshProductDocuments(fx.db, ctx, org, base)).toBe("caught-up");
    expect((await mark())?.mark).toBe(await head());
    expect((await view())?.changed.size).toBe(0);
    await expectSameAsFresh();
    // A deleted product's document is gone with it.
    const [orphans] = await fx.db.query<{ n: number }>(
      `select count(*)::int as n from catalog_product_documents d
        where d.org_id = $1 and not exists (select 1 from products p where p.org_id = d.org_id and p.id = d.id)`,
      [org.id],
    );
    expect(orphans!.n).toBe(0);
    expect(await refreshProductDocuments(fx.db, ctx, org, base)).toBe("idle");
  });

  it("changes are rewritten a batch per step, the mark moved by the step that finds less; readers stay exact meanwhile", async () => {
    const before = (await mark())!.mark;
    for (let i = 0; i < 25; i++)
      await applyChange(fx.db, org.id, { kind: "relabel", pick: i * 13, salt: 900 + i });
    await applyChange(fx.db, org.id, { kind: "delete", pick: 11, salt: 1 });
    let steps = 0;
    while ((await refreshProductDocuments(fx.db, ctx, org, base, 4)) === "wrote") {
      steps++;
      if ((await mark())!.mark === before) await expectSameAsFresh();
    }
    // 26 products in batches of 4: six full batches, then the one that finds less and moves the mark (caught-up).
    expect(steps).toBe(6);
    expect((await mark())!.mark).toBe(await head());
    await expectSameAsFresh();
  });

  it("more changes than rewriting each is worth start a build; readers stay exact meanwhile", async () => {
    for (let i = 0; i < 12; i++)
      await applyChange(fx.db, org.id, { kind: "value", pick: i * 5, salt: 300 + i });
    expect(await refreshProductDocuments(fx.db, ctx, org, base, 40, 10)).toBe("wrote");
    expect((await mark())?.build_after).toBe("");
    await expectSameAsFresh();
    for (let i = 0; i < 5; i++) await refreshProductDocuments(fx.db, ctx, org, base, 40, 10);
    await expectSameAsFresh();
    while ((await refreshProductDocuments(fx.db, ctx, org, base)) === "wrote");
    expect((await mark())?.build_after).toBeNull();
    expect((await view())?.changed.size).toBe(0);
    await expectSameAsFresh();
  });

  it("documents built for another base URL are not used, and are built again for this one", async () => {
    expect(await documentView(fx.db, org.id, "http://other.test", "0")).toBeUndefined();
    expect(await refreshProductDocuments(fx.db, ctx, org, "http://other.test")).toBe("wrote");
    // The mark now belongs to the other URL's build: this one's readers read anew.
    expect(await view()).toBeUndefined();
    await expectSameAsFresh();
    while ((await refreshProductDocuments(fx.db, ctx, org, base)) === "wrote");
    expect(await view()).toBeDefined();
    await expectSameAsFresh();
  });

  if (driver === "pg")
    it("two refreshers never work on one organization at once: the second finds it busy", async () => {
      await applyChange(fx.db, org.id, { kind: "relabel", pick: 3, salt: 4242 });
      let busy: string | undefined;
      await fx.db.transaction(async (tx) => {
        await tx.query("select pg_advisory_xact_lock(hashtext('catalog_product_documents'), hashtext($1))", [
          org.id,
        ]);
        busy = await refreshProductDocuments(fx.db, ctx, org, base);
      });
      expect(busy).toBe("busy");
      expect(await refreshProductDocuments(fx.db, ctx, org, base)).toBe("caught-up");
      await expectSameAsFresh();
    });

  it("the runtime's refresher brings every organization up to its head", async () => {
    await applyChange(fx.db, fx.acme.orgId, { kind: "value", pick: 5, salt: 77 });
    expect(await fx.runtime.background.documents.runOnce()).toBeGreaterThan(0);
    const rows = await fx.db.query<{ slug: string; behind: boolean }>(
      `select o.slug, coalesce(m.mark, -1) < coalesce(h.head, 0) as behind
         from organizations o
         left join catalog_change_heads h on h.org_id = o.id
         left join catalog_product_document_marks m on m.org_id = o.id and m.base_url = $1`,
      [base],
    );
    expect(rows.length).toBeGreaterThan(1);
    expect(rows.filter((r) => r.behind)).toEqual([]);
  });

  // On Postgres: PGlite runs one statement at a time in this process, so no commit lands while a tick runs.
  if (driver === "pg")
    it("a tick steps an organization once it caught up with the head it read, however fast commits keep coming", async () => {
      await fx.runtime.background.documents.runOnce();
      let writing = true;
      let commits = 0;
      // Four writers committing without a pause (400 commits at most).
      const writer = Promise.all(
        [0, 1, 2, 3].map(async (w) => {
          while (writing && commits < 400) {
            const n = commits++;
            await applyChange(fx.db, org.id, { kind: "relabel", pick: (n * 4 + w) % 20, salt: 7000 + n });
          }
        }),
      );
      try {
        while (commits < 2) await new Promise((r) => setTimeout(r, 5));
        const before = commits;
        const steps = await fx.runtime.background.documents.runOnce();
        // The writer went on committing while the tick ran; the tick took one step, not one per commit it saw.
        expect(commits).toBeGreaterThan(before);
        expect(steps).toBe(1);
      } finally {
        writing = false;
        await writer;
      }
      await fx.runtime.background.documents.runOnce();
      await expectSameAsFresh();
    });
});
