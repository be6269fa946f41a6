// The router (lib/public-api/router.ts): which paths exist, which methods each allows, the preflight, HEAD as GET,
// and the preview features' paths that exist only while their feature is on. In-process (publicApi.fetch and the
// route files' handlers) on the seeded demo database.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PREVIEW_FEATURES, withNeeds, type PreviewFeature } from "@/lib/preview";
import { publicApi } from "@/lib/public-api/router";
import { createRuntime, setRuntime } from "@/lib/runtime";
import { call, expectError, fetchApi, setupApi, type ApiFixture } from "../support/api";

let fx: ApiFixture;

beforeAll(async () => {
  fx = await setupApi("pglite");
}, 120_000);

afterAll(async () => {
  await fx?.close();
});

// Runs `fn` on a runtime of the fixture's database with these preview features on (and those they need).
async function withPreview(features: readonly PreviewFeature[], fn: () => Promise<void>): Promise<void> {
  const rt = createRuntime({ ...fx.config, preview: withNeeds(features) }, fx.db);
  setRuntime(rt);
  try {
    await fn();
  } finally {
    setRuntime(fx.runtime);
    await rt.close();
  }
}

const V1_LISTS = ["products", "families", "attributes", "categories", "media"].map((r) => `/public/v1/${r}`);
// The paths of the preview features, each with a value its parameter takes.
const PREVIEW_PATHS = [
  "/public/v1/products/prd_x",
  "/public/v1/families/fam_x",
  "/public/v1/attributes/att_x",
  "/public/v1/channels",
  "/public/v1/changes",
  "/public/v1/export/products",
];
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

describe("404 for a path that names nothing", () => {
  const unknown = [
    "/public",
    "/public/",
    "/public/v1",
    "/public/v1/",
    "/public/v2/products",
    "/public/v1/unknown",
    "/public/v1/products/",
    "/public/v1/products/prd_x/values",
    "/public/v1/PRODUCTS",
    "/public/v1/openapi.json/x",
  ];

  it.each(METHODS)("%s: the error shape, code PUBLIC_API_NOT_FOUND (no body for HEAD)", async (method) => {
    for (const path of unknown) {
      const res = await call(path, { method, key: fx.acme.full });
      if (method === "HEAD") {
        expect(res.status, path).toBe(404);
        expect(res.body, path).toBeUndefined();
      } else expectError(res, 404, "PUBLIC_API_NOT_FOUND");
      expect(res.headers.get("allow"), path).toBeNull();
    }
  });

  it("the catch-all route's handlers answer the same", async () => {
    const handlers = publicApi.notFound();
    for (const method of ["GET", "POST", "DELETE"] as const) {
      const res = await handlers[method](new Request("http://api.test/public/v2", { method }));
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ statusCode: 404, code: "PUBLIC_API_NOT_FOUND" });
    }
    expect((await handlers.OPTIONS()).status).toBe(404);
  });
});

describe("405 with Allow", () => {
  it("V1: every path allows GET, HEAD; any other method is a 405 naming them", async () => {
    for (const path of [...V1_LISTS, "/public/v1/openapi.json"])
      for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
        const res = await call(path, { method, key: fx.acme.full });
        expectError(res, 405, "PUBLIC_API_METHOD_NOT_ALLOWED");
        expect(res.headers.get("allow"), `${method} ${path}`).toBe("GET, HEAD");
        expect(res.body.message).toBe(
          `Méthode ${method} non autorisée sur cette ressource. Méthodes autorisées : GET, HEAD.`,
        );
      }
  });

  it("with the write preview on, products allow GET, HEAD, POST; the other lists still GET, HEAD", async () => {
    await withPreview(["writes"], async () => {
      const res = await call("/public/v1/products", { method: "DELETE", key: fx.acme.full });
      expectError(res, 405, "PUBLIC_API_METHOD_NOT_ALLOWED");
      expect(res.headers.get("allow")).toBe("GET, HEAD, POST");
      const families = await call("/public/v1/families", { method: "POST", key: fx.acme.full });
      expect(families.headers.get("allow")).toBe("GET, HEAD");
    });
  });

  it("the route files' handlers answer as fetch does", async () => {
    const { POST, PUT } = publicApi.route("/public/v1/products");
    const res = await POST(new Request("http://api.test/public/v1/products", { method: "POST" }));
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD");
    expect((await PUT(new Request("http://api.test/public/v1/products", { method: "PUT" }))).status).toBe(
      405,
    );
  });
});

