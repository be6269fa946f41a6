// The production server (`npm start`: scripts/serve.mjs in front of Next.js), probed as an attacker would: raw
// paths, request targets, methods and headers that Next.js alone answers with a 500, a redirect, an HTML page
// without its security headers, or a query it re-serialised. The request-target checks run on both paths of
// /public/v1: the fast path (the webServer) and Next.js (a second `npm start` with PCA_FAST_PATH=off), and under a
// bare `next start`, which gets the same front door from instrumentation.ts (lib/server/front-server.ts).
import { copyFileSync, mkdtempSync, readFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { bodyText, rawExchange, type RawExchange } from "./support/raw-socket";
import { startSecondServer, type SecondServer } from "./support/second-server";
import { signInRequest } from "./support/sign-in";

const port = Number(process.env.PCA_E2E_PORT);
const demoKeys = () =>
  JSON.parse(readFileSync(path.join(process.env.PCA_E2E_DATA_DIR!, "demo-keys.json"), "utf8")) as {
    keys: { org: string; key: string }[];
  };
const acmeKey = () => demoKeys().keys.find((k) => k.org === "acme")!.key;

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

// One request with the path sent exactly as written (no URL normalisation on the way).
function raw(method: string, rawPath: string, headers: Record<string, string> = {}, to = port): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: to, method, path: rawPath, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on("error", reject);
    req.end();
  });
}

function expectApiError(r: Raw, status: number, code: string) {
  expect(r.status).toBe(status);
  expect(r.headers["content-type"]).toMatch(/^application\/json/);
  const body = JSON.parse(r.text);
  expect(body).toMatchObject({ statusCode: status, code });
  expect(typeof body.message).toBe("string");
  expect(r.headers["x-request-id"]).toBe(body.requestId);
  expect(r.headers["x-content-type-options"]).toBe("nosniff");
  return body;
}

test("a malformed percent-encoding is a 400 in the error shape under /public/v1 and /media, the portal's 404 page elsewhere", async () => {
  for (const p of ["/public/v1/%ZZ", "/public/v1/products%E0%A4%A", "/media/acme/%ZZ.png"]) {
    expectApiError(await raw("GET", p), 400, "PUBLIC_API_INVALID_PATH");
  }
  const page = await raw("GET", "/docs/%ZZ");
  expect(page.status).toBe(404);
  expect(page.headers["content-type"]).toMatch(/^text\/html/);
  expect(page.text).toContain("<html");
});

test("TRACE and other unknown methods are a 405 with Allow, in the error shape under /public/v1", async () => {
  for (const p of ["/public/v1/products", "/public/v1/openapi.json", "/public/v1/nowhere"]) {
    const r = await raw("TRACE", p);
    expectApiError(r, 405, "PUBLIC_API_METHOD_NOT_ALLOWED");
    expect(r.headers.allow).toBe("GET, HEAD");
  }
  const portal = await raw("PROPFIND", "/docs");
  expect(portal.status).toBe(405);
  expect(portal.headers.allow).toMatch(/GET/);
});

test("a media name with a NUL byte is a 404, not an outage", async () => {
  const r = await raw("GET", "/media/acme/x%00.png");
  expect(r.status).toBe(404);
});

