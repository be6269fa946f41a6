// The front door (lib/server/front-door.ts) on a node:http server: what runs before Next.js sees a request, whichever
// program made the server. `npm start` (scripts/serve.mjs) makes its own with `frontDoorListener` and `guardServer`;
// under a bare `next start`, Next.js makes it, and the start-up hook (instrumentation.ts) puts the same front door in
// front of Next.js' listener with `guardFirstServer`, so that both answer hostile transport alike:
// a request target that is not a path, an unknown method, a malformed or slash-variant path, two Authorization
// headers, Next.js' router headers under /public/, what node's parser refuses, CONNECT, slow clients.
import { channel } from "node:diagnostics_channel";
import { Server as HttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { connectRefusal, dropRouterVary, frontDoor, parserRefusal } from "./front-door";

// How long a client may hold a socket without sending a request in full. A client that sends its
// headers a byte a second is closed after `headersTimeout` (node's default, 60 s, let a few hundred such clients hold
// the server's sockets for a minute each); a request whose body trickles in, after `requestTimeout` (node's default:
// 300 s; the largest body the app takes is 64 KB). Node checks both every `connectionsCheckingInterval` (its default,
// 30 s, would let a slow client hold its socket up to 40 s past the limit): an option of the server's constructor, so
// only npm start's server has it (a `next start` server checks every 30 s). An idle kept-alive connection is not a
// request in progress: KEEP_ALIVE_TIMEOUT_MS governs it (longer than a load balancer's 60 s). The header block,
// request line included, is node's default of at most 16 KB (maxHeaderSize), a 431.
export const SERVER_TIMEOUTS = {
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  connectionsCheckingInterval: 1_000,
} as const;
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

type Listener = (req: IncomingMessage, res: ServerResponse) => unknown;

// Writes a Web Response (a small body: the front door's answers) to a node response.
async function send(res: ServerResponse, method: string | undefined, response: Response): Promise<void> {
  // No body, and so no Content-Length, for HEAD and bodiless answers (a 204 must not carry one).
  const body = method === "HEAD" || !response.body ? null : Buffer.from(await response.arrayBuffer());
  const headers = Object.fromEntries(response.headers);
  if (body) headers["content-length"] = String(body.length);
  res.writeHead(response.status, headers);
  res.end(body);
}

// The server's request listener: the client address made the socket's (unless a proxy in front sets it:
// `trustProxy`; Next.js alone keeps a client-sent X-Forwarded-For), the front door's decision, then the API's own
// router for /public/ when `api` is given (npm start's fast path), else Next.js (`next`) with the request made
// canonical.
export function frontDoorListener(opts: {
  next: Listener;
  api?: (req: IncomingMessage, res: ServerResponse, url: string) => unknown;
  trustProxy: boolean;
}): Listener {
  const { next, api, trustProxy } = opts;
  return (req, res) => {
    if (!trustProxy) {
      req.headers["x-forwarded-for"] = req.socket.remoteAddress ?? "unknown";
      delete req.headers["x-real-ip"];
    }
    const decision = frontDoor(req.method ?? "GET", req.url ?? "/", req.rawHeaders);
    if (decision.kind === "answer") {
      send(res, req.method, decision.response).catch(() => res.destroy());
      return;
    }
    for (const name of Object.keys(req.headers)) if (decision.stripHeaders(name)) delete req.headers[name];
    Object.assign(req.headers, decision.addHeaders);
    if (api && decision.api) {
      api(req, res, decision.url);
      return;
    }
    req.url = decision.url;
    // Next.js lists its router headers in every app route's Vary; the API's own router never does.
    if (decision.routerFree) dropRouterVary(res);
    next(req, res);
  };
}

const GUARDED = Symbol.for("public-catalog-api.front-door");

// The server's bounds and its answers to what never reaches a request listener: the timeouts (SERVER_TIMEOUTS,
// whatever the constructor could still take), a request node's parser refused (too large, too slow, not HTTP: a clean
// answer in the shape of its side, the API's error body under /public/, then the connection closed; nothing for a
// client that is gone), CONNECT (the front door's 405 or 400, then the socket closed). Replaces the server's own
// `clientError` listeners (next start has one that answers a bare 400).
export function guardServer(server: Server): void {
  (server as Server & { [GUARDED]?: true })[GUARDED] = true;
  server.headersTimeout = SERVER_TIMEOUTS.headersTimeout;
  server.requestTimeout = SERVER_TIMEOUTS.requestTimeout;
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.removeAllListeners("clientError");
  // As node's own handler: no answer once one has begun on this socket (it would corrupt it), written before the
  // socket is destroyed (a small write leaves at once).
  server.on("clientError", (err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket) => {
    const answering = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage?.headersSent;
    if (err.code !== "ECONNRESET" && socket.writable && !answering)
      socket.write(parserRefusal(err.code, err.rawPacket));
    socket.destroy();
  });
  server.removeAllListeners("connect");
  server.on("connect", (req: IncomingMessage, socket: Socket) => {
    socket.on("error", () => undefined);
    connectRefusal(req.url ?? "", req.rawHeaders)
      .then((bytes) => socket.end(bytes, () => socket.destroy()))
      .catch(() => socket.destroy());
  });
}

// Under a bare `next start` (instrumentation.ts): the front door put before the listener of the first HTTP server
// of this process that gets a connection or a request (next start makes one), unless it has one already (npm
// start's). Node publishes `net.server.socket` once a connection is accepted (the accepting server is the socket's
// `server`), and `http.server.request.start` before it hands a request to the server's listeners, so the first
// connection's requests go through the front door too. Only the first server: the subscriptions end there.
export function guardFirstServer(trustProxy: boolean): void {
  const connections = channel("net.server.socket");
  const requests = channel("http.server.request.start");
  let done = false;
  const guard = (server: unknown) => {
    if (done || !(server instanceof HttpServer)) return;
    done = true;
    // Not while a channel is publishing (another subscriber would be skipped).
    queueMicrotask(() => {
      connections.unsubscribe(onConnection);
      requests.unsubscribe(onRequest);
    });
    if ((server as Server & { [GUARDED]?: true })[GUARDED]) return;
    const listeners = server.listeners("request") as Listener[];
    const next: Listener = (req, res) => {
      for (const l of listeners) l.call(server, req, res);
    };
    server.removeAllListeners("request");
    server.on("request", frontDoorListener({ next, trustProxy }));
    guardServer(server);
  };
  const onConnection = (message: unknown) =>
    guard((message as { socket: { server?: unknown } }).socket.server);
  const onRequest = (message: unknown) => guard((message as { server: unknown }).server);
  connections.subscribe(onConnection);
  requests.subscribe(onRequest);
}
