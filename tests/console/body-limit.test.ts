// Issue 21, row 8: the sign-in, sign-out and console routes read at most 64 KB of a body. Real HTTP: the route
// handlers behind node:http (the request body streamed to them as it arrives, as Next.js does), a client sending a
// 40 MB body with its Content-Length or chunked; the server answers 413 having read little of it.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as authRoute from "@/app/api/auth/[...auth]/route";
import * as changelogRoute from "@/app/api/console/changelog/route";
import * as keysRoute from "@/app/api/console/orgs/[org]/keys/route";
import { setupApi, type ApiFixture } from "../support/api";

const MB = 1024 * 1024;
const LIMIT = 64 * 1024;
type Handler = (request: Request) => Promise<Response>;

// The handler of a path, as the app's route files map it.
function route(pathname: string): Handler {
  if (pathname.startsWith("/api/auth/")) return authRoute.POST;
  if (pathname === "/api/console/changelog")
    return (r) => changelogRoute.POST(r, { params: Promise.resolve({}) });
  return (r) => keysRoute.POST(r, { params: Promise.resolve({ org: "acme" }) });
}

describe("console and sign-in body limit (64 KB)", () => {
  let fx: ApiFixture;
  let server: http.Server;
  let port = 0;
  let received = 0; // bytes of request bodies the server read from its sockets

  beforeAll(async () => {
    fx = await setupApi("pglite", { AUTH_SECRET: "s".repeat(40) });
    server = http.createServer((req, res) => {
      void (async () => {
        const body = Readable.toWeb(req.on("data", (c: Buffer) => (received += c.length))) as ReadableStream;
        const headers = new Headers();
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
        const request = new Request(`http://api.test${req.url}`, {
          method: req.method,
          headers,
          body,
          duplex: "half",
        } as RequestInit);
        const answer = await route(new URL(request.url).pathname)(request);
        res.writeHead(answer.status, Object.fromEntries(answer.headers));
        res.end(Buffer.from(await answer.arrayBuffer()));
        // What the handler left unread is not drained into memory: the connection goes.
        req.destroy();
      })();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await fx?.close();
  });

  // POSTs `size` bytes to the path, with a Content-Length or chunked; the status and the server's bytes read.
  function post(path: string, size: number, chunked: boolean): Promise<{ status: number; read: number }> {
    received = 0;
    return new Promise((resolve, reject) => {
      const req = http.request({
        port,
        host: "127.0.0.1",
        path,
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          origin: "http://api.test",
          ...(chunked ? { "transfer-encoding": "chunked" } : { "content-length": String(size) }),
        },
      });
      req.on("response", (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode!, read: received }));
      });
      // The server answers (and closes) before the body is sent: the client's write errors are expected.
      req.on("error", (err) => (received === 0 && !("code" in err) ? reject(err) : undefined));
      const chunk = Buffer.alloc(64 * 1024, "a");
      let sent = 0;
      const write = () => {
        while (sent < size) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once("drain", write);
        }
        req.end();
      };
      write();
    });
  }

  const paths = [
    "/api/auth/callback/credentials",
    "/api/auth/signout",
    "/api/console/orgs/acme/keys",
    "/api/console/changelog",
  ];

  it.each(paths)("%s: 413 for a 40 MB body announced by Content-Length, before reading it", async (path) => {
    const { status, read } = await post(path, 40 * MB, false);
    expect(status).toBe(413);
    expect(read).toBeLessThan(4 * MB);
  });

  it.each(paths)("%s: 413 for a chunked 40 MB body, once 64 KB are read", async (path) => {
    const { status, read } = await post(path, 40 * MB, true);
    expect(status).toBe(413);
    expect(read).toBeLessThan(4 * MB);
  });

  it("the console's 413 is its JSON error; a body of 64 KB is read (then refused for what it is, not its size)", async () => {
    const res = await authRoute.POST(
      new Request("http://api.test/api/auth/signout", {
        method: "POST",
        headers: { "content-length": String(40 * MB) },
        body: "x",
      }),
    );
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({
      statusCode: 413,
      error: "Payload Too Large",
      message: "The request body is too large (64 KB at most).",
      code: "CONSOLE_PAYLOAD_TOO_LARGE",
    });
    const atLimit = await post("/api/console/orgs/acme/keys", LIMIT, false);
    expect(atLimit.status).toBe(401); // no session: read whole, then refused
    const signOut = await post("/api/auth/signout", LIMIT, true);
    expect(signOut.status).not.toBe(413);
  });
});
