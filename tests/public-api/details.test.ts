// Preview feature `details` through the router (issue 23): a product, a family, an attribute read whole and the
// channels listed, on PGlite and on the Postgres server; the shared security cases on each operation; off, every
// one of them is the 404 of an unknown path.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  attributeDetailSchema,
  channelSchema,
  familyDetailSchema,
  productDetailSchema,
} from "@/lib/catalog/resources/schemas";
import { generateApiKey } from "@/lib/keys/format";
import { call, expectError, setupApi, swapRuntime, type ApiFixture } from "../support/api";
import { createRuntime } from "@/lib/runtime";
import { loadConfig } from "@/lib/config";

describe.each(["pglite", "pg"] as const)("preview `details` on %s", (driver) => {
  let fx: ApiFixture;
  // The first item of each of acme's and globex's lists (ids read from the API, none hard-coded).
  const ids: Record<"acme" | "globex", Record<"product" | "family" | "attribute", string>> = {
    acme: { product: "", family: "", attribute: "" },
    globex: { product: "", family: "", attribute: "" },
  };
  beforeAll(async () => {
    fx = await setupApi(driver, { PUBLIC_API_PREVIEW: "details" });
    for (const org of ["acme", "globex"] as const) {
      const key = fx[org].full;
      ids[org].product = (await call("/public/v1/products?perPage=1", { key })).body.data[0].id;
      ids[org].family = (await call("/public/v1/families?perPage=1", { key })).body.data[0].id;
      ids[org].attribute = (
        await call("/public/v1/attributes?type=SELECT&perPage=1", { key })
      ).body.data[0].id;
    }
  });
  afterAll(async () => {
    await fx?.close();
  });

  // Each operation: its path for acme's first item, the scope it needs, the schema of its answer.
  const operations = () => [
    {
      name: "product",
      path: `/public/v1/products/${ids.acme.product}`,
      other: `/public/v1/products/${ids.globex.product}`,
      scope: "products" as const,
      check: (b: unknown) => productDetailSchema.parse(b),
    },
    {
      name: "family",
      path: `/public/v1/families/${ids.acme.family}`,
      other: `/public/v1/families/${ids.globex.family}`,
      scope: "families" as const,
      check: (b: unknown) => familyDetailSchema.parse(b),
    },
    {
      name: "attribute",
      path: `/public/v1/attributes/${ids.acme.attribute}`,
      other: `/public/v1/attributes/${ids.globex.attribute}`,
      scope: "attributes" as const,
      check: (b: unknown) => attributeDetailSchema.parse(b),
    },
  ];

  it("reads each item whole, as its list shows it plus its details; ETag and 304", async () => {
    for (const op of operations()) {
      const res = await call(op.path, { key: fx.acme.full });
      expect(res.status, op.path).toBe(200);
      const item = op.check(res.body) as { id: string };
      expect(item.id).toBe(op.path.split("/").pop());
      const tag = res.headers.get("etag");
      expect(tag).toMatch(/^"[\w-]{32}"$/);
      expect(res.headers.get("cache-control")).toBe("private, no-cache");
      const again = await call(op.path, { key: fx.acme.full, headers: { "if-none-match": tag! } });
      expect(again.status).toBe(304);
      expect(again.body).toBeUndefined();
    }
  });

  // A detail read twice is the page cache's the second time (its tag keyed by the versions of what it shows); then a
  // change to something it shows, made with plain SQL as the product-information application makes it, and the
  // old tag is a 200 with the changed detail: never a stale body, never a stale 304.
  it("serves a detail read again from the cache, and any change to what it shows in the next answer", async () => {
    const key = fx.acme.full;
    const one = async <R>(sql: string, params: unknown[]) => (await fx.db.query<R>(sql, params))[0]!;
    const afterChange = async (path: string, change: () => Promise<unknown>) => {
      const first = await call(path, { key });
      const cached = await call(path, { key });
      expect(cached.headers.get("server-timing"), path).toContain("hit");
      expect(cached.headers.get("etag")).toBe(first.headers.get("etag"));
      await change();
      const after = await call(path, { key, headers: { "if-none-match": first.headers.get("etag")! } });
      expect(after.status, path).toBe(200);
      expect(after.headers.get("etag")).not.toBe(first.headers.get("etag"));
      return after.body;
    };
    const productId = ids.acme.product;
    const product = `/public/v1/products/${productId}`;
    const p = await one<{ org_id: string; family_id: string }>(
      "select org_id, family_id from products where id = $1",
      [productId],
    );

    // A text value of the product.
    const text = await one<{ code: string; id: string }>(
      `select a.code, a.id from product_values pv join attributes a on a.id = pv.attribute_id
        where pv.product_id = $1 and pv.channel_id is null and a.type in ('TEXT', 'TEXTAREA') and a.code <> 'name'
        order by a.code limit 1`,
      [productId],
    );
    let body = await afterChange(product, () =>
      fx.db.query(
        `update product_values set value = '"Changé par SQL"' where product_id = $1 and attribute_id = $2 and channel_id is null`,
        [productId, text.id],
      ),
    );
    expect(body.values[text.code]).toBe("Changé par SQL");

    // A public media linked to it (a link from a media already linked elsewhere moves no list's version).
    const media = await one<{ id: string }>(
      `select m.id from media m where m.org_id = $1 and m.is_public
          and not exists (select 1 from media_links l where l.media_id = m.id and l.product_id = $2)
        order by m.link_count desc, m.id limit 1`,
      [p.org_id, productId],
    );
    body = await afterChange(product, () =>
      fx.db.query(
        "insert into media_links (org_id, media_id, product_id, position) values ($1, $2, $3, 99)",
        [p.org_id, media.id, productId],
      ),
    );
    expect(body.media.map((m: { id: string }) => m.id)).toContain(media.id);

    // Its family renamed.
    body = await afterChange(product, () =>
      fx.db.query("update families set label = 'Famille renommée' where id = $1", [p.family_id]),
    );
    expect(body.family.label).toBe("Famille renommée");

    // A family's attribute made required, or no longer.
    const family = `/public/v1/families/${ids.acme.family}`;
    const link = await one<{ attribute_id: string; is_required: boolean }>(
      "select attribute_id, is_required from family_attributes where family_id = $1 order by attribute_id limit 1",
      [ids.acme.family],
    );
    body = await afterChange(family, () =>
      fx.db.query(
        "update family_attributes set is_required = not is_required where family_id = $1 and attribute_id = $2",
        [ids.acme.family, link.attribute_id],
      ),
    );
    expect(body.attributes.find((a: { id: string }) => a.id === link.attribute_id).required).toBe(
      !link.is_required,
    );

    // An option relabelled.
    const attribute = `/public/v1/attributes/${ids.acme.attribute}`;
    body = await afterChange(attribute, () =>
      fx.db.query(
        "update attribute_options set label = 'Libellé changé' where attribute_id = $1 and code = (select min(code) from attribute_options where attribute_id = $1)",
        [ids.acme.attribute],
      ),
    );
    expect(body.options.map((o: { label: string }) => o.label)).toContain("Libellé changé");
  });

  it("an item's fields are its list item's, with the details added", async () => {
    const key = fx.acme.full;
    const product = (await call(`/public/v1/products/${ids.acme.product}`, { key })).body;
    const listed = (await call("/public/v1/products?perPage=1", { key })).body.data[0];
    expect(product).toMatchObject(listed);
    const family = (await call(`/public/v1/families/${ids.acme.family}`, { key })).body;
    expect(family).toMatchObject((await call("/public/v1/families?perPage=1", { key })).body.data[0]);
    expect(family.attributes.length).toBeGreaterThan(0);
    const attribute = (await call(`/public/v1/attributes/${ids.acme.attribute}`, { key })).body;
    expect(attribute.type).toBe("SELECT");
    expect(attribute.options.length).toBeGreaterThan(0);
  });

  it("lists the channels with any read scope, never another organization's", async () => {
    const res = await call("/public/v1/channels", { key: fx.acme.full });
    expect(res.status).toBe(200);
    for (const c of res.body.data) channelSchema.parse(c);
    const globex = (await call("/public/v1/channels", { key: fx.globex.full })).body.data.map(
      (c: { id: string }) => c.id,
    );
    for (const c of res.body.data) expect(globex).not.toContain(c.id);
    for (const without of Object.values(fx.acme.without)) {
      expect((await call("/public/v1/channels", { key: without })).status).toBe(200);
    }
  });

  describe("the shared security cases, on each operation", () => {
    const each =
      (fn: (op: ReturnType<typeof operations>[number] | { name: string; path: string }) => Promise<void>) =>
      async () => {
        for (const op of [...operations(), { name: "channels", path: "/public/v1/channels" }]) await fn(op);
      };

    it(
      "401 without a key, with an unknown key, an expired or a revoked one",
      each(async (op) => {
        expectError(await call(op.path), 401, "PUBLIC_API_KEY_MISSING");
        expectError(await call(op.path, { key: generateApiKey() }), 401, "PUBLIC_API_KEY_INVALID");
        expectError(await call(op.path, { key: fx.acme.expired }), 401, "PUBLIC_API_KEY_EXPIRED");
        expectError(await call(op.path, { key: fx.acme.revoked }), 401, "PUBLIC_API_KEY_REVOKED");
      }),
    );

    it("403 without the resource's scope (an item)", async () => {
      for (const op of operations()) {
        const res = await call(op.path, {
          key: fx.acme.without[op.scope === "products" ? "products" : op.scope],
        });
        expectError(res, 403, "PUBLIC_API_INSUFFICIENT_SCOPE");
        expect(res.body.message).toContain(`${op.scope}:read`);
      }
    });

    it("404 for another organization's id and for one that exists nowhere, the same answer", async () => {
      for (const op of operations()) {
        const other = await call(op.other, { key: fx.acme.full });
        const nowhere = await call(`${op.path.replace(/\/[^/]+$/, "")}/${op.name}_nowhere`, {
          key: fx.acme.full,
        });
        expectError(other, 404, "PUBLIC_API_NOT_FOUND");
        expectError(nowhere, 404, "PUBLIC_API_NOT_FOUND");
        expect(other.body.message).toBe(nowhere.body.message);
        expect(JSON.stringify(other.body)).not.toContain(op.other.split("/").pop());
      }
    });

    it(
      "400 for an unknown query parameter, naming it",
      each(async (op) => {
        const res = await call(`${op.path}?per_page=5`, { key: fx.acme.full });
        expectError(res, 400, "PUBLIC_API_INVALID_QUERY");
        expect(res.body.message).toContain("per_page");
      }),
    );

    it(
      "HEAD answers like GET without a body; OPTIONS is the preflight; POST is a 405",
      each(async (op) => {
        const head = await call(op.path, { key: fx.acme.full, method: "HEAD" });
        expect(head.status).toBe(200);
        expect(head.body).toBeUndefined();
        const options = await call(op.path, { method: "OPTIONS" });
        expect(options.status).toBe(204);
        const post = await call(op.path, { key: fx.acme.full, method: "POST" });
        expectError(post, 405, "PUBLIC_API_METHOD_NOT_ALLOWED");
        expect(post.headers.get("allow")).toBe("GET, HEAD");
      }),
    );
  });

  it("429 once a key spends its quota, on an item as on a list", async () => {
    const rt = createRuntime(
      loadConfig({
        PUBLIC_BASE_URL: "http://api.test",
        PUBLIC_API_PREVIEW: "details",
        RATE_LIMIT_REQUESTS: "3",
      }),
      fx.db,
    );
    await swapRuntime(rt);
    try {
      const path = `/public/v1/products/${ids.acme.product}`;
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await call(path, { key: fx.acme.full })).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
    } finally {
      await swapRuntime(fx.runtime);
    }
  });
});

describe("preview `details` off (V1)", () => {
  let fx: ApiFixture;
  beforeAll(async () => {
    fx = await setupApi("pglite");
  });
  afterAll(async () => {
    await fx?.close();
  });

  it("every one of its paths is the 404 of an unknown path, whatever the method", async () => {
    const product = (await call("/public/v1/products?perPage=1", { key: fx.acme.full })).body.data[0].id;
    const unknown = await call("/public/v1/nothing-here", { key: fx.acme.full });
    for (const path of [
      `/public/v1/products/${product}`,
      "/public/v1/families/x",
      "/public/v1/attributes/x",
      "/public/v1/channels",
    ]) {
      for (const method of ["GET", "HEAD", "OPTIONS", "POST"]) {
        const res = await call(path, { key: fx.acme.full, method });
        expect(res.status, `${method} ${path}`).toBe(404);
        if (method !== "HEAD") expect(res.body.code).toBe(unknown.body.code);
      }
    }
  });
});
