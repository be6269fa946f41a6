import net from "node:net";

// A TCP relay in front of a server that a test can freeze: while frozen, connections stay open and new ones are
// accepted, but no byte goes either way (a server stopped with SIGSTOP, or a network partition, as the client
// sees it); thawed, everything held back is delivered in order. A side that closes closes its other side too.
export interface FreezableProxy {
  /** The relay's port on 127.0.0.1. */
  readonly port: number;
  /** Connections open through the relay now. */
  readonly connections: number;
  /** `url` with its host and port replaced by the relay's. */
  urlFor(url: string): string;
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  server: net.Socket;
  /** Bytes held back while frozen, per direction. */
  toServer: Buffer[];
  toClient: Buffer[];
}

// Starts a relay to host:port on a free loopback port.
export async function startFreezableProxy(target: { host: string; port: number }): Promise<FreezableProxy> {
  const pairs = new Set<Pair>();
  let frozen = false;

  const flush = (p: Pair) => {
    for (const chunk of p.toServer.splice(0)) p.server.write(chunk);
    for (const chunk of p.toClient.splice(0)) p.client.write(chunk);
  };

  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    const p: Pair = { client, server: upstream, toServer: [], toClient: [] };
    pairs.add(p);
    const relay = (from: net.Socket, to: net.Socket, held: Buffer[]) => {
      from.on("data", (chunk: Buffer) => {
        if (frozen) held.push(chunk);
        else to.write(chunk);
      });
    };
    relay(client, upstream, p.toServer);
    relay(upstream, client, p.toClient);
    const end = () => {
      pairs.delete(p);
      client.destroy();
      upstream.destroy();
    };
    for (const s of [client, upstream]) {
      s.on("error", end);
      s.on("close", end);
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;

  return {
    port,
    get connections() {
      return pairs.size;
    },
    urlFor(url) {
      const u = new URL(url);
      u.hostname = "127.0.0.1";
      u.port = String(port);
      return u.toString();
    },
    freeze() {
      frozen = true;
    },
    thaw() {
      frozen = false;
      for (const p of pairs) flush(p);
    },
    close: async () => {
      frozen = false;
      for (const p of pairs) {
        p.client.destroy();
        p.server.destroy();
      }
      pairs.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
