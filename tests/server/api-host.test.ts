// The public API's host under npm start (lib/server/api-host.ts) on a real node:http server: the Web Request the
// router gets, the Response written (Vary, compression, HEAD, streaming with backpressure), failures that never
// crash the server, and the API's own router behind it (the write preview's body: 413, an aborted upload; the query
// as sent; 404 and 405). The comparison with `next start` itself is tests/e2e/parity.spec.ts (it needs a build).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { publicApi } from "@/lib/public-api/router";
import type { ApiRequest } from "@/lib/public-api/api-request";
import type { Reply } from "@/lib/public-api/reply";
import { createApiHost, type ApiHost } from "@/lib/server/api-host";
import { setupWritePreview, type WriteFixture } from "../support/write-preview";

const WHOLE = JSON.stringify(
  Array.from(
    { length: 40_000 },
    (_, i) => ((i * 7919) % 100_003).toString(36) + "qwertzuiopasdfghjklyxcvbnm"[i % 26],
  ),
);

describe("on a node:http server", () => {
  let server: http.Server;
  let port = 0;
  let host: ApiHost;
  let seen: { request: ApiRequest; body?: string } | undefined;
  let pulled = 0;
  let cancelled = false;
  const handled: string[] = [];

  const echo = async (request: ApiRequest) => {
    seen = { request, body: request.body ? await new Response(request.body).text() : undefined };
    return Response.json(
      { ok: true, pad: "x".repeat(2000) },
      { headers: { "x-custom": "1", vary: "Origin", "content-length": "999", "Set-Cookie": "a=1" } },
    );
  };
  // A body of 64 MB in 64 KB chunks, produced only as fast as the socket takes it.
  const big = async () =>
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
  const item = async (request: ApiRequest, id: string) => {
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
    return big();
  };
  // A stand-in for the router: echo, items, a throw and a non-reply; its answers written as Responses, given as
  // their parts.
  const reply = (r: Response): Reply => ({ status: r.status, headers: r.headers, body: r.body });
  const api = async (request: ApiRequest): Promise<Reply> => {
    const path = new URL(request.url).pathname;
    if (path === "/public/v1/echo") return reply(await echo(request));
    // A body given whole, as the API's JSON: far more than a socket's buffer (and than zlib's), of random letters
    // that do not compress to nothing.
    if (path === "/public/v1/whole") {
      const headers = new Headers({ "content-type": "application/json; charset=utf-8" });
      return { status: 200, headers, body: WHOLE };
    }
    if (path.startsWith("/public/v1/items/"))
      return reply(await item(request, path.slice("/public/v1/items/".length)));
    if (request.method === "POST") return "not a reply" as unknown as Reply;
    throw new Error("boom");
  };

  beforeAll(async () => {
    host = createApiHost(api, { compress: true });
    server = http.createServer((req, res) => {
      if (req.url!.startsWith("/public/")) return host(req, res, req.url!);
      handled.push(`${req.method} ${req.url}`);
      res.end("next");
    });
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

  it("gives the router the request: a localhost URL with the path and the query as sent, the node headers", async () => {
    const r = await call("GET", "/public/v1/echo?b=2&a=1&b=3", {
      "x-forwarded-for": "203.0.113.7",
      accept: "*/*",
    });
    expect(r.status).toBe(200);
    expect(seen!.request.url).toBe("http://localhost/public/v1/echo?b=2&a=1&b=3");
    expect(seen!.request.method).toBe("GET");
    const names = ["accept", "Connection", "host", "X-Forwarded-For", "x-absent"];
    expect(names.map((name) => seen!.request.headers.get(name))).toEqual([
      "*/*",
      "keep-alive",
      `127.0.0.1:${port}`,
      "203.0.113.7",
      null,
    ]);
    expect(seen!.request.signal.aborted).toBe(false);
    expect(seen!.body).toBeUndefined();
  });

  // Issue 21, row 10: Next.js' re-serialisation dropped `__proto__` (and `nxtP…` names) before the API's parser.
  it("gives the router the query as sent: every name kept, in the client's order", async () => {
    const query = "?__proto__=x&b=1&nxtPpath=2&constructor=3&b=4&q=a+b%20c&t=%ZZ";
    await call("GET", `/public/v1/echo${query}`);
    expect(seen!.request.url).toBe(`http://localhost/public/v1/echo${query}`);
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

  it("never builds the URL from the client's Host header", async () => {
    await call("GET", "/public/v1/echo", { host: "evil.test", "x-forwarded-proto": "https" });
    expect(seen!.request.url).toBe("http://localhost/public/v1/echo");
  });

  it("passes a POST body as a stream", async () => {
    await call("POST", "/public/v1/echo", { "content-type": "application/json" }, '{"a":1}');
    expect(seen!.body).toBe('{"a":1}');
  });

  it("writes the Response's headers but Content-Length, chunked; Vary by the compression's Accept-Encoding too", async () => {
    const r = await call("GET", "/public/v1/echo");
    // Issue 21, row 15: Next.js' "rsc, next-router-state-tree, …" came first on its path.
    expect(r.headers.vary).toBe("Origin, Accept-Encoding");
    expect(r.headers["x-custom"]).toBe("1");
    expect(r.headers["set-cookie"]).toEqual(["a=1"]);
    expect(r.headers["content-length"]).toBeUndefined();
    expect(r.headers["transfer-encoding"]).toBe("chunked");
    expect(JSON.parse(r.body.toString()).ok).toBe(true);
  });

  it("compresses as `next start` does when the client accepts gzip", async () => {
    const r = await call("GET", "/public/v1/echo", { "accept-encoding": "gzip" });
    expect(r.headers["content-encoding"]).toBe("gzip");
    expect(JSON.parse(gunzipSync(r.body).toString()).ok).toBe(true);
  });

  it("writes a body given whole, however large, compressed or not", async () => {
    const plain = await call("GET", "/public/v1/whole");
    expect(plain.status).toBe(200);
    expect(plain.body.toString()).toBe(WHOLE);
    const gzipped = await call("GET", "/public/v1/whole", { "accept-encoding": "gzip" });
    expect(gzipped.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gzipped.body).toString()).toBe(WHOLE);
  });

  it("sends no body to HEAD", async () => {
    const r = await call("HEAD", "/public/v1/echo");
    expect(r.status).toBe(200);
    expect(r.body.length).toBe(0);
    expect(r.headers["x-custom"]).toBe("1");
  });

  it("answers a router that throws or returns no Response with a 500 in the API's shape, and keeps serving", async () => {
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
      // A signal read after a complete answer is not aborted (as under `next start`): the echo test above.
      expect((await call("GET", "/public/v1/echo")).status).toBe(200);
      expect(seen!.request.signal.aborted).toBe(false);
    },
  );
});

describe("the API's router behind its host (write preview on)", () => {
  let w: WriteFixture;
  let server: http.Server;
  let port = 0;

  beforeAll(async () => {
    w = await setupWritePreview("pglite");
    const host = createApiHost((request) => publicApi.answer(request), { compress: true });
    server = http.createServer((req, res) => host(req, res, req.url!));
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

  it("reads the query as sent from the front door's header when present (the path through Next.js needs it)", async () => {
    const r = await send("GET", "/public/v1/products?perPage=1", {
      ...auth(),
      "x-public-api-sent-query": "perPage=1&__proto__=1",
    });
    expect(r.status).toBe(400);
    expect(r.json.message).toContain("« __proto__ »");
    const ok = await send("GET", "/public/v1/products?perPage=1", {
      ...auth(),
      "x-public-api-sent-query": "perPage=2",
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

  it("404 and 405 from the router, in the error shape, under /public/ and /public/v1 alike", async () => {
    expect((await send("GET", "/public/v2/products", auth())).json.code).toBe("PUBLIC_API_NOT_FOUND");
    expect((await send("GET", "/public", auth())).json.code).toBe("PUBLIC_API_NOT_FOUND");
    expect((await send("GET", "/public/v1/orders", auth())).json.code).toBe("PUBLIC_API_NOT_FOUND");
    expect((await send("PUT", "/public/v1/products", auth())).json.code).toBe(
      "PUBLIC_API_METHOD_NOT_ALLOWED",
    );
  });
});