test("every answer under /public/v1 has a request id and the security headers, the preflight and the document included", async () => {
  const pre = await raw("OPTIONS", "/public/v1/products", {
    origin: "https://x.test",
    "access-control-request-method": "GET",
  });
  expect(pre.status).toBe(204);
  expect(pre.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  expect(pre.headers["x-content-type-options"]).toBe("nosniff");
  for (const method of ["GET", "HEAD"]) {
    const doc = await raw(method, "/public/v1/openapi.json");
    expect(doc.status).toBe(200);
    expect(doc.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(doc.headers["x-content-type-options"]).toBe("nosniff");
  }
});

test("anything under /public/ that is not an operation is a JSON 404; slash variants are answered as the canonical path, never redirected", async () => {
  for (const p of ["/public", "/public/v1", "/public/v2/products", "/public/v1/products/prd_1"]) {
    expectApiError(await raw("GET", p), 404, "PUBLIC_API_NOT_FOUND");
  }
  const auth = { authorization: `Bearer ${acmeKey()}` };
  for (const p of [
    "/public/v1/products/?perPage=1",
    "/public/v1//products?perPage=1",
    "//public/v1/products//?perPage=1",
  ]) {
    const r = await raw("GET", p, auth);
    expect(r.status, p).toBe(200);
    expect(r.headers.location).toBeUndefined();
    expect(JSON.parse(r.text).pagination.perPage).toBe(1);
  }
  const pre = await raw("OPTIONS", "/public/v1/products/", {
    origin: "https://x.test",
    "access-control-request-method": "GET",
  });
  expect(pre.status).toBe(204);
  expect(pre.headers["access-control-allow-origin"]).toBe("*");
});

test("the API ignores the framework's router headers: RSC: 1 gets a normal answer", async () => {
  const r = await raw("GET", "/public/v1/products?perPage=2", {
    authorization: `Bearer ${acmeKey()}`,
    rsc: "1",
    "next-router-state-tree": "%5B%22%22%5D",
    "next-router-prefetch": "1",
  });
  expect(r.status).toBe(200);
  expect(r.headers["content-type"]).toMatch(/^application\/json/);
  expect(JSON.parse(r.text).data).toHaveLength(2);
});

test.describe("the demo key", () => {
  let server: SecondServer | undefined;
  let proxied = 0;
  test.beforeAll(async () => {
    // A second production server on the same build, behind a "proxy" (TRUST_PROXY=true), so that the test can
    // present a client address other than loopback without leaving this machine.
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "pca-e2e-proxied-"));
    copyFileSync(
      path.join(process.env.PCA_E2E_DATA_DIR!, "demo-keys.json"),
      path.join(dataDir, "demo-keys.json"),
    );
    server = await startSecondServer({
      label: "front-door proxied",
      env: { DATA_DIR: dataDir, TRUST_PROXY: "true" },
    });
    proxied = server.port;
  });
  test.afterAll(async () => {
    await server?.stop();
  });

  test("is in the reference page for a browser on this machine, never for another address", async () => {
    const key = acmeKey();
    const local = await raw("GET", "/reference/products");
    expect(local.status).toBe(200);
    expect(local.text).toContain(key);
    for (const xff of ["203.0.113.9", "127.0.0.1, 198.51.100.4", "10.0.0.1"]) {
      const remote = await raw("GET", "/reference/products", { "x-forwarded-for": xff }, proxied);
      expect(remote.status).toBe(200);
      expect(remote.text).not.toMatch(/pca_[A-Za-z0-9]{36}/);
    }
    const viaLocalProxy = await raw(
      "GET",
      "/reference/products",
      { "x-forwarded-for": "127.0.0.1" },
      proxied,
    );
    expect(viaLocalProxy.text).toContain(key);
  });
});

// Next.js' router headers, which none of the API's answers may list in Vary (they mean nothing to the API).
const ROUTER_VARY = /\b(rsc|next-router-[a-z-]+|next-url)\b/i;

// A second `npm start` (scripts/start.ts: migrations, the demo seeded in its own data folder) with /public/v1
// through Next.js, for the checks that must hold on both paths.
async function startFastPathOff(): Promise<{ port: number; key: string; stop: () => Promise<void> }> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "pca-e2e-fast-path-off-"));
  const server = await startSecondServer({
    label: "front-door fast-path-off",
    script: "start",
    env: { DATA_DIR: dataDir, PCA_FAST_PATH: "off" },
    // Migrations and the demo seed first: over a minute on a loaded machine.
    timeoutMs: 240_000,
  });
  expect(server.output()).toContain("/public/v1 through Next.js (PCA_FAST_PATH=off)");
  const keys = JSON.parse(readFileSync(path.join(dataDir, "demo-keys.json"), "utf8")) as {
    keys: { org: string; key: string }[];
  };
  return { port: server.port, key: keys.keys.find((k) => k.org === "acme")!.key, stop: server.stop };
}

