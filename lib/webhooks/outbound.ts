// The webhooks' way out (preview `webhooks`): which endpoint URLs may be registered, and one delivery
// POSTed to one, checked again at connection. An endpoint URL is the integrator's, so it is untrusted input that
// makes this server open connections (server-side request forgery): https only, no credentials in the URL, and no
// address inside a private, local or special-purpose network (the cloud metadata service first of all), checked on
// every address the name resolves to at registration and again on the address the socket connects to (a name may
// resolve elsewhere by delivery time: DNS rebinding). WEBHOOKS_ALLOW_PRIVATE_URLS=true (tests, local development)
// lifts the address rules and lets http through.
// Addresses are classified by ipaddr.js 2.x (express's proxy-addr uses it; every IANA special-purpose block named),
// rather than request-filtering-agent's http.Agent: the engine needs a typed `refused_address`, one rule at
// registration and at connection, and an injectable lookup (the rebinding test), which that agent keeps inside an
// error message. Plain node (no `server-only`): the worker and the tests load it.
import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import net, { type LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";

// What the registration check concluded: the URL normalised, or why it is refused (shown to the integrator).
export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

// The outcome of one delivery: `ok` for a 2xx answer; `status` when one came; the time it took; the start of the
// answer's body (what the console shows); `error` when it failed before a usable answer: `timeout` (connected, no
// whole answer within the total timeout), `connect` (no connection within the connect timeout, refused,
// unreachable, a name that does not resolve), `refused_address` (the URL or the address it resolved to is not
// allowed), `redirect` (a 3xx: never followed), `network` (anything else: TLS, a connection reset).
export interface DeliveryResult {
  ok: boolean;
  status?: number;
  latencyMs: number;
  bodyStart: string;
  error?: "timeout" | "connect" | "refused_address" | "redirect" | "network";
}

// The Standard Webhooks spec's guidance is to give up on an endpoint after "a short timeout" (Svix: 15 s); connect
// separately bounded so that an unreachable host does not take the whole budget of the worker's slot.
const CONNECT_TIMEOUT_MS = 5_000;
const TIMEOUT_MS = 15_000;
// Enough of the answer for the console to show why it failed (an error page's title, a JSON error); never more
// (a receiver could stream gigabytes at us).
const MAX_RESPONSE_BYTES = 4 * 1024;

// The cloud metadata services, named in the reason (they are inside refused ranges anyway: link-local, unique-local).
const METADATA = new Set(["169.254.169.254", "fd00:ec2::254"]);

// Why an address may not be connected to, or null for a public unicast address. IPv6 forms that carry an IPv4
// address (mapped ::ffff:a.b.c.d, compatible ::a.b.c.d, SIIT ::ffff:0:a.b.c.d, NAT64 64:ff9b::/96) are judged by it.
export function addressRefusal(address: string): string | null {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.parse(address.replace(/^\[|\]$/g, "").replace(/%.*$/, ""));
  } catch {
    return `${address} is not an IP address`;
  }
  const text = ip.toString();
  if (METADATA.has(text)) return `${text} is the cloud metadata address`;
  if (ip.kind() === "ipv6") {
    const v6 = ip as ipaddr.IPv6;
    const range = v6.range();
    const parts = v6.parts;
    const compatible = parts.slice(0, 6).every((p) => p === 0) && (parts[6] !== 0 || parts[7]! > 1);
    if (range === "ipv4Mapped" || range === "rfc6145" || range === "rfc6052" || compatible) {
      const inner = ipaddr.fromByteArray(v6.toByteArray().slice(12)).toString();
      const why = addressRefusal(inner);
      return why ? `${text} embeds ${inner}: ${why}` : null;
    }
    return range === "unicast" ? null : `${text} is not a public address (${range})`;
  }
  const range = (ip as ipaddr.IPv4).range();
  return range === "unicast" ? null : `${text} is not a public address (${range})`;
}

// node's dns.lookup as the LookupFunction a socket takes. A call, not the function itself: dns.lookup is typed as
// overloads (one answer, all answers) and a value of an overloaded type is checked against one of them only, while
// the call below picks the overload that takes LookupOptions and answers either form.
const systemLookup: LookupFunction = (hostname, options, callback) => dns.lookup(hostname, options, callback);

// Every address a name resolves to (each one may be the one a later connection picks).
function resolveAll(lookup: LookupFunction, host: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    lookup(host, { all: true }, (err, address) => {
      if (err) return reject(err);
      resolve(Array.isArray(address) ? address.map((a) => a.address) : [address]);
    });
  });
}

