// The webhooks' way out (lib/webhooks/outbound.ts), against real receivers on loopback (node:http and plain TCP
// servers): what a delivery sends, each way it fails (500, a hang, a trickle past the total timeout, a huge answer
// cut, a redirect not followed, a connection refused, a name that never resolves), the address rules at connection
// (loopback, DNS rebinding through an injected lookup) and at registration (one row per refused range).
import http from "node:http";
import net, { type AddressInfo, type LookupFunction } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { addressRefusal, checkWebhookUrl, deliveryAgents, postWebhook } from "@/lib/webhooks/outbound";

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

// One receiver for the suite; each test sets what it answers and reads what it received.
let handler: Handler = (_req, res) => res.end();
const received: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
let connections = 0;
const server = http.createServer((req, res) => {
  let body = "";
  req.setEncoding("utf8");
  req.on("data", (d) => (body += d));
  req.on("end", () => {
    received.push({ method: req.method!, url: req.url!, headers: req.headers, body });
    handler(req, res, body);
  });
});
server.on("connection", () => connections++);
let port = 0;
const base = () => `http://127.0.0.1:${port}`;
const allow = { allowPrivate: true } as const;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
afterEach(() => {
  received.length = 0;
  connections = 0;
  handler = (_req, res) => res.end();
});

// A lookup answering from a script: each call takes the next addresses (the last one repeats), so that a name can
// resolve public at registration and to loopback at delivery.
function scriptedLookup(script: string[][]): LookupFunction & { calls: number } {
  const f = ((_host: string, options: { all?: boolean }, cb: (...a: unknown[]) => void) => {
    const addresses = script[Math.min(f.calls, script.length - 1)]!;
    f.calls++;
    const list = addresses.map((address) => ({ address, family: net.isIP(address) }));
    setImmediate(() => (options.all ? cb(null, list) : cb(null, list[0]!.address, list[0]!.family)));
  }) as unknown as LookupFunction & { calls: number };
  f.calls = 0;
  return f;
}

