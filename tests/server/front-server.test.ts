// The front door on a node:http server made by someone else (lib/server/front-server.ts guardFirstServer, what
// instrumentation.ts does under a bare `next start`): a real server on loopback whose own listener stands for
// Next.js'. The first server of the process that gets a connection is guarded: the front door's answers before its
// listener, the request made canonical for it, the client address made the socket's, node's parser refusals in the
// API's shape, the server's timeouts; a later server, and a server guarded already (npm start's), are left alone.
import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SERVER_TIMEOUTS, guardFirstServer, guardServer } from "@/lib/server/front-server";

interface Seen {
  url: string;
  headers: http.IncomingHttpHeaders;
}

// A server whose own listener notes what reached it and answers 200 "next".
function ownServer(): { server: http.Server; seen: Seen[] } {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    seen.push({ url: req.url!, headers: req.headers });
    res.writeHead(200, { "content-type": "text/plain", "content-length": "4" }).end("next");
  });
  // As next start: a clientError listener of its own (a bare 400), which the guard replaces.
  server.on("clientError", (_err, socket) => socket.end("HTTP/1.1 400 Bad Request\r\n\r\n"));
  return { server, seen };
}

const listen = (server: http.Server) =>
  new Promise<number>((r) => server.listen(0, "127.0.0.1", () => r((server.address() as AddressInfo).port)));

// One exchange on a socket of its own, the request written as given; resolves with the raw answer.
function exchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let text = "";
    socket.on("data", (d: Buffer) => (text += d.toString("latin1")));
    socket.on("error", reject);
    socket.on("close", () => resolve(text));
    socket.write(request);
  });
}

const status = (raw: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1]);
const body = (raw: string) => raw.slice(raw.indexOf("\r\n\r\n") + 4);

describe("guardFirstServer: npm start's front door on a server made elsewhere", () => {
  const first = ownServer();
  const later = ownServer();
  const npmStart = ownServer();
  let port = 0;
  let laterPort = 0;
  let npmStartPort = 0;
  let npmStartListeners: unknown[] = [];

  beforeAll(async () => {
    // npm start's server is guarded when it is made: the first server to get a connection, it is left as it is
    // (its listener not wrapped again), and the subscription ends there: a server after it is not guarded either.
    guardServer(npmStart.server);
    npmStartListeners = npmStart.server.listeners("request");
    npmStartPort = await listen(npmStart.server);
    laterPort = await listen(later.server);
    guardFirstServer(false);
    expect(
      status(await exchange(npmStartPort, "GET /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")),
    ).toBe(200);
    expect(npmStart.server.listeners("request")).toEqual(npmStartListeners);
    // As next start: the first server to get a connection is guarded.
    guardFirstServer(false);
    port = await listen(first.server);
    expect(status(await exchange(port, "GET /docs HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))).toBe(
      200,
    );
  });
  afterAll(async () => {
    for (const s of [first, later, npmStart]) await new Promise((r) => s.server.close(r));
  });

  it("answers TRACE, a malformed path and `GET *` itself, in the API's shape under /public/", async () => {
    const before = first.seen.length;
    const trace = await exchange(
      port,
      "TRACE /public/v1/products HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    expect(status(trace)).toBe(405);
    expect(JSON.parse(body(trace))).toMatchObject({ statusCode: 405, code: "PUBLIC_API_METHOD_NOT_ALLOWED" });
    const bad = await exchange(port, "GET /public/v1/%ZZ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect(status(bad)).toBe(400);
    expect(JSON.parse(body(bad))).toMatchObject({ code: "PUBLIC_API_INVALID_PATH" });
    expect(status(await exchange(port, "GET * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))).toBe(400);
    expect(first.seen.length).toBe(before);
  });

  it("hands the listener the canonical path, without router headers, with the socket's address", async () => {
    await exchange(
      port,
      "GET http://evil.test/public//v1/x/../products/?perPage=1 HTTP/1.1\r\nHost: x\r\nRSC: 1\r\n" +
        "X-Forwarded-For: 203.0.113.9\r\nConnection: close\r\n\r\n",
    );
    const seen = first.seen.at(-1)!;
    expect(seen.url).toBe("/public/v1/products?perPage=1");
    expect(seen.headers.rsc).toBeUndefined();
    expect(seen.headers["x-forwarded-for"]).toBe("127.0.0.1");
  });

  it("answers what node's parser refuses in the API's shape, not with the server's own 400", async () => {
    const big = await exchange(
      port,
      `GET /public/v1/products HTTP/1.1\r\nHost: x\r\nX-Big: ${"x".repeat(17 * 1024)}\r\n\r\n`,
    );
    expect(status(big)).toBe(431);
    expect(JSON.parse(body(big))).toMatchObject({ statusCode: 431, code: "PUBLIC_API_HEADERS_TOO_LARGE" });
  });

  it("sets the server's timeouts", () => {
    expect(first.server.headersTimeout).toBe(SERVER_TIMEOUTS.headersTimeout);
    expect(first.server.requestTimeout).toBe(SERVER_TIMEOUTS.requestTimeout);
    expect(first.server.keepAliveTimeout).toBe(65_000);
  });

  it("guards only the first server: neither a server after npm start's nor one after the guarded one", async () => {
    const trace = await exchange(
      laterPort,
      "TRACE /public/v1/products HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    expect(status(trace)).toBe(200);
    expect(body(trace)).toBe("next");
    expect(later.seen.at(-1)!.url).toBe("/public/v1/products");
  });
});
