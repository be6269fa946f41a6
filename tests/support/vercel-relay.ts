import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { WebSocketServer, type WebSocket } from "ws";

// A running local stand-in for Neon's proxy, as openVercel's `local` settings expect it.
export interface VercelRelay {
  /** "127.0.0.1:port/v2" for neonConfig.wsProxy (VERCEL_POSTGRES_WS_PROXY). */
  wsProxy: string;
  /** "http://127.0.0.1:port" whose /sql answers Neon's HTTP queries (VERCEL_POSTGRES_HTTP_ENDPOINT). */
  httpEndpoint: string;
  /** The target database's URL with host `localhost` and a password, as @vercel/postgres and neon() require. */
  connectionString: string;
  /** The same, for another database of the same server (the relay serves every database of its target server). */
  connectionStringFor(databaseUrl: string): string;
  /** What went through the relay, so that a test can prove the driver did not reach Postgres another way. */
  stats: { wsConnections: number; httpQueries: number };
  close(): Promise<void>;
}

const RAW_TEXT = { getTypeParser: () => (value: string) => value };

// Fields of a Postgres error that Neon's HTTP endpoint returns with status 400 (NeonDbError copies them).
const ERROR_FIELDS = [
  "severity",
  "code",
  "detail",
  "hint",
  "position",
  "internalPosition",
  "internalQuery",
  "where",
  "schema",
  "table",
  "column",
  "dataType",
  "constraint",
  "file",
  "line",
  "routine",
] as const;

interface HttpQuery {
  query: string;
  params?: unknown[];
}

// Starts, on 127.0.0.1 and a random port, a WebSocket→TCP relay (Neon's wsproxy: /v2?address=host:port,
// binary frames piped to the Postgres server of targetUrl) and an HTTP /sql endpoint in Neon's format
// (run with node-postgres against the same server).
export async function startVercelRelay(targetUrl: string): Promise<VercelRelay> {
  const target = new URL(targetUrl);
  const pgHost = target.hostname;
  const pgPort = Number(target.port || 5432);
  const stats = { wsConnections: 0, httpQueries: 0 };
  const sockets = new Set<net.Socket>();
  const pools = new Map<string, pg.Pool>();

  // The server a Neon connection string names is this relay's target, whatever host it says.
  const poolFor = (neonConnectionString: string): pg.Pool => {
    const url = new URL(neonConnectionString);
    url.hostname = pgHost;
    url.port = String(pgPort);
    const key = url.toString();
    let pool = pools.get(key);
    if (!pool) {
      pool = new pg.Pool({ connectionString: key, max: 4 });
      pool.on("error", () => undefined);
      pools.set(key, pool);
    }
    return pool;
  };

  const runOne = async (
    client: pg.PoolClient,
    q: HttpQuery,
    arrayMode: boolean,
    rawText: boolean,
  ): Promise<Record<string, unknown>> => {
    stats.httpQueries++;
    const result = await client.query({
      text: q.query,
      values: q.params ?? [],
      ...(arrayMode ? { rowMode: "array" as const } : {}),
      ...(rawText ? { types: RAW_TEXT } : {}),
    });
    return {
      fields: result.fields,
      rows: result.rows,
      command: result.command,
      rowCount: result.rowCount,
      rowAsArray: arrayMode,
    };
  };

  const answerSql = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as HttpQuery | { queries: HttpQuery[] };
    const connectionString = req.headers["neon-connection-string"];
    if (typeof connectionString !== "string") {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ message: "missing Neon-Connection-String header" }));
      return;
    }
    const arrayMode = req.headers["neon-array-mode"] === "true";
    const rawText = req.headers["neon-raw-text-output"] === "true";
    const client = await poolFor(connectionString).connect();
    let payload: unknown;
    try {
      if ("queries" in body) {
        const isolation = req.headers["neon-batch-isolation-level"];
        const modes = [
          typeof isolation === "string"
            ? `isolation level ${isolation.replace(/([a-z])([A-Z])/g, "$1 $2")}`
            : "",
          req.headers["neon-batch-read-only"] === "true" ? "read only" : "",
          req.headers["neon-batch-deferrable"] === "true" ? "deferrable" : "",
        ].filter(Boolean);
        await client.query(`begin ${modes.join(" ")}`);
        try {
          const results = [];
          for (const q of body.queries) results.push(await runOne(client, q, arrayMode, rawText));
          await client.query("commit");
          payload = { results };
        } catch (err) {
          await client.query("rollback").catch(() => undefined);
          throw err;
        }
      } else {
        payload = await runOne(client, body, arrayMode, rawText);
      }
      client.release();
    } catch (err) {
      client.release();
      const e = err as Error & Record<string, unknown>;
      const fields = Object.fromEntries(ERROR_FIELDS.filter((f) => e[f] !== undefined).map((f) => [f, e[f]]));
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ message: e.message, ...fields }));
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(payload));
  };

  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://relay").pathname;
    if (req.method !== "POST" || path !== "/sql") {
      res.writeHead(404).end();
      return;
    }
    answerSql(req, res).catch((err: Error) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(String(err.message));
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  const wss = new WebSocketServer({ noServer: true });
  const pipe = (ws: WebSocket): void => {
    stats.wsConnections++;
    const tcp = net.connect(pgPort, pgHost);
    sockets.add(tcp);
    tcp.setNoDelay(true);
    ws.on("message", (data: Buffer | ArrayBuffer | Buffer[]) => {
      tcp.write(Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer));
    });
    tcp.on("data", (data) => ws.send(data, { binary: true }));
    tcp.on("close", () => {
      sockets.delete(tcp);
      ws.close();
    });
    tcp.on("error", () => ws.terminate());
    ws.on("close", () => tcp.end());
    ws.on("error", () => tcp.destroy());
  };
  server.on("upgrade", (req, socket, head) => {
    const url = new URL(req.url ?? "/", "http://relay");
    if (url.pathname !== "/v2" || !url.searchParams.get("address")) {
      socket.destroy();
      return;
    }
    wss.handleUpgrade(req, socket, head, pipe);
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;

  const connectionStringFor = (databaseUrl: string): string => {
    const connection = new URL(databaseUrl);
    connection.hostname = "localhost";
    if (!connection.password) connection.password = "relay";
    return connection.toString();
  };

  return {
    wsProxy: `127.0.0.1:${port}/v2`,
    httpEndpoint: `http://127.0.0.1:${port}`,
    connectionString: connectionStringFor(targetUrl),
    connectionStringFor,
    stats,
    close: async () => {
      for (const ws of wss.clients) ws.terminate();
      for (const socket of sockets) socket.destroy();
      await Promise.all([...pools.values()].map((p) => p.end()));
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