describe("postWebhook", () => {
  it("POSTs the body as JSON with the headers given; a 2xx is ok, with the answer's start", async () => {
    handler = (_req, res) => res.writeHead(204).end();
    const body = JSON.stringify({ cursor: "42", op: "upsert", label: "Crème ✓" });
    const r = await postWebhook(
      `${base()}/hooks/catalog?x=1`,
      { "webhook-id": "42", "webhook-timestamp": "1700000000", "webhook-signature": "v1,abc" },
      body,
      allow,
    );
    expect(r).toMatchObject({ ok: true, status: 204, bodyStart: "" });
    expect(r.error).toBeUndefined();
    expect(r.latencyMs).toBeGreaterThanOrEqual(0);
    const [got] = received;
    expect(got).toMatchObject({ method: "POST", url: "/hooks/catalog?x=1", body });
    expect(got!.headers).toMatchObject({
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(body)),
      "webhook-id": "42",
      "webhook-timestamp": "1700000000",
      "webhook-signature": "v1,abc",
    });

    handler = (_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("merci");
    expect(await postWebhook(base(), {}, "{}", allow)).toMatchObject({
      ok: true,
      status: 200,
      bodyStart: "merci",
    });
  });

  it("takes a 500 as a failure with its status and the start of its body", async () => {
    handler = (_req, res) => res.writeHead(500).end('{"error":"boom"}');
    const r = await postWebhook(base(), {}, "{}", allow);
    expect(r).toEqual({
      ok: false,
      status: 500,
      latencyMs: expect.any(Number),
      bodyStart: '{"error":"boom"}',
    });
  });

  it("gives up on a receiver that never answers at the total timeout", async () => {
    handler = () => {}; // reads the request, never answers
    const r = await postWebhook(base(), {}, "{}", { ...allow, timeoutMs: 400 });
    expect(r).toMatchObject({ ok: false, error: "timeout", bodyStart: "" });
    expect(r.status).toBeUndefined();
    expect(r.latencyMs).toBeGreaterThanOrEqual(390);
    expect(r.latencyMs).toBeLessThan(2000);
  });

  it("gives up on an answer trickled past the total timeout, 200 or not", async () => {
    let writes = 0;
    handler = (_req, res) => {
      res.writeHead(200);
      const t = setInterval(() => {
        if (res.destroyed) return clearInterval(t);
        writes++;
        res.write(".");
      }, 50);
      res.on("close", () => clearInterval(t));
    };
    const r = await postWebhook(base(), {}, "{}", { ...allow, timeoutMs: 500 });
    expect(r).toMatchObject({ ok: false, status: 200, error: "timeout" });
    expect(r.bodyStart).toMatch(/^\.+$/);
    expect(writes).toBeGreaterThan(3);
    expect(r.latencyMs).toBeLessThan(2000);
  });

  it("reads at most maxResponseBytes of a huge answer, then closes the connection", async () => {
    let closedEarly: Promise<boolean> = Promise.resolve(false);
    handler = (_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      const chunk = "x".repeat(64 * 1024);
      let sent = 0;
      closedEarly = new Promise((resolve) => {
        res.on("close", () => resolve(sent < 64 * 1024 * 1024));
        const pump = () => {
          while (!res.destroyed && sent < 64 * 1024 * 1024) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once("drain", pump);
          }
          res.end();
        };
        pump();
      });
    };
    const r = await postWebhook(base(), {}, "{}", allow);
    expect(r).toMatchObject({ ok: true, status: 200 });
    expect(r.bodyStart).toBe("x".repeat(4096));
    // The receiver's 64 MiB were not read: the connection was closed under it.
    expect(await closedEarly).toBe(true);

    const small = await postWebhook(base(), {}, "{}", { ...allow, maxResponseBytes: 10 });
    expect(small.bodyStart).toBe("x".repeat(10));
  });

  it("does not follow a redirect: a 3xx fails with error redirect", async () => {
    handler = (req, res) =>
      req.url === "/start" ? res.writeHead(302, { location: "/elsewhere" }).end() : res.writeHead(200).end();
    const r = await postWebhook(`${base()}/start`, {}, "{}", allow);
    expect(r).toMatchObject({ ok: false, status: 302, error: "redirect" });
    expect(received.map((x) => x.url)).toEqual(["/start"]);
    handler = (_req, res) => res.writeHead(307, { location: "https://example.com/" }).end();
    expect(await postWebhook(base(), {}, "{}", allow)).toMatchObject({ status: 307, error: "redirect" });
  });

  it("fails with error connect when the connection is refused", async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const freePort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const r = await postWebhook(`http://127.0.0.1:${freePort}/`, {}, "{}", allow);
    expect(r).toMatchObject({ ok: false, error: "connect", bodyStart: "" });
    expect(r.status).toBeUndefined();
  });

  it("fails with error connect at the connect timeout (a name whose lookup never answers)", async () => {
    const never = (() => {}) as unknown as LookupFunction;
    const r = await postWebhook("http://hooks.example.test/", {}, "{}", {
      ...allow,
      lookup: never,
      connectTimeoutMs: 300,
    });
    expect(r).toMatchObject({ ok: false, error: "connect" });
    expect(r.latencyMs).toBeGreaterThanOrEqual(290);
    expect(r.latencyMs).toBeLessThan(2000);
  });

  it("refuses loopback without allowPrivate, before any connection: by address and by name", async () => {
    for (const url of [
      `https://127.0.0.1:${port}/`,
      `https://[::1]:${port}/`,
      `https://[::ffff:127.0.0.1]:${port}/`,
      `https://localhost:${port}/`,
      `http://127.0.0.1:${port}/`, // and http: with it
    ]) {
      const r = await postWebhook(url, {}, "{}", { allowPrivate: false });
      expect(r, url).toMatchObject({ ok: false, error: "refused_address", bodyStart: "" });
    }
    expect(connections).toBe(0);
  });

  it("refuses a name that resolved public at registration and resolves to loopback at connection (DNS rebinding)", async () => {
    // A TCP listener where the rebound name points: it must never see a connection.
    let reached = 0;
    const target = net.createServer((s) => {
      reached++;
      s.destroy();
    });
    await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
    const url = `https://hooks.example.test:${(target.address() as AddressInfo).port}/in`;
    try {
      const lookup = scriptedLookup([["93.184.215.14"], ["127.0.0.1"]]);
      const registered = await checkWebhookUrl(url, { allowPrivate: false, lookup });
      expect(registered.ok).toBe(true);
      const r = await postWebhook(url, {}, "{}", { allowPrivate: false, lookup });
      expect(r).toMatchObject({ ok: false, error: "refused_address" });
      expect(lookup.calls).toBe(2);
      // One private address among public ones is enough to refuse (the socket may pick any).
      const mixed = scriptedLookup([["93.184.215.14", "10.0.0.7"]]);
      expect(await postWebhook(url, {}, "{}", { allowPrivate: false, lookup: mixed })).toMatchObject({
        error: "refused_address",
      });
      // Through kept connections too: each new one is made through the check.
      const agents = deliveryAgents();
      const again = scriptedLookup([["127.0.0.1"]]);
      expect(await postWebhook(url, {}, "{}", { allowPrivate: false, lookup: again, agents })).toMatchObject({
        error: "refused_address",
      });
      agents.https.destroy();
      expect(reached).toBe(0);
      // With allowPrivate the same name reaches the listener (the lookup is the socket's: the check was the refusal).
      await postWebhook(url.replace("https:", "http:"), {}, "{}", {
        allowPrivate: true,
        lookup,
        timeoutMs: 500,
      });
      expect(reached).toBe(1);
    } finally {
      await new Promise((resolve) => target.close(resolve));
    }
  });

  it("with agents, keeps a connection whose answer was read whole for the next delivery to that origin", async () => {
    const agents = deliveryAgents();
    const post = (max?: number) =>
      postWebhook(base(), {}, "{}", { ...allow, agents, ...(max ? { maxResponseBytes: max } : {}) });
    try {
      handler = (_req, res) => res.writeHead(200).end("ok");
      for (let i = 0; i < 3; i++)
        expect(await post()).toMatchObject({ ok: true, status: 200, bodyStart: "ok" });
      handler = (_req, res) => res.writeHead(500).end("no");
      expect(await post()).toMatchObject({ ok: false, status: 500, bodyStart: "no" });
      expect(received).toHaveLength(4);
      expect(connections).toBe(1);
      // An answer cut at the cap, or a redirect, closes its connection: the next delivery makes another.
      handler = (_req, res) => res.writeHead(200).end("x".repeat(100));
      expect(await post(10)).toMatchObject({ ok: true, bodyStart: "x".repeat(10) });
      handler = (_req, res) => res.writeHead(302, { location: "/elsewhere" }).end();
      expect(await post()).toMatchObject({ error: "redirect" });
      handler = (_req, res) => res.writeHead(200).end("ok");
      expect(await post()).toMatchObject({ ok: true });
      expect(connections).toBe(3);
      // Without agents, one connection per delivery.
      await postWebhook(base(), {}, "{}", allow);
      await postWebhook(base(), {}, "{}", allow);
      expect(connections).toBe(5);
    } finally {
      agents.http.destroy();
    }
  });

  it("with agents, sends a request again on a new connection when the receiver closed the kept one under it", async () => {
    const agents = deliveryAgents();
    // The receiver drops a connection at its second request, unanswered (its idle timeout met our request).
    const served = new WeakMap<net.Socket, number>();
    handler = (req, res) => {
      const n = (served.get(req.socket) ?? 0) + 1;
      served.set(req.socket, n);
      if (n > 1) req.socket.destroy();
      else res.writeHead(200).end(`ok ${received.length}`);
    };
    try {
      expect(await postWebhook(base(), {}, '{"n":1}', { ...allow, agents })).toMatchObject({
        ok: true,
        bodyStart: "ok 1",
      });
      expect(await postWebhook(base(), {}, '{"n":2}', { ...allow, agents })).toMatchObject({
        ok: true,
        bodyStart: "ok 3",
      });
      expect(received.map((r) => r.body)).toEqual(['{"n":1}', '{"n":2}', '{"n":2}']);
      expect(connections).toBe(2);
      // A fresh connection dropped unanswered is a failure, not sent again.
      handler = (req) => req.socket.destroy();
      agents.http.destroy();
      const fresh = deliveryAgents();
      expect(await postWebhook(base(), {}, "{}", { ...allow, agents: fresh })).toMatchObject({
        ok: false,
        error: "network",
      });
      expect(received).toHaveLength(4);
      fresh.http.destroy();
    } finally {
      agents.http.destroy();
    }
  });

  it("never throws: a malformed URL or scheme is a result", async () => {
    for (const url of ["not a url", "ftp://example.com/", "https://user:pw@example.com/"]) {
      await expect(postWebhook(url, {}, "{}", { allowPrivate: false })).resolves.toMatchObject({
        ok: false,
        error: "refused_address",
      });
    }
  });
});

