// bench:webhooks' receiver, a process of its own (forked by bench/webhooks.ts): a fast webhook receiver on loopback
// that answers every POST at once and notes when each event's object arrived. It runs apart from the bench so that
// its work (accepting, reading and parsing 50 to 1,500 POSTs a second) never shares an event loop with the page-1
// load generator (autocannon) that it would otherwise slow: a production receiver is on another machine.
//
// Messages: it sends { port } once listening; on "take" it answers { received, arrivals: [objectId, ms][] } with the
// arrivals since the last take, ms on the wall clock's high-resolution timeline (performance.timeOrigin +
// performance.now(), comparable across the processes of one machine); on "stop" it closes and exits.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";

// A receiver's message, as bench/webhooks.ts reads it.
export type ReceiverMessage = { port: number } | { received: number; arrivals: [string, number][] };

let received = 0;
let arrivals: [string, number][] = [];
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const at = performance.timeOrigin + performance.now();
    received++;
    const id = (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: string }).id;
    arrivals.push([id, at]);
    res.end("ok");
  });
});
server.maxConnections = 200;
server.listen(0, "127.0.0.1", () => {
  process.send!({ port: (server.address() as AddressInfo).port } satisfies ReceiverMessage);
});
process.on("message", (m: unknown) => {
  if (m === "take") {
    process.send!({ received, arrivals } satisfies ReceiverMessage);
    arrivals = [];
  } else if (m === "stop") {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  }
});
process.on("disconnect", () => process.exit(0));
