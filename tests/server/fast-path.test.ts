// The fast path of the production server (lib/server/fast-path.ts, lib/server/next-routes.ts) on a real node:http
// server: the route table from Next.js' manifests, the Web Request a handler gets, the Response written as Next.js
// writes it (Vary, compression, HEAD, streaming with backpressure), failures that never crash the server, and
// the API's own handlers behind it (the write preview's body: 413, an aborted upload).
// The comparison with `next start` itself is tests/e2e/parity.spec.ts (it needs a build).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { gunzipSync } from "node:zlib";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createFastPath, type Compression, type FastPath } from "@/lib/server/fast-path";
import {
  routeTable,
  unsupportedConfig,
  type LoadRoute,
  type NextBuildManifests,
  type RouteHandler,
} from "@/lib/server/next-routes";
import * as products from "@/app/public/v1/products/route";
import * as notFound from "@/app/public/v1/[...path]/route";
import { setupWritePreview, type WriteFixture } from "../support/write-preview";

const compression = (createRequire(import.meta.url)("next/dist/compiled/compression") as () => Compression)();

function manifests(
  over: Partial<NextBuildManifests["routes"]> = {},
  extra: Partial<NextBuildManifests> = {},
) {
  return {
    routes: {
      staticRoutes: [
        { page: "/", regex: "^/(?:/)?$" },
        { page: "/public/v1/echo", regex: "^/public/v1/echo(?:/)?$" },
        { page: "/public/v1/static", regex: "^/public/v1/static(?:/)?$" },
        { page: "/public/v1/page", regex: "^/public/v1/page(?:/)?$" },
      ],
      dynamicRoutes: [
        { page: "/public/v1/items/[id]", regex: "^/public/v1/items/([^/]+?)(?:/)?$" },
        { page: "/public/v1/[...path]", regex: "^/public/v1/(.+?)(?:/)?$" },
        { page: "/public/[[...path]]", regex: "^/public(?:/(.+?))?(?:/)?$" },
      ],
      redirects: [{ regex: "^(?:/((?:[^/]+?)(?:/(?:[^/]+?))*))/$", internal: true }],
      headers: [],
      rewrites: { beforeFiles: [], afterFiles: [], fallback: [] },
      rsc: { varyHeader: "rsc, next-router-state-tree, next-router-prefetch, next-router-segment-prefetch" },
      ...over,
    },
    appPaths: {
      "/public/v1/echo/route": "app/public/v1/echo/route.js",
      "/public/v1/static/route": "app/public/v1/static/route.js",
      "/public/v1/page/page": "app/public/v1/page/page.js",
      "/public/v1/items/[id]/route": "app/public/v1/items/[id]/route.js",
      "/public/v1/[...path]/route": "app/public/v1/[...path]/route.js",
      "/public/[[...path]]/route": "app/public/[[...path]]/route.js",
    },
    middlewareMatchers: [],
    config: { compress: true },
    ...extra,
  } satisfies NextBuildManifests;
}