// The rules every URL passes before any address is looked at: a URL, https (or http with allowPrivate), no user
// name or password (they would be sent as Basic credentials to whoever answers, and they hide the host from a
// hasty reader: https://trusted@evil/).
function checkForm(text: string, allowPrivate: boolean): UrlCheck {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: "not an absolute URL" };
  }
  if (url.protocol !== "https:" && !(allowPrivate && url.protocol === "http:"))
    return { ok: false, reason: allowPrivate ? "only https: and http: URLs" : "only https: URLs" };
  if (url.username || url.password) return { ok: false, reason: "a user name or password in the URL" };
  if (!url.hostname) return { ok: false, reason: "no host" };
  return { ok: true, url };
}

// The host of a URL as an address when it is one (the WHATWG parser has already turned 0x7f.1 or 2130706433 into
// 127.0.0.1, and put IPv6 between brackets).
function literalAddress(url: URL): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  return net.isIP(host) ? host : null;
}

// Whether an endpoint URL may be registered: its form, then (unless allowPrivate) its host's address, or every
// address its name resolves to now.
export async function checkWebhookUrl(
  url: string,
  opts: { allowPrivate: boolean; lookup?: LookupFunction },
): Promise<UrlCheck> {
  const form = checkForm(url, opts.allowPrivate);
  if (!form.ok || opts.allowPrivate) return form;
  const literal = literalAddress(form.url);
  if (literal) {
    const why = addressRefusal(literal);
    return why ? { ok: false, reason: why } : form;
  }
  let addresses: string[];
  try {
    addresses = await resolveAll(opts.lookup ?? systemLookup, form.url.hostname);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? "error";
    return { ok: false, reason: `${form.url.hostname} does not resolve (${code})` };
  }
  if (addresses.length === 0) return { ok: false, reason: `${form.url.hostname} does not resolve` };
  for (const a of addresses) {
    const why = addressRefusal(a);
    if (why) return { ok: false, reason: `${form.url.hostname} resolves to ${why}` };
  }
  return form;
}

const REFUSED = "ERR_WEBHOOK_REFUSED_ADDRESS";

// A lookup that lets the socket connect only to allowed addresses: what the name resolves to as the connection is
// made is what is checked (not what it resolved to at registration, nor a moment before).
function guardedLookup(base: LookupFunction): LookupFunction {
  return (hostname, options, callback) => {
    base(hostname, options, (err, address, family) => {
      if (err) return callback(err, address, family);
      const list = Array.isArray(address) ? address.map((a) => a.address) : [address];
      const why = list.map(addressRefusal).find((w) => w !== null);
      if (why) {
        const refused: NodeJS.ErrnoException = new Error(`${hostname} resolves to ${why}`);
        refused.code = REFUSED;
        return callback(refused, address, family);
      }
      callback(null, address, family);
    });
  };
}

// Error codes of a connection that was never made.
const CONNECT_CODES = new Set([
  "ECONNREFUSED",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EAI_FAIL",
  "EAI_NONAME",
  "EADDRNOTAVAIL",
]);

// Connections kept open between the deliveries to one origin (the engine's, one pair per engine): a delivery then
// costs no TCP (and TLS) handshake when its receiver was sent another within a few seconds. Each connection is still
// made through the address check (the lookup is the request's), and it is kept only for its own host and port, so a
// kept connection leads where a checked one did. Idle ones are closed after 5 s (sooner when the receiver announces a
// shorter keep-alive), at most 8 kept per origin; node's own agents' settings otherwise (most recently used first).
export interface DeliveryAgents {
  http: http.Agent;
  https: https.Agent;
}
export function deliveryAgents(): DeliveryAgents {
  const opts = { keepAlive: true, scheduling: "lifo" as const, timeout: 5_000, maxFreeSockets: 8 };
  return { http: new http.Agent(opts), https: new https.Agent(opts) };
}

// How many times a request is sent again when the kept-alive connection it went out on turns out closed by the
// receiver (its idle timeout met our request on the way): on a new connection each time.
const STALE_RETRIES = 2;
// Error codes of a kept-alive connection closed by the receiver before it read our request.
const STALE_CODES = new Set(["ECONNRESET", "EPIPE"]);

