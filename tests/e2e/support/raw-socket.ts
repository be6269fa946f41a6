import net from "node:net";

// What came back on a raw connection: the bytes as text, whether the server closed it, and when.
export interface RawExchange {
  /** The first answer's status (0 when none came). */
  status: number;
  /** The first answer's headers, names in lower case (the last of repeated names). */
  headers: Record<string, string>;
  /** The first answer's body as sent (chunked framing left in place), or everything after its head. */
  body: string;
  /** Everything received, as latin1 text. */
  text: string;
  /** True when the server closed the connection before `waitMs`. */
  closed: boolean;
  /** When the connection closed (or the wait ended), in ms from the first byte sent. */
  ms: number;
}

// Sends bytes on a new TCP connection to the server (a request as an attacker writes it: any request line, any
// header block) and collects what comes back until the server closes the connection or `waitMs` passes. With
// `drip`, `data` is sent one byte at a time, `drip` ms apart, as a slow client does, after `first` at once.
export function rawExchange(
  port: number,
  data: string | Buffer,
  opts: { waitMs?: number; drip?: number; first?: string } = {},
): Promise<RawExchange> {
  const waitMs = opts.waitMs ?? 10_000;
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    let received = Buffer.alloc(0);
    const t0 = Date.now();
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      clearInterval(dripTimer);
      socket.destroy();
      resolve({ ...parse(received.toString("latin1")), closed, ms: Date.now() - t0 });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on("data", (d: Buffer) => (received = Buffer.concat([received, d])));
    socket.on("error", () => undefined);
    socket.on("close", () => finish(true));
    const bytes = Buffer.from(data);
    if (!opts.drip) socket.write(bytes);
    else if (opts.first) socket.write(opts.first);
    let i = 0;
    const dripTimer = opts.drip
      ? setInterval(() => {
          if (i < bytes.length && !socket.destroyed) socket.write(bytes.subarray(i, ++i));
        }, opts.drip)
      : undefined;
  });
}

function parse(text: string): Pick<RawExchange, "status" | "headers" | "body" | "text"> {
  const end = text.indexOf("\r\n\r\n");
  const head = end < 0 ? text : text.slice(0, end);
  const [statusLine = "", ...lines] = head.split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const colon = l.indexOf(":");
    if (colon > 0) headers[l.slice(0, colon).trim().toLowerCase()] = l.slice(colon + 1).trim();
  }
  return { status, headers, body: end < 0 ? "" : text.slice(end + 4), text };
}

// The body of an answer as UTF-8 text, a chunked one unframed.
export function bodyText(r: Pick<RawExchange, "headers" | "body">): string {
  return Buffer.from(unchunk(r), "latin1").toString("utf8");
}

function unchunk(r: Pick<RawExchange, "headers" | "body">): string {
  if (r.headers["transfer-encoding"] !== "chunked") return r.body;
  let out = "";
  let rest = r.body;
  for (;;) {
    const nl = rest.indexOf("\r\n");
    const size = parseInt(rest.slice(0, nl), 16);
    if (!size) return out;
    out += rest.slice(nl + 2, nl + 2 + size);
    rest = rest.slice(nl + 2 + size + 2);
  }
}