// Handlers by module file; "static" is a force-static route (Next.js may cache it: left to Next.js).
function loader(handlers: Record<string, Record<string, RouteHandler>>): LoadRoute {
  return (file) => {
    if (file.includes("/static/")) return { skip: "dynamic is force-static" };
    const name = file.replace(/^app\/public\/v1\//, "").replace(/\/route\.js$/, "");
    return { handlers: handlers[name] ?? {} };
  };
}

describe("the route table from the build's manifests", () => {
  const h = (name: string): Record<string, RouteHandler> => ({ GET: async () => new Response(name) });
  const table = routeTable(
    manifests(),
    "/public/v1/",
    loader({ echo: h("echo"), "items/[id]": h("item"), "[...path]": h("rest") }),
  );

  it("matches static routes exactly, then dynamic ones in Next.js' order, with decoded params", () => {
    expect(table.match("/public/v1/echo")?.route.page).toBe("/public/v1/echo");
    expect(table.match("/public/v1/items/a%20b")).toMatchObject({
      route: { page: "/public/v1/items/[id]" },
      params: { id: "a b" },
    });
    expect(table.match("/public/v1/x/y%2Fz")).toMatchObject({
      route: { page: "/public/v1/[...path]" },
      params: { path: ["x", "y/z"] },
    });
    // Not decoded for matching, as Next.js: an escaped letter is another path.
    expect(table.match("/public/v1/ech%6F")?.route.page).toBe("/public/v1/[...path]");
    expect(table.pages.sort()).toEqual(["/public/v1/[...path]", "/public/v1/echo", "/public/v1/items/[id]"]);
  });

  it("leaves to Next.js a page, a route it may cache, anything outside the prefix", () => {
    expect(table.match("/public/v1/page")).toBeUndefined();
    expect(table.match("/public/v1/static")).toBeUndefined();
    expect(table.match("/public/v2/x")).toBeUndefined();
    expect(table.match("/docs")).toBeUndefined();
  });

  it("leaves to Next.js every path the proxy or a next.config header, redirect or rewrite rule touches", () => {
    const load = loader({ echo: h("echo"), "[...path]": h("rest") });
    const proxied = routeTable(
      manifests({}, { middlewareMatchers: ["^/public/v1/echo$"] }),
      "/public/v1/",
      load,
    );
    expect(proxied.match("/public/v1/echo")).toBeUndefined();
    expect(proxied.match("/public/v1/other")).toBeDefined();
    const withHeaders = routeTable(
      manifests({ headers: [{ regex: "^/public/v1/(.*)$" }] }),
      "/public/v1/",
      load,
    );
    expect(withHeaders.match("/public/v1/echo")).toBeUndefined();
    const rewritten = routeTable(
      manifests({ rewrites: { beforeFiles: [{ regex: "^/public/v1/echo$" }] } }),
      "/public/v1/",
      load,
    );
    expect(rewritten.match("/public/v1/echo")).toBeUndefined();
    const redirected = routeTable(
      manifests({ redirects: [{ regex: "^/public/v1/echo$" }] }),
      "/public/v1/",
      load,
    );
    expect(redirected.match("/public/v1/echo")).toBeUndefined();
  });

  it("refuses a build without any route under the prefix, and configurations that change every URL", () => {
    expect(() => routeTable(manifests(), "/api/v9/", loader({}))).toThrow(/no route handler under/);
    expect(unsupportedConfig({ basePath: "/x" })).toMatch(/basePath/);
    expect(unsupportedConfig({ i18n: { locales: ["fr"] } })).toMatch(/i18n/);
    expect(unsupportedConfig({ compress: true })).toBeNull();
  });
});

describe("on a node:http server", () => {
  let server: http.Server;
  let port = 0;
  let fastPath: FastPath;
  let seen: { request: Request; params: unknown; body?: string } | undefined;
  let pulled = 0;
  let cancelled = false;
  const handled: string[] = [];

  const echo: RouteHandler = async (request, context) => {
    seen = {
      request,
      params: await context.params,
      body: request.body ? await request.text() : undefined,
    };
    return Response.json(
      { ok: true, pad: "x".repeat(2000) },
      { headers: { "x-custom": "1", vary: "Origin", "content-length": "999", "Set-Cookie": "a=1" } },
    );
  };
  // A body of 64 MB in 64 KB chunks, produced only as fast as the socket takes it.
  const big: RouteHandler = async () =>
    new Response(
      new ReadableStream({
        pull(c) {
          pulled++;
          if (pulled > 1024) c.close();
          else c.enqueue(new Uint8Array(64 * 1024));
        },
        cancel() {
          cancelled = true;
        },
      }),
      { headers: { "content-type": "application/octet-stream" } },
    );

  // The request's signal, aborted when the client goes away: read at once, or only after the client left.
  const signalSeen: { early?: boolean; late?: boolean } = {};
  const item: RouteHandler = async (request, context) => {
    const { id } = (await context.params) as { id: string };
    if (id === "early") {
      const signal = request.signal;
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
      signalSeen.early = signal.aborted;
      return new Response("gone");
    }
    if (id === "late") {
      await new Promise((r) => setTimeout(r, 300));
      signalSeen.late = request.signal.aborted;
      return new Response("gone");
    }
    return big(request, context);
  };

  beforeAll(async () => {
    const table = routeTable(
      manifests(),
      "/public/v1/",
      loader({
        echo: { GET: echo, HEAD: echo, POST: echo },
        "items/[id]": { GET: item },
        "[...path]": {
          GET: async () => {
            throw new Error("boom");
          },
          POST: () => "not a response" as unknown as Response,
        },
      }),
    );
    server = http.createServer((req, res) => {
      if (fastPath(req, res, req.url!)) return;
      handled.push(`${req.method} ${req.url}`);
      res.end("next");
    });
    fastPath = createFastPath(table, { port: 3999, hostname: "localhost", compression });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  afterEach(() => {
    seen = undefined;
  });

  function call(
    method: string,
    p: string,
    headers: Record<string, string> = {},
    body?: string,
  ): Promise<{ status: number; headers: http.IncomingHttpHeaders; raw: string[]; body: Buffer }> {
    return new Promise((resolve, reject) => {
      const req = http.request({ host: "127.0.0.1", port, method, path: p, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode!,
            headers: res.headers,
            raw: res.rawHeaders,
            body: Buffer.concat(chunks),
          }),
        );
      });
      req.on("error", reject);
      req.end(body);
    });
  }

  it("gives the handler the Request Next.js would: URL, method, headers with X-Forwarded-*, params", async () => {
    const r = await call("GET", "/public/v1/echo?b=2&a=1&b=3", {
      "x-forwarded-for": "203.0.113.7",
      accept: "*/*",
    });
    expect(r.status).toBe(200);
    expect(seen!.request.url).toBe("http://localhost:3999/public/v1/echo?b=2&a=1&b=3");
    expect(seen!.request.method).toBe("GET");
    expect(Object.fromEntries(seen!.request.headers)).toEqual({
      accept: "*/*",
      connection: "keep-alive",
      host: `127.0.0.1:${port}`,
      "x-forwarded-for": "203.0.113.7",
      "x-forwarded-host": `127.0.0.1:${port}`,
      "x-forwarded-port": "3999",
      "x-forwarded-proto": "http",
    });
    expect(seen!.request.signal.aborted).toBe(false);
    expect(seen!.params).toEqual({});
    expect(seen!.body).toBeUndefined();
  });

  // Issue 21, row 10: Next.js' re-serialisation dropped `__proto__` (and `nxtP…` names) before the API's parser.
  it("gives the handler the query as sent: every name kept, in the client's order", async () => {
    const query = "?__proto__=x&b=1&nxtPpath=2&constructor=3&b=4&q=a+b%20c&t=%ZZ";
    await call("GET", `/public/v1/echo${query}`);
    expect(seen!.request.url).toBe(`http://localhost:3999/public/v1/echo${query}`);
    expect([...new URL(seen!.request.url).searchParams.keys()]).toEqual([
      "__proto__",
      "b",
      "nxtPpath",
      "constructor",
      "b",
      "q",
      "t",
    ]);
  });

  it("keeps a proxy's X-Forwarded-Proto and builds an https URL from it", async () => {
    await call("GET", "/public/v1/echo", { "x-forwarded-proto": "https", "x-forwarded-port": "443" });
    expect(seen!.request.url).toBe("https://localhost:3999/public/v1/echo");
    expect(seen!.request.headers.get("x-forwarded-port")).toBe("443");
  });

  it("passes a POST body as a stream", async () => {
    await call("POST", "/public/v1/echo", { "content-type": "application/json" }, '{"a":1}');
    expect(seen!.body).toBe('{"a":1}');
  });

  it("writes the Response as Next.js, but for its router headers in Vary: the handler's headers but Content-Length, chunked", async () => {
    const r = await call("GET", "/public/v1/echo");
    // Issue 21, row 15: Next.js' "rsc, next-router-state-tree, …" came first.
    expect(r.headers.vary).toBe("Origin, Accept-Encoding");
    expect(r.headers["x-custom"]).toBe("1");
    expect(r.headers["set-cookie"]).toEqual(["a=1"]);
    expect(r.headers["content-length"]).toBeUndefined();
    expect(r.headers["transfer-encoding"]).toBe("chunked");
    expect(JSON.parse(r.body.toString()).ok).toBe(true);
  });

  it("compresses as Next.js does when the client accepts gzip", async () => {
    const r = await call("GET", "/public/v1/echo", { "accept-encoding": "gzip" });
    expect(r.headers["content-encoding"]).toBe("gzip");
    expect(JSON.parse(gunzipSync(r.body).toString()).ok).toBe(true);
  });

  it("sends no body to HEAD", async () => {
    const r = await call("HEAD", "/public/v1/echo");
    expect(r.status).toBe(200);
    expect(r.body.length).toBe(0);
    expect(r.headers["x-custom"]).toBe("1");
  });

  it("hands to Next.js what no route of its table answers: another method, another prefix, a page", async () => {
    handled.length = 0;
    expect((await call("PUT", "/public/v1/echo")).body.toString()).toBe("next");
    expect((await call("GET", "/public/v1/page")).body.toString()).toBe("next");
    expect((await call("GET", "/docs")).body.toString()).toBe("next");
    expect((await call("GET", "/public/v1/echo/")).body.toString()).toBe("next");
    expect(handled).toEqual([
      "PUT /public/v1/echo",
      "GET /public/v1/page",
      "GET /docs",
      "GET /public/v1/echo/",
    ]);
  });

  it("answers a handler that throws or returns no Response with a 500 in the API's shape, and keeps serving", async () => {
    for (const method of ["GET", "POST"]) {
      const r = await call(method, "/public/v1/anything");
      expect(r.status).toBe(500);
      const body = JSON.parse(r.body.toString());
      expect(body).toEqual({
        statusCode: 500,
        error: "Internal Server Error",
        code: "PUBLIC_API_INTERNAL_ERROR",
        message: expect.any(String),
        requestId: r.headers["x-request-id"],
      });
    }
    expect((await call("GET", "/public/v1/echo")).status).toBe(200);
  });

  it("streams a large body only as fast as the client reads it, and stops when the client goes away", async () => {
    pulled = 0;
    cancelled = false;
    await new Promise<void>((resolve, reject) => {
      const req = http.request({ host: "127.0.0.1", port, path: "/public/v1/items/1" }, (res) => {
        res.pause();
        // The client reads nothing for a while: the server stops pulling once the socket's buffers are full.
        setTimeout(() => {
          try {
            expect(pulled).toBeGreaterThan(0);
            expect(pulled).toBeLessThan(200); // far from the 1,024 chunks of the body
            res.destroy();
            resolve();
          } catch (err) {
            reject(err as Error);
          }
        }, 300);
      });
      req.on("error", () => undefined);
      req.end();
    });
    await expect.poll(() => cancelled).toBe(true);
    expect((await call("GET", "/public/v1/echo")).status).toBe(200);
  });

  it.each(["early", "late"] as const)(
    "aborts the request's signal when the client goes away (signal read %s)",
    async (when) => {
      delete signalSeen[when];
      const req = http.request({ host: "127.0.0.1", port, path: `/public/v1/items/${when}` });
      req.on("error", () => undefined);
      req.end();
      await new Promise((r) => setTimeout(r, 100));
      req.destroy();
      await expect.poll(() => signalSeen[when]).toBe(true);
      // A signal read after a complete answer is not aborted (as under Next.js): the echo test above.
      expect((await call("GET", "/public/v1/echo")).status).toBe(200);
      expect(seen!.request.signal.aborted).toBe(false);
    },
  );
});