// A bare `next start` of the same build on a data folder of its own, seeded first by `npm start` (stopped then).
async function startNextStart(): Promise<{ port: number; key: string; stop: () => Promise<void> }> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "pca-e2e-next-start-"));
  const seeding = await startSecondServer({
    label: "front-door next-start seeding",
    script: "start",
    env: { DATA_DIR: dataDir },
    timeoutMs: 240_000,
  });
  await seeding.stop();
  const server = await startSecondServer({
    label: "front-door next start",
    script: "next start",
    env: { DATA_DIR: dataDir },
  });
  const keys = JSON.parse(readFileSync(path.join(dataDir, "demo-keys.json"), "utf8")) as {
    keys: { org: string; key: string }[];
  };
  return { port: server.port, key: keys.keys.find((k) => k.org === "acme")!.key, stop: server.stop };
}

for (const which of ["fast path", "PCA_FAST_PATH=off", "next start"] as const) {
  test.describe(`the request target and the API's answers (${which})`, () => {
    // In order, in one worker (one second server), each test on its own: a failure does not skip the others.
    test.describe.configure({ mode: "default" });
    let to = port;
    let key = "";
    let stop: (() => Promise<void>) | undefined;
    test.beforeAll(async () => {
      test.setTimeout(300_000);
      if (which === "fast path") key = acmeKey();
      else if (which === "PCA_FAST_PATH=off") ({ port: to, key, stop } = await startFastPathOff());
      else ({ port: to, key, stop } = await startNextStart());
    });
    test.afterAll(async () => {
      await stop?.();
    });
    const auth = () => ({ authorization: `Bearer ${key}` });

    // Issue 21, row 4.
    test("an absolute-form request target is answered as its path, never redirected to the host it names", async () => {
      for (const origin of ["http://evil.test", "https://evil.test:8443", "http://user@evil.test"]) {
        const api = await raw("GET", `${origin}/public/v1/products?perPage=1`, auth(), to);
        expect(api.status, origin).toBe(200);
        expect(api.headers.location).toBeUndefined();
        expect(JSON.parse(api.text).pagination.perPage).toBe(1);
        for (const p of ["/console", "/docs", "/api/auth/session", "/public/v1/nope"]) {
          const r = await raw("GET", `${origin}${p}`, {}, to);
          const plain = await raw("GET", p, {}, to);
          expect(r.status, `${origin}${p}`).toBe(plain.status);
          expect(r.headers.location ?? "", `${origin}${p}`).not.toContain("evil.test");
          expect(r.headers.location).toBe(plain.headers.location);
        }
      }
    });

    // Issue 21, row 5.
    test("OPTIONS * is the server-wide OPTIONS answer, another method with * a 400, never a 5xx", async () => {
      const star = await raw("OPTIONS", "*", {}, to);
      expect(star.status).toBe(204);
      expect(star.headers.allow).toMatch(/\bOPTIONS\b/);
      expect(star.headers.allow).toMatch(/\bGET\b/);
      for (const method of ["GET", "HEAD", "POST"]) {
        const r = await raw(method, "*", {}, to);
        expect(r.status, method).toBe(400);
        expect(r.headers["x-content-type-options"]).toBe("nosniff");
      }
    });

    // Issue 21, row 6.
    test("dot segments are resolved before routing: a path that resolves under /public/ is the API's, router headers stripped", async () => {
      const router = { rsc: "1", "next-router-prefetch": "1", "next-router-state-tree": "%5B%22%22%5D" };
      for (const p of [
        "/foo/../public/v1/products?perPage=1",
        "/_next/../public/v1/products?perPage=1",
        "/foo/%2e%2e/public/v1/products?perPage=1",
        "/foo/%2E%2E/public/v1/products?perPage=1",
        "/a/b/..%2f../public/v1/products?perPage=1",
      ]) {
        const r = await raw("GET", p, { ...auth(), ...router }, to);
        if (p.includes("%2f")) {
          // An encoded slash is no separator: not a dot segment, not the API; never a redirect to ?_rsc.
          expect(r.headers.location ?? "", p).not.toContain("_rsc");
          continue;
        }
        expect(r.status, p).toBe(200);
        expect(r.headers.location, p).toBeUndefined();
        expect(r.headers["content-type"]).toMatch(/^application\/json/);
        expect(r.headers.vary ?? "").not.toMatch(ROUTER_VARY);
        expect(JSON.parse(r.text).data).toHaveLength(1);
      }
      for (const p of ["/foo/../public/v1/nope", "/x/%2e%2e/public/v2", "/x/../public"]) {
        const r = await raw("GET", p, router, to);
        expectApiError(r, 404, "PUBLIC_API_NOT_FOUND");
        expect(r.headers.location).toBeUndefined();
      }
      expectApiError(await raw("GET", "/foo/../public/v1/%ZZ", router, to), 400, "PUBLIC_API_INVALID_PATH");
      expectApiError(
        await raw("TRACE", "/x/../public/v1/products", {}, to),
        405,
        "PUBLIC_API_METHOD_NOT_ALLOWED",
      );
    });

    // Issue 21, row 10.
    test("a query parameter named like an Object.prototype member is unknown: a 400 naming it", async () => {
      for (const q of [
        "__proto__=1",
        "perPage=1&__proto__=1",
        "__proto__=1&__proto__=2",
        "constructor=1",
        "toString=1",
      ]) {
        const r = await raw("GET", `/public/v1/products?${q}`, auth(), to);
        const body = expectApiError(r, 400, "PUBLIC_API_INVALID_QUERY");
        expect(body.message, q).toContain(q.includes("__proto__") ? "__proto__" : q.split("=")[0]!);
      }
    });

    // Issue 21, row 15.
    test("the API's answers vary by Authorization and Accept-Encoding, never by Next.js' router headers", async () => {
      for (const headers of [auth(), { ...auth(), "accept-encoding": "gzip" }]) {
        for (const p of ["/public/v1/products?perPage=1", "/public/v1/media"]) {
          const r = await raw("GET", p, headers, to);
          expect(r.status, p).toBe(200);
          expect(r.headers.vary, p).toBe("Authorization, Accept-Encoding");
        }
      }
      const others = [
        await raw("GET", "/public/v1/products", {}, to),
        await raw("GET", "/public/v1/products?nope=1", auth(), to),
        await raw("GET", "/public/v1/nope", auth(), to),
        await raw("GET", "/public/v1/openapi.json", {}, to),
        await raw(
          "OPTIONS",
          "/public/v1/products",
          { origin: "https://x.test", "access-control-request-method": "GET" },
          to,
        ),
      ];
      for (const r of others) expect(r.headers.vary ?? "").not.toMatch(ROUTER_VARY);
    });

    // Issue 27, item 6: hostile transport, on raw sockets.
    test("a header block or request line over 16 KB is a 431 that closes the connection: the API's error shape under /public/, plain text with the security headers elsewhere; the server stays up", async () => {
      const pad = "a".repeat(17 * 1024);
      for (const [label, request] of [
        ["header block", `GET /public/v1/products HTTP/1.1\r\nHost: x\r\nX-Pad: ${pad}\r\n\r\n`],
        ["URL", `GET /public/v1/products?q=${pad} HTTP/1.1\r\nHost: x\r\n\r\n`],
        ["absolute-form URL", `GET http://evil.test/public/v1/products?q=${pad} HTTP/1.1\r\nHost: x\r\n\r\n`],
        ["many headers", `GET /public/v1/products HTTP/1.1\r\nHost: x\r\n${"X-A: bb\r\n".repeat(6000)}\r\n`],
      ]) {
        const r = await rawExchange(to, request!);
        expect(r.status, label).toBe(431);
        expect(r.closed, label).toBe(true);
        expectRawApiError(r, 431, "PUBLIC_API_HEADERS_TOO_LARGE");
      }
      for (const p of ["/console", "/docs", "/media/acme/x.png"]) {
        const r = await rawExchange(to, `GET ${p}?x=${pad} HTTP/1.1\r\nHost: x\r\n\r\n`);
        expect(r.status, p).toBe(431);
        expect(r.closed, p).toBe(true);
        expect(r.headers["content-type"], p).toMatch(/^text\/plain/);
        expectSecurityHeaders(r, p);
      }
      expect((await raw("GET", "/public/v1/openapi.json", {}, to)).status).toBe(200);
    });

    test("a URL of 10 KB is a clean answer: the API's 400 naming the parameter, the portal's own page", async () => {
      const long = "a".repeat(10 * 1024);
      const api = await raw("GET", `/public/v1/products?q=${long}`, auth(), to);
      expect(api.status).toBe(400);
      expect(JSON.parse(api.text)).toMatchObject({ statusCode: 400, code: "PUBLIC_API_INVALID_QUERY" });
      expectApiError(await raw("GET", `/public/v1/${long}`, auth(), to), 404, "PUBLIC_API_NOT_FOUND");
      for (const p of [`/docs?x=${long}`, `/console/sign-in?callbackUrl=${long}`, `/${long}`]) {
        const r = await raw("GET", p, {}, to);
        expect(r.status, p.slice(0, 40)).toBeLessThan(500);
        expect(r.headers["x-content-type-options"]).toBe("nosniff");
      }
    });

    test("two Authorization headers are a 401 in the error shape that uses neither key", async () => {
      const good = `Authorization: Bearer ${key}\r\n`;
      for (const pair of [
        good + good,
        good + "Authorization: Bearer pca_nope\r\n",
        "Authorization: Basic dXNlcjpwYXNz\r\n" + good,
        "authorization: \r\n" + good,
      ]) {
        for (const p of [
          "/public/v1/products?perPage=1",
          "/x/../public/v1/families",
          "/public/v1/openapi.json",
        ]) {
          const r = await rawExchange(to, `GET ${p} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${pair}\r\n`);
          expectRawApiError(r, 401, "PUBLIC_API_KEY_INVALID");
          expect(r.headers["www-authenticate"]).toMatch(/^Bearer/);
          expect(r.body).not.toContain('"data"');
        }
      }
      // One of them alone is a normal call.
      expect((await raw("GET", "/public/v1/products?perPage=1", auth(), to)).status).toBe(200);
    });

    test("path tricks under /public/v1, /media and /console: case, encoded dots, doubled slashes, backslashes, absolute form; never a 5xx, a redirect off the site or a file outside the media folder", async () => {
      // Paths are case-sensitive: /PUBLIC is not the API (the portal's 404 page), /public/V1 is the API's 404.
      for (const p of ["/PUBLIC/v1/products", "/Public/V1/products"]) {
        const r = await raw("GET", p, auth(), to);
        expect(r.status, p).toBe(404);
        expect(r.text).not.toContain('"data"');
        expectSecurityHeaders(r, p);
      }
      for (const p of ["/public/V1/products", "/public/v1/Products", "/public/v1/PRODUCTS/"]) {
        expectApiError(await raw("GET", p, auth(), to), 404, "PUBLIC_API_NOT_FOUND");
      }
      for (const p of [
        "/media/acme/..%2f..%2fpackage.json",
        "/media/acme/%2e%2e/%2e%2e/package.json",
        "/media/acme/%2E%2E%2F%2E%2E%2Fpackage.json",
        "/media/acme/..\\..\\package.json",
        "/media/..%5c..%5cpackage.json",
        "//media//acme//..//..//package.json",
        "/media/acme/%252e%252e/package.json",
        "/MEDIA/acme/x.png",
        "http://evil.test/media/acme/%2e%2e/x.png",
      ]) {
        const r = await raw("GET", p, {}, to);
        // A path that resolves outside /media/ (backslashes are slashes) is the portal's: Next.js may redirect it
        // to its canonical spelling on this site, which is then no file either.
        const landed = r.status === 308 ? await raw("GET", r.headers.location!, {}, to) : r;
        if (r.status === 308) expect(r.headers.location, p).toMatch(/^\/[^/\\]/);
        expect(landed.status, p).toBeGreaterThanOrEqual(400);
        expect(landed.status, p).toBeLessThan(500);
        expect(landed.text, p).not.toContain("public-catalog-api");
        expect(r.headers.location ?? "", p).not.toContain("evil.test");
        expectSecurityHeaders(r, p);
      }
      for (const p of [
        "/console/%2e%2e/public/v1/products",
        "/console//acme//keys",
        "/CONSOLE",
        "/console/..%2f..%2fpublic/v1/products",
        "http://evil.test/console",
        "//evil.test/console",
        "/console/%2e%2e%2f%2e%2e%2fetc/passwd",
      ]) {
        const r = await raw("GET", p, {}, to);
        expect(r.status, p).toBeLessThan(500);
        // A redirect stays on this site: a path, never "//host" nor an absolute URL.
        expect(r.headers.location ?? "/", p).toMatch(/^\/(?![/\\])/);
        expectSecurityHeaders(r, p);
      }
    });

    test("every method on every kind of path: never a 5xx, a stack trace or a dropped connection; under /public/ the API's JSON, never a redirect", async () => {
      const product = JSON.parse((await raw("GET", "/public/v1/products?perPage=1", auth(), to)).text).data[0]
        .id;
      const media = new URL(
        JSON.parse((await raw("GET", "/public/v1/media?perPage=1", auth(), to)).text).data[0].mediaUrl,
      ).pathname;
      const paths = [
        "/public/v1/products",
        `/public/v1/products/${product}`,
        "/public/v1/openapi.json",
        "/public/v1/nope",
        media,
        "/media/acme/nope.png",
        "/console",
        "/console/acme/keys",
        "/api/auth/session",
        "/api/auth/csrf",
        "/docs",
      ];
      const methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT", "FOO"];
      for (const p of paths) {
        for (const m of methods) {
          const label = `${m} ${p}`;
          const r = await rawExchange(
            to,
            `${m} ${p} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 0\r\n` +
              `Authorization: Bearer ${key}\r\n\r\n`,
          );
          expect(r.status, label).toBeGreaterThanOrEqual(200);
          expect(r.status, label).toBeLessThan(500);
          const text = bodyText(r);
          expect(text, label).not.toMatch(STACK_TRACE);
          expect(text, label).not.toContain(process.cwd());
          expect(r.headers["x-content-type-options"], label).toBe("nosniff");
          if (p.startsWith("/public/")) {
            expect(r.headers.location, label).toBeUndefined();
            expect(r.status, label).not.toBe(308);
            if (text) expect(r.headers["content-type"], label).toMatch(/^application\/json/);
            if (r.status >= 400 && text)
              expect(JSON.parse(text), label).toMatchObject({ statusCode: r.status });
          } else expectSecurityHeaders(r, label);
        }
      }
    });

    // Node checks the timeouts every `connectionsCheckingInterval`, an option of the server's constructor: npm start's
    // server checks every second, `next start`'s every 30 s (node's default; the front door sets the timeouts on a
    // server made already, not that), so there a slow client is closed within 10 to 40 s.
    const checkEveryMs = which === "next start" ? 30_000 : 1_000;
    test(`a slow client is closed: headers a byte a second get a 408 and the socket back within the headers timeout (10 s) and node's check (${checkEveryMs / 1000} s); an idle kept-alive connection is not cut by it`, async () => {
      test.setTimeout(60_000 + checkEveryMs);
      const slow = rawExchange(to, "Host: x\r\nX-Slow: " + "a".repeat(90) + "\r\n\r\n", {
        first: "GET /public/v1/products HTTP/1.1\r\n",
        drip: 1000,
        waitMs: 25_000 + checkEveryMs,
      });
      const slowPortal = rawExchange(
        to,
        "ET /docs HTTP/1.1\r\nHost: x\r\n" + "X-Slow: a\r\n".repeat(10) + "\r\n",
        {
          first: "G",
          drip: 1000,
          waitMs: 25_000 + checkEveryMs,
        },
      );
      const request = `GET /public/v1/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n`;
      // A kept-alive connection, idle 12 s (longer than the headers timeout) between two requests.
      const idle = new Promise<number>((resolve, reject) => {
        const socket = net.connect(to, "127.0.0.1");
        let text = "";
        socket.on("data", (d: Buffer) => (text += d.toString("latin1")));
        socket.on("error", reject);
        socket.write(request);
        setTimeout(() => socket.write(request), 12_000);
        setTimeout(() => {
          socket.destroy();
          resolve((text.match(/HTTP\/1\.1 200 /g) ?? []).length);
        }, 14_000);
      });
      const [r, portal, answered] = await Promise.all([slow, slowPortal, idle]);
      expect(r.ms).toBeGreaterThanOrEqual(9_000);
      // Node keeps a request it has not finished reading to itself: the answer cannot depend on its path, so it is
      // the API's error shape with the portal's security headers, right for either side.
      for (const answer of [r, portal]) {
        expect(answer.closed).toBe(true);
        expect(answer.ms).toBeLessThan(15_000 + checkEveryMs);
        expectRawApiError(answer, 408, "PUBLIC_API_REQUEST_TIMEOUT");
        expect(answer.headers["content-security-policy"]).toMatch(/frame-ancestors 'none'/);
        expect(answer.headers["x-frame-options"]).toBe("DENY");
      }
      expect(answered).toBe(2);
    });
  });
}

