import net from "node:net";

// A TCP port on loopback that was free a moment ago: for a server a test starts, or, left unused, a closed port
// (an unreachable back end).
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}