describe("the API's handlers behind the fast path (write preview on)", () => {
  let w: WriteFixture;
  let server: http.Server;
  let port = 0;

  beforeAll(async () => {
    w = await setupWritePreview("pglite");
    const h = (m: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(m).filter(([, v]) => typeof v === "function")) as Record<
        string,
        RouteHandler
      >;
    const table = routeTable(
      manifests(
        {
          staticRoutes: [{ page: "/public/v1/products", regex: "^/public/v1/products(?:/)?$" }],
          dynamicRoutes: [{ page: "/public/v1/[...path]", regex: "^/public/v1/(.+?)(?:/)?$" }],
        },
        {
          appPaths: {
            "/public/v1/products/route": "app/public/v1/products/route.js",
            "/public/v1/[...path]/route": "app/public/v1/[...path]/route.js",
          },
        },
      ),
      "/public/v1/",
      (file) => ({ handlers: file.includes("products") ? h(products) : h(notFound) }),
    );
    const fastPath = createFastPath(table, { port: 3999, hostname: "localhost", compression });
    server = http.createServer((req, res) => {
      if (!fastPath(req, res, req.url!)) res.writeHead(599).end();
    });
    server.keepAliveTimeout = 5_000;
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as AddressInfo).port;
  }, 120_000);
  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    await w?.f.close();
  });

  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  afterAll(() => agent.destroy());

  function send(
    method: string,
    p: string,
    headers: Record<string, string>,
    body?: string | Buffer,
  ): Promise<{
    status: number;
    json: Record<string, unknown>;
    socket: unknown;
    headers: http.IncomingHttpHeaders;
  }> {
    return new Promise((resolve, reject) => {
      const req = http.request({ host: "127.0.0.1", port, method, path: p, headers, agent }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c) => (text += c));
        res.on("end", () =>
          resolve({
            status: res.statusCode!,
            json: text ? JSON.parse(text) : {},
            socket: req.socket,
            headers: res.headers,
          }),
        );
      });
      req.on("error", reject);
      req.end(body);
    });
  }
  const auth = () => ({ authorization: `Bearer ${w.writer}`, "content-type": "application/json" });

  it("creates a product: 201 with Location", async () => {
    const r = await send("POST", "/public/v1/products", auth(), JSON.stringify(w.body()));
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ id: expect.stringMatching(/^prd_/), status: "draft" });
  });

  it("413 on a body over 64 KB, declared or streamed, and the connection stays usable", async () => {
    const big = JSON.stringify({ ...w.body(), pad: "x".repeat(70 * 1024) });
    const declared = await send("POST", "/public/v1/products", auth(), big);
    expect(declared.status).toBe(413);
    expect(declared.json.code).toBe("PUBLIC_API_PAYLOAD_TOO_LARGE");
    const chunked = await send(
      "POST",
      "/public/v1/products",
      { ...auth(), "transfer-encoding": "chunked" },
      big,
    );
    expect(chunked.status).toBe(413);
    const after = await send("GET", "/public/v1/products?perPage=1", auth());
    expect(after.status).toBe(200);
  });

  it("an upload cut half-way does not crash the server", async () => {
    await new Promise<void>((resolve) => {
      const req = http.request({
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/public/v1/products",
        headers: { ...auth(), "content-length": "5000" },
      });
      req.on("error", () => resolve());
      req.on("response", () => resolve());
      req.write('{"familyId": "');
      setTimeout(() => req.destroy(), 100);
    });
    const r = await send("GET", "/public/v1/products?perPage=1", auth());
    expect(r.status).toBe(200);
  });

  // Issue 21, row 10.
  it.each(["__proto__=1", "perPage=1&__proto__=1", "__proto__=1&__proto__=2", "nxtPx=1", "constructor=1"])(
    "?%s is a 400 naming the unknown parameter, as sent",
    async (query) => {
      const r = await send("GET", `/public/v1/products?${query}`, auth());
      expect(r.status).toBe(400);
      expect(r.json.code).toBe("PUBLIC_API_INVALID_QUERY");
      expect(r.json.message).toContain(`« ${/(__proto__|nxtPx|constructor)/.exec(query)![1]} »`);
    },
  );

  it("reads the query as sent from the front door's header when present (Next.js' request.url may have lost names)", async () => {
    const r = await send("GET", "/public/v1/products?perPage=1", {
      ...auth(),
      "x-pca-sent-query": "perPage=1&__proto__=1",
    });
    expect(r.status).toBe(400);
    expect(r.json.message).toContain("« __proto__ »");
    const ok = await send("GET", "/public/v1/products?perPage=1", {
      ...auth(),
      "x-pca-sent-query": "perPage=2",
    });
    expect(ok.status).toBe(200);
    expect((ok.json.pagination as { perPage: number }).perPage).toBe(2);
  });

  // Issue 21, row 15.
  it("a list's answer varies by Authorization and Accept-Encoding only; no answer by Next.js' router headers", async () => {
    const list = await send("GET", "/public/v1/products?perPage=1", auth());
    expect(list.status).toBe(200);
    expect(list.headers.vary).toBe("Authorization, Accept-Encoding");
    for (const r of [
      await send("GET", "/public/v1/products", {}),
      await send("GET", "/public/v1/channels", auth()),
      await send("PUT", "/public/v1/products", auth()),
    ])
      expect(r.headers.vary ?? "").not.toMatch(/rsc|next-/i);
  });

  it("404 and 405 from the same handlers Next.js calls", async () => {
    expect((await send("GET", "/public/v1/channels", auth())).json.code).toBe("PUBLIC_API_NOT_FOUND");
    expect((await send("PUT", "/public/v1/products", auth())).json.code).toBe(
      "PUBLIC_API_METHOD_NOT_ALLOWED",
    );
  });
});