describe("checkWebhookUrl", () => {
  const publicLookup = () => scriptedLookup([["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"]]);

  it("accepts a public https URL, normalised", async () => {
    const r = await checkWebhookUrl("HTTPS://Hooks.Example.COM/catalog?x=1", {
      allowPrivate: false,
      lookup: publicLookup(),
    });
    expect(r.ok && r.url.href).toBe("https://hooks.example.com/catalog?x=1");
    expect((await checkWebhookUrl("https://93.184.215.14/", { allowPrivate: false })).ok).toBe(true);
    expect((await checkWebhookUrl("https://[2606:4700::1111]/", { allowPrivate: false })).ok).toBe(true);
    expect((await checkWebhookUrl("https://[::ffff:8.8.8.8]/", { allowPrivate: false })).ok).toBe(true);
  });

  it("refuses other schemes, http without allowPrivate, credentials, and what is not a URL", async () => {
    const cases: [string, RegExp][] = [
      ["http://hooks.example.com/", /only https/],
      ["ftp://hooks.example.com/", /only https/],
      ["javascript:alert(1)", /only https/],
      ["https://user:secret@hooks.example.com/", /user name or password/],
      ["https://user@hooks.example.com/", /user name or password/],
      ["/relative/path", /not an absolute URL/],
      ["", /not an absolute URL/],
    ];
    for (const [url, reason] of cases) {
      const r = await checkWebhookUrl(url, { allowPrivate: false, lookup: publicLookup() });
      expect(r.ok, url).toBe(false);
      expect(!r.ok && r.reason, url).toMatch(reason);
    }
  });

  it("refuses a name that does not resolve", async () => {
    const failing = ((_h: string, _o: unknown, cb: (e: NodeJS.ErrnoException) => void) =>
      cb(Object.assign(new Error("nope"), { code: "ENOTFOUND" }))) as unknown as LookupFunction;
    const r = await checkWebhookUrl("https://nowhere.example.test/", {
      allowPrivate: false,
      lookup: failing,
    });
    expect(r).toEqual({ ok: false, reason: "nowhere.example.test does not resolve (ENOTFOUND)" });
  });

  // Each refused range, as a literal in the URL and as what a name resolves to.
  const REFUSED: [string, string][] = [
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.254", "private"],
    ["192.168.1.1", "private"],
    ["127.0.0.1", "loopback"],
    ["127.8.9.10", "loopback"],
    ["0.0.0.0", "unspecified"],
    ["169.254.1.1", "linkLocal"],
    ["169.254.169.254", "cloud metadata"],
    ["100.64.0.1", "carrierGradeNat"],
    ["100.100.100.200", "carrierGradeNat"], // Alibaba's metadata service
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["240.0.0.1", "reserved"],
    ["192.0.2.10", "reserved"],
    ["198.18.0.1", "reserved"],
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["fe80::1", "linkLocal"],
    ["fc00::1", "uniqueLocal"],
    ["fd12:3456::1", "uniqueLocal"],
    ["fd00:ec2::254", "cloud metadata"],
    ["ff02::1", "multicast"],
    ["2001:db8::1", "reserved"],
    ["::ffff:127.0.0.1", "embeds 127.0.0.1"],
    ["::ffff:10.0.0.1", "embeds 10.0.0.1"],
    ["::ffff:169.254.169.254", "cloud metadata"],
    ["::127.0.0.1", "embeds 127.0.0.1"], // IPv4-compatible (deprecated form)
    ["::ffff:0:192.168.0.1", "embeds 192.168.0.1"], // SIIT
    ["64:ff9b::a00:1", "embeds 10.0.0.1"], // NAT64
    ["2002:7f00:1::", "6to4"],
    ["2001::1", "teredo"],
  ];

  it.each(REFUSED)("refuses %s (%s) as a literal and as a resolved address", async (address, why) => {
    const literal = net.isIPv6(address) ? `[${address}]` : address;
    const direct = await checkWebhookUrl(`https://${literal}:8443/hook`, { allowPrivate: false });
    expect(direct.ok).toBe(false);
    expect(!direct.ok && direct.reason).toContain(why);
    const named = await checkWebhookUrl("https://hooks.example.test/hook", {
      allowPrivate: false,
      lookup: scriptedLookup([["93.184.215.14", address]]),
    });
    expect(named.ok).toBe(false);
    expect(!named.ok && named.reason).toMatch(/^hooks\.example\.test resolves to .+/);
    expect(!named.ok && named.reason).toContain(why);
    // …and every one is let through with allowPrivate (tests, local development), http too.
    expect((await checkWebhookUrl(`http://${literal}:8080/`, { allowPrivate: true })).ok).toBe(true);
  });

  it("reads an address in any form the URL parser accepts (hex, decimal, short) as the address it is", async () => {
    for (const url of ["https://0x7f.1/", "https://2130706433/", "https://127.1/", "https://0177.0.0.1/"]) {
      const r = await checkWebhookUrl(url, { allowPrivate: false });
      expect(!r.ok && r.reason, url).toMatch(/127\.0\.0\.1 is not a public address \(loopback\)/);
    }
  });

  it("classifies an address (addressRefusal): null for public unicast", () => {
    expect(addressRefusal("93.184.215.14")).toBeNull();
    expect(addressRefusal("2606:4700::1111")).toBeNull();
    expect(addressRefusal("64:ff9b::808:808")).toBeNull(); // NAT64 of 8.8.8.8
    expect(addressRefusal("fe80::1%eth0")).toMatch(/linkLocal/);
    expect(addressRefusal("hooks.example.com")).toMatch(/not an IP address/);
  });
});
