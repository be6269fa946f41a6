// The production HTTP server: Next.js' request handler behind a plain node:http server, so that the client
// address the API sees cannot be forged. Without TRUST_PROXY, X-Forwarded-For is overwritten with the socket's
// address (Next.js alone keeps a client-sent one); with TRUST_PROXY=true the proxy in front sets it.
// Started by scripts/start.ts after the database is ready; PORT and TRUST_PROXY come from the environment.
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import next from "next";

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const port = Number(process.env.PORT || 3000);
const hostname = process.env.HOSTNAME || "0.0.0.0";
const trustProxy = /^(true|1|yes|on)$/i.test(process.env.TRUST_PROXY ?? "");

const app = next({ dev: false, dir, port, hostname: "localhost" });
await app.prepare();
const handle = app.getRequestHandler();

const server = http.createServer((req, res) => {
  if (!trustProxy) {
    req.headers["x-forwarded-for"] = req.socket.remoteAddress ?? "unknown";
    delete req.headers["x-real-ip"];
  }
  handle(req, res).catch((err) => {
    console.error("[server] unhandled error:", err);
    if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
    res.end("Internal Server Error");
  });
});
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;
server.listen(port, hostname, () => console.log(`▲ Next.js serving on http://${hostname}:${port}`));

const stop = () => server.close(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