// A stack frame ("    at fn (file.js:1:2)") or a Node error's name line.
const STACK_TRACE = /\n\s+at [^\n]+:\d+:\d+|\b(?:TypeError|ReferenceError|SyntaxError): /;

// The security headers every answer outside the API carries (lib/portal/csp.ts): nosniff, and on an HTML page or
// an answer of the server's own the framing refusals.
function expectSecurityHeaders(r: Raw | RawExchange, label: string) {
  const h = r.headers as Record<string, string | string[] | undefined>;
  expect(h["x-content-type-options"], label).toBe("nosniff");
  if (String(h["content-type"] ?? "").startsWith("application/json")) return;
  expect(h["content-security-policy"], label).toMatch(/frame-ancestors 'none'/);
  expect(h["x-frame-options"], label).toBe("DENY");
  expect(h["referrer-policy"], label).toBe("strict-origin-when-cross-origin");
}

// expectApiError for an answer read off a raw socket.
function expectRawApiError(r: RawExchange, status: number, code: string) {
  expect(r.status).toBe(status);
  expect(r.headers["content-type"]).toMatch(/^application\/json/);
  const body = JSON.parse(bodyText(r));
  expect(body).toMatchObject({ statusCode: status, code });
  expect(typeof body.message).toBe("string");
  expect(r.headers["x-request-id"]).toBe(body.requestId);
  expect(r.headers["x-content-type-options"]).toBe("nosniff");
}