describe("the CORS preflight", () => {
  // A preflight's answer: 204, no body, the methods allowed (and OPTIONS) and the headers a client may send.
  async function expectPreflight(path: string, allow: string): Promise<void> {
    const res = await fetchApi(path, { method: "OPTIONS" });
    expect(res.status, path).toBe(204);
    expect(await res.text()).toBe("");
    expect(res.headers.get("allow"), path).toBe(allow);
    expect(res.headers.get("access-control-allow-methods"), path).toBe(`${allow}, OPTIONS`);
    expect(res.headers.get("access-control-allow-headers")).toContain("Authorization");
  }

  it("answers for each V1 path, without a key", async () => {
    for (const path of [...V1_LISTS, "/public/v1/openapi.json"]) await expectPreflight(path, "GET, HEAD");
  });

  it("answers for each preview path while its feature is on, 404 while it is off", async () => {
    for (const path of PREVIEW_PATHS)
      expect((await fetchApi(path, { method: "OPTIONS" })).status, path).toBe(404);
    await withPreview(PREVIEW_FEATURES, async () => {
      for (const path of PREVIEW_PATHS) await expectPreflight(path, "GET, HEAD");
      await expectPreflight("/public/v1/products", "GET, HEAD, POST");
    });
  });

  it("the route file's OPTIONS: the preflight of its path, with or without a request", async () => {
    const { OPTIONS } = publicApi.route("/public/v1/families");
    expect((await OPTIONS()).status).toBe(204);
    expect((await OPTIONS(new Request("http://api.test/public/v1/families"))).status).toBe(204);
    const exporting = publicApi.route("/public/v1/export/{resource}");
    await withPreview(["export"], async () => {
      expect((await exporting.OPTIONS(new Request("http://api.test/public/v1/export/media"))).status).toBe(
        204,
      );
      expect((await exporting.OPTIONS(new Request("http://api.test/public/v1/export/nope"))).status).toBe(
        404,
      );
    });
  });
});

describe("HEAD is GET without its body", () => {
  it.each([...V1_LISTS, "/public/v1/openapi.json"])(
    "%s: the same status and headers, no body",
    async (path) => {
      const get = await fetchApi(path, { key: fx.acme.full });
      const head = await fetchApi(path, { method: "HEAD", key: fx.acme.full });
      expect(head.status).toBe(get.status);
      expect(get.status).toBe(200);
      expect(await head.text()).toBe("");
      expect((await get.text()).length).toBeGreaterThan(0);
      for (const name of ["content-type", "cache-control", "etag", "vary"])
        expect(head.headers.get(name), name).toBe(get.headers.get(name));
    },
  );

  it("an error too: its status and headers, no body", async () => {
    const head = await fetchApi("/public/v1/products", { method: "HEAD" });
    expect(head.status).toBe(401);
    expect(head.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(await head.text()).toBe("");
  });
});

describe("the preview features' paths", () => {
  it("do not exist while their feature is off: 404 for every method", async () => {
    for (const path of PREVIEW_PATHS)
      for (const method of ["GET", "POST", "DELETE"])
        expectError(await call(path, { method, key: fx.acme.full }), 404, "PUBLIC_API_NOT_FOUND");
    // POST /public/v1/products is the write preview's: off, the path allows GET, HEAD only.
    expect((await call("/public/v1/products", { method: "POST", key: fx.acme.full })).status).toBe(405);
  });

  it("are served while it is on", async () => {
    await withPreview(PREVIEW_FEATURES, async () => {
      const products = await call("/public/v1/products?perPage=1", { key: fx.acme.full });
      const id = products.body.data[0].id as string;
      expect((await call(`/public/v1/products/${id}`, { key: fx.acme.full })).status).toBe(200);
      expect((await call("/public/v1/channels", { key: fx.acme.full })).status).toBe(200);
      expect((await call("/public/v1/changes?wait=0", { key: fx.acme.full })).status).toBe(200);
      const exported = await fetchApi("/public/v1/export/categories", { key: fx.acme.full });
      expect(exported.status).toBe(200);
      await exported.body?.cancel();
      // An id of no product is the item's own 404 (its message names the resource), not the router's.
      const missing = await call("/public/v1/families/fam_none", { key: fx.acme.full });
      expectError(missing, 404, "PUBLIC_API_NOT_FOUND");
      expect(missing.body.message).toMatch(/^Famille introuvable/);
    });
  });

  it("each feature switches its own paths only", async () => {
    await withPreview(["changes"], async () => {
      expect((await call("/public/v1/changes?wait=0", { key: fx.acme.full })).status).toBe(200);
      expect((await call("/public/v1/channels", { key: fx.acme.full })).status).toBe(404);
      expect((await fetchApi("/public/v1/export/products", { method: "OPTIONS" })).status).toBe(404);
    });
  });
});

describe("path parameters", () => {
  it("an export takes its resources' names only: any other is no path, 404 whatever the key", async () => {
    await withPreview(["export"], async () => {
      for (const name of ["nope", "Products", "product", "openapi.json"]) {
        const res = await call(`/public/v1/export/${name}`, { key: fx.acme.full });
        expectError(res, 404, "PUBLIC_API_NOT_FOUND");
        expect(res.body.message).toBe("Ressource introuvable.");
      }
      // The value is matched decoded.
      const encoded = await fetchApi("/public/v1/export/%6Dedia", { key: fx.acme.full });
      expect(encoded.status).toBe(200);
      await encoded.body?.cancel();
    });
  });

  it("a segment that does not decode names nothing: 404", async () => {
    await withPreview(["details"], async () => {
      for (const segment of ["%E0%A4%A", "%", "%zz"]) {
        const res = await call(`/public/v1/products/${segment}`, { key: fx.acme.full });
        expectError(res, 404, "PUBLIC_API_NOT_FOUND");
        expect(res.body.message, segment).toBe("Ressource introuvable.");
      }
    });
  });
});
