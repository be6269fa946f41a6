import { randomBytes } from "node:crypto";
import http from "node:http";
import type net from "node:net";
import { Redis as IORedis } from "ioredis";
import { ScriptShas } from "@/lib/rate-limit/ioredis-adapter";

// A local stand-in for the Upstash REST API (POST / with a JSON command array, /pipeline, /multi-exec, Bearer
// token), forwarding to a real Redis server; scripts get the same shebang treatment Upstash's servers give them.
export interface UpstashShim {
  readonly url: string;
  readonly token: string;
  /** HTTP requests answered so far (any status). */
  readonly requests: number;
  close(): Promise<void>;
}

type Cmd = (string | number | boolean)[];
type Reply = { result: unknown } | { error: string };

function encode(value: unknown): unknown {
  if (typeof value === "string")
    return value === "OK" ? value : Buffer.from(value, "utf8").toString("base64");
  if (Array.isArray(value)) return value.map(encode);
  return value;
}

// Starts the shim on a random loopback port in front of the Redis server at redisUrl.
export async function startUpstashShim(
  redisUrl: string,
  token = randomBytes(16).toString("hex"),
): Promise<UpstashShim> {
  const redis = new IORedis(redisUrl, {
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => 100,
  });
  redis.on("error", () => {});
  const shas = new ScriptShas();
  const sockets = new Set<net.Socket>();
  let requests = 0;

  const toArgs = (cmd: Cmd): [string, (string | number)[]] => {
    const [name, ...rest] = cmd.map((v) => (typeof v === "boolean" ? String(v) : v));
    const lower = String(name).toLowerCase();
    const args = rest as (string | number)[];
    if (lower === "eval" && typeof args[0] === "string") args[0] = shas.register(args[0]).script;
    if (lower === "evalsha" && typeof args[0] === "string") args[0] = shas.lookup(args[0]) ?? args[0];
    return [lower, args];
  };

  const run = async (cmd: Cmd, base64: boolean): Promise<Reply> => {
    try {
      if (!Array.isArray(cmd) || cmd.length === 0) return { error: "ERR empty command" };
      const [name, args] = toArgs(cmd);
      const result = await redis.call(name, ...args);
      return { result: base64 ? encode(result) : result };
    } catch (err) {
      return { error: (err as Error).message };
    }
  };

  const server = http.createServer(async (req, res) => {
    requests += 1;
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    try {
      if (req.headers.authorization !== `Bearer ${token}`) return send(401, { error: "Unauthorized" });
      if (req.method !== "POST") return send(405, { error: "ERR only POST is supported by this shim" });
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
      const base64 = String(req.headers["upstash-encoding"] ?? "").toLowerCase() === "base64";
      const path = (req.url ?? "/").split("?")[0];
      if (path === "/" || path === "") {
        const reply = await run(body as Cmd, base64);
        return send("error" in reply ? 400 : 200, reply);
      }
      if (path === "/pipeline" && Array.isArray(body)) {
        const replies: Reply[] = [];
        for (const cmd of body as Cmd[]) replies.push(await run(cmd, base64));
        return send(200, replies);
      }
      if (path === "/multi-exec" && Array.isArray(body)) {
        const multi = redis.multi();
        for (const cmd of body as Cmd[]) {
          const [name, args] = toArgs(cmd);
          multi.call(name, ...args);
        }
        const out = (await multi.exec()) ?? [];
        return send(
          200,
          out.map(([err, result]) =>
            err ? { error: err.message } : { result: base64 ? encode(result) : result },
          ),
        );
      }
      return send(404, { error: `ERR unknown path ${path}` });
    } catch (err) {
      return send(400, { error: `ERR ${(err as Error).message}` });
    }
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.once("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    token,
    get requests() {
      return requests;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      redis.disconnect();
    },
  };
}