// Issue 21, row 7.
test("every HTML answer carries CSP with frame-ancestors, X-Frame-Options and nosniff, whatever the request's headers; the feeds carry nosniff", async ({
  request,
}) => {
  await signInRequest(request, "owner@acme.example", process.env.PCA_E2E_DATA_DIR!);
  const variants: Record<string, string>[] = [
    {},
    { purpose: "prefetch" },
    { "next-router-prefetch": "1" },
    { "sec-purpose": "prefetch" },
    { purpose: "prefetch", "next-router-prefetch": "1" },
  ];
  const html = [
    "/console/sign-in",
    "/console/acme/keys",
    "/reference/products",
    "/mediakit",
    "/favicon.ico",
    "/_next/imagex",
    "/_next/staticx",
    "/changelog/rss.xmlx",
    "/docs",
  ];
  for (const url of [...html, "/public/v1x", "/media/acme/nope.png"]) {
    for (const headers of variants) {
      const r = await request.get(url, { headers, maxRedirects: 0 });
      const h = r.headers();
      const label = `${url} ${JSON.stringify(headers)}`;
      expect(h["x-content-type-options"], label).toBe("nosniff");
      if (html.includes(url)) expect(h["content-type"], label).toMatch(/^text\/html/);
      if (!h["content-type"]?.startsWith("text/html")) continue;
      expect(h["content-security-policy"], label).toMatch(/frame-ancestors 'none'/);
      expect(h["content-security-policy"], label).toMatch(/script-src 'self' 'nonce-/);
      expect(h["x-frame-options"], label).toBe("DENY");
    }
  }
  for (const feed of ["/changelog/rss.xml", "/changelog/atom.xml"]) {
    const r = await request.get(feed);
    expect(r.status()).toBe(200);
    expect(r.headers()["x-content-type-options"], feed).toBe("nosniff");
  }
});