// POSTs one delivery: `body` as application/json with `headers`, the address checked at connection (unless
// allowPrivate), within a connect timeout (5 s) and a total one (15 s), a redirect never followed, at most
// `maxResponseBytes` (4 KiB) of the answer read before the connection is closed. Never throws: every failure is a
// DeliveryResult. With `agents` a connection whose answer was read whole is kept for the next delivery to that
// origin (deliveryAgents); without, one connection per delivery. A request that went out on a kept connection the
// receiver had just closed is sent again on a new one (at least once: receivers deduplicate by webhook-id).
export function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  opts: {
    allowPrivate: boolean;
    connectTimeoutMs?: number;
    timeoutMs?: number;
    maxResponseBytes?: number;
    lookup?: LookupFunction;
    agents?: DeliveryAgents;
  },
): Promise<DeliveryResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const form = checkForm(url, opts.allowPrivate);
  if (!form.ok)
    return Promise.resolve({ ok: false, latencyMs: elapsed(), bodyStart: "", error: "refused_address" });
  const target = form.url;
  const literal = literalAddress(target);
  if (!opts.allowPrivate && literal && addressRefusal(literal))
    return Promise.resolve({ ok: false, latencyMs: elapsed(), bodyStart: "", error: "refused_address" });
  const lookup = opts.allowPrivate
    ? (opts.lookup ?? systemLookup)
    : guardedLookup(opts.lookup ?? systemLookup);
  const max = opts.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  const secure = target.protocol === "https:";
  const agent = opts.agents ? (secure ? opts.agents.https : opts.agents.http) : false;

  return new Promise<DeliveryResult>((resolve) => {
    let done = false;
    let status: number | undefined;
    const chunks: Buffer[] = [];
    let read = 0;
    let req: http.ClientRequest | undefined;
    let connected = false;
    let connectTimer: NodeJS.Timeout | undefined;
    let resent = 0;
    const total = setTimeout(() => finish("timeout"), opts.timeoutMs ?? TIMEOUT_MS);
    // `whole`: the answer was read to its end, so its connection may serve the next delivery (with agents).
    const finish = (error?: DeliveryResult["error"], whole = false) => {
      if (done) return;
      done = true;
      clearTimeout(total);
      clearTimeout(connectTimer);
      if (!whole) req?.destroy();
      const ok = error === undefined && status !== undefined && status >= 200 && status < 300;
      const bodyStart = Buffer.concat(chunks).subarray(0, max).toString("utf8");
      resolve({
        ok,
        ...(status !== undefined ? { status } : {}),
        latencyMs: elapsed(),
        bodyStart,
        ...(error ? { error } : {}),
      });
    };
    const payload = Buffer.from(body, "utf8");
    const send = () => {
      connected = false;
      clearTimeout(connectTimer);
      connectTimer = setTimeout(
        () => finish(connected ? "timeout" : "connect"),
        opts.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
      );
      const r = (secure ? https.request : http.request)(target, {
        method: "POST",
        agent,
        lookup,
        headers: {
          "user-agent": "PublicCatalogAPI-Webhooks/1",
          ...headers,
          "content-type": "application/json",
          "content-length": String(payload.length),
        },
      });
      req = r;
      r.on("socket", (socket) => {
        const onConnect = () => {
          connected = true;
          clearTimeout(connectTimer);
        };
        if (!socket.connecting) onConnect();
        else socket.once("connect", onConnect);
      });
      r.on("error", (e: NodeJS.ErrnoException) => {
        if (r !== req) return;
        if (
          r.reusedSocket &&
          status === undefined &&
          STALE_CODES.has(e.code ?? "") &&
          resent < STALE_RETRIES
        ) {
          resent++;
          return send();
        }
        if (e.code === REFUSED) return finish("refused_address");
        if (!connected && e.code && CONNECT_CODES.has(e.code)) return finish("connect");
        finish("network");
      });
      r.on("response", (res) => {
        status = res.statusCode;
        if (status !== undefined && status >= 300 && status < 400) return finish("redirect");
        res.on("data", (chunk: Buffer) => {
          chunks.push(chunk);
          read += chunk.length;
          if (read >= max) finish();
        });
        res.on("end", () => finish(undefined, true));
        // Cut after the headers (a reset mid-body): the status came, the answer is what it said.
        res.on("close", () => finish());
        res.on("error", () => finish());
      });
      r.end(payload);
    };
    try {
      send();
    } catch {
      finish("network");
    }
  });
}
