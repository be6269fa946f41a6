// The front door of the production server: what Next.js would answer outside our routes is settled here, in the
// API's error shape under /public/ and /media/.
import http from "node:http";
import type { AddressInfo } from "node:net";
import compressionMiddleware from "compression";
import { describe, expect, it } from "vitest";
import { BASELINE_SECURITY_HEADERS } from "@/lib/portal/csp";
import {
  NOT_FOUND_PATH,
  connectRefusal,
  dropRouterVary,
  frontDoor,
  parserRefusal,
} from "@/lib/server/front-door";

async function answer(method: string, url: string, rawHeaders: string[] = []) {
  const d = frontDoor(method, url, rawHeaders);
  if (d.kind !== "answer") throw new Error(`expected an answer, got a pass to ${d.url}`);
  const text = await d.response.text();
  return {
    status: d.response.status,
    headers: d.response.headers,
    text,
    body: text && d.response.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text,
  };
}

function passed(method: string, url: string, rawHeaders: string[] = []) {
  const d = frontDoor(method, url, rawHeaders);
  if (d.kind !== "pass") throw new Error(`expected a pass, got ${d.response.status}`);
  return d;
}

describe("front door", () => {
  it.each(["/public/v1/%ZZ", "/public/v1/products%E0%A4%A", "/media/acme/%ZZ.png", "/public/%C3"])(
    "a malformed percent-encoding under the API or media (%s) is a 400 in the error shape",
    async (url) => {
      const r = await answer("GET", url);
      expect(r.status).toBe(400);
      expect(r.headers.get("content-type")).toMatch(/^application\/json/);
      expect(r.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
      expect(r.body).toEqual({
        statusCode: 400,
        error: "Bad Request",
        code: "PUBLIC_API_INVALID_PATH",
        message: expect.stringContaining("Chemin"),
        requestId: r.headers.get("x-request-id"),
      });
    },
  );

  it("a malformed path elsewhere goes to the portal's not-found page", () => {
    expect(passed("GET", "/docs/%ZZ").url).toBe(NOT_FOUND_PATH);
  });

  it.each(["TRACE", "PROPFIND", "TRACK", "PURGE"])(
    "%s under /public/v1 is a 405 with Allow in the error shape",
    async (m) => {
      const r = await answer(m, "/public/v1/products");
      expect(r.status).toBe(405);
      expect(r.headers.get("allow")).toBe("GET, HEAD");
      expect(r.body.code).toBe("PUBLIC_API_METHOD_NOT_ALLOWED");
      expect(r.body.message).toContain(m);
      expect(r.headers.get("x-request-id")).toBe(r.body.requestId);
    },
  );

  it("an unknown method elsewhere is a plain 405 with Allow", async () => {
    const r = await answer("TRACE", "/docs");
    expect(r.status).toBe(405);
    expect(r.headers.get("allow")).toContain("GET");
  });

  it.each([
    ["/public/v1/products/", "/public/v1/products"],
    ["/public/v1//products", "/public/v1/products"],
    ["//public//v1///products//?page=2", "/public/v1/products?page=2"],
    ["/public/v1\\products", "/public/v1/products"],
    ["/public/v1/", "/public/v1"],
    ["/public/", "/public"],
    ["/public/v1/x/../products/.?a=1", "/public/v1/products?a=1"],
    ["/public/v1/products/%2e%2e/families", "/public/v1/families"],
    ["/public/v1/a%20b", "/public/v1/a%20b"],
  ])("%s is answered as the canonical %s, never redirected", (url, canonical) => {
    expect(passed("GET", url).url).toBe(canonical);
  });

  it("strips the framework's router headers from API requests, keeps every other header", () => {
    const d = passed("GET", "/public/v1/products");
    for (const h of [
      "rsc",
      "RSC",
      "next-router-state-tree",
      "next-router-prefetch",
      "next-url",
      "x-middleware-subrequest",
      "x-matched-path",
      "x-now-route-matches",
      "x-next-resume-state-length",
    ])
      expect(d.stripHeaders(h)).toBe(true);
    for (const h of ["authorization", "accept", "x-forwarded-for", "if-none-match", "user-agent"])
      expect(d.stripHeaders(h)).toBe(false);
    expect(passed("GET", "/docs").stripHeaders("rsc")).toBe(false);
  });

  // Issue 21, row 4.
  it.each([
    ["http://evil.test/public/v1/products?perPage=1", "/public/v1/products?perPage=1", true],
    ["https://evil.test:8443/public/v1//products/", "/public/v1/products", true],
    ["HTTP://user@evil.test/console", "/console", false],
    ["http://evil.test/api/auth/session", "/api/auth/session", false],
    ["http://evil.test", "/", false],
    ["http://evil.test?x=1", "/?x=1", false],
  ])(
    "an absolute-form target (%s) is its path and query, %s, the host it names dropped",
    (url, path, api) => {
      const d = passed("GET", url);
      expect(d.url).toBe(path);
      expect(d.stripHeaders("rsc")).toBe(api);
    },
  );

  // Issue 21, row 5.
  it("OPTIONS * is the server-wide answer (204 with Allow); * with another method, or a target that is no path, a 400", async () => {
    const star = await answer("OPTIONS", "*");
    expect(star.status).toBe(204);
    expect(star.headers.get("allow")).toBe("GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS");
    for (const [method, url] of [
      ["GET", "*"],
      ["HEAD", "*"],
      ["GET", "evil.test:443"],
      ["GET", "public/v1/products"],
    ]) {
      const r = await answer(method!, url!);
      expect(r.status, `${method} ${url}`).toBe(400);
      expect(r.headers.get("x-content-type-options")).toBe("nosniff");
    }
  });

  // Issue 21, row 6.
  it.each([
    ["/foo/../public/v1/products?perPage=1", "/public/v1/products?perPage=1"],
    ["/_next/../public/v1/products", "/public/v1/products"],
    ["/foo/%2e%2e/public/v1/products", "/public/v1/products"],
    ["/foo/%2E%2E/public/v1/products/", "/public/v1/products"],
    ["/foo/.%2e/public/v1/nope", "/public/v1/nope"],
    ["/a\\..\\public", "/public"],
    ["/docs/../media/acme/x.png", "/media/acme/x.png"],
  ])(
    "dot segments are resolved before routing: %s is the API's %s, router headers stripped",
    (url, canonical) => {
      const d = passed("GET", url);
      expect(d.url).toBe(canonical);
      expect(d.stripHeaders("rsc")).toBe(true);
      expect(d.stripHeaders("next-router-prefetch")).toBe(true);
    },
  );

  it("routes on the resolved path: its malformed escapes and unknown methods are the API's answers", async () => {
    expect((await answer("GET", "/foo/../public/v1/%ZZ")).body.code).toBe("PUBLIC_API_INVALID_PATH");
    expect((await answer("TRACE", "/x/%2e%2e/public/v1/products")).body.code).toBe(
      "PUBLIC_API_METHOD_NOT_ALLOWED",
    );
    // A path that only looked like the API's before resolution is the portal's.
    expect(passed("GET", "/public/../docs").stripHeaders("rsc")).toBe(false);
    // An encoded slash is no separator: "..%2f" is not a dot segment.
    expect(passed("GET", "/a/..%2f../public/v1/products").stripHeaders("rsc")).toBe(false);
  });

  // Issue 21, row 10.
  it("hands the API the query as sent in its own header, whatever a client put there; nothing elsewhere", () => {
    const d = passed("GET", "/public/v1/products?perPage=1&__proto__=1&q=a+b%ZZ");
    expect(d.addHeaders).toEqual({ "x-public-api-sent-query": "perPage=1&__proto__=1&q=a+b%ZZ" });
    expect(d.stripHeaders("x-public-api-sent-query")).toBe(true);
    expect(d.stripHeaders("X-Public-Api-Sent-Query")).toBe(true);
    expect(passed("GET", "/public/v1/products").addHeaders).toEqual({ "x-public-api-sent-query": "" });
    expect(passed("GET", "/public/v1/products?a=1#b=2").addHeaders).toEqual({
      "x-public-api-sent-query": "a=1",
    });
    expect(passed("GET", "/docs?__proto__=1").addHeaders).toEqual({});
    expect(passed("GET", "/media/acme/x.png?a=1").addHeaders).toEqual({});
  });

  it("leaves portal paths and well-formed API paths as they are", () => {
    expect(passed("GET", "/docs/getting-started?x=1").url).toBe("/docs/getting-started?x=1");
    expect(passed("GET", "/public/v1/products?q=cr%C3%A8me").url).toBe("/public/v1/products?q=cr%C3%A8me");
    expect(passed("POST", "/publicity").url).toBe("/publicity");
  });
});

// Issue 27, item 6.
describe("front door: two Authorization headers, the security headers of its own answers", () => {
  const bearer = (k: string) => `Bearer pca_${k.repeat(36)}`;

  it.each([
    ["GET", "/public/v1/products", ["Authorization", bearer("a"), "authorization", bearer("b")]],
    ["HEAD", "/public/v1/products?perPage=1", ["authorization", bearer("a"), "AUTHORIZATION", bearer("a")]],
    ["POST", "/x/../public/v1/products", ["Host", "x", "Authorization", "", "Authorization", bearer("b")]],
    ["GET", "/public/v1/nope", ["authorization", "Basic eDp5", "authorization", bearer("a")]],
  ])(
    "%s %s with two Authorization lines is a 401 in the error shape that uses neither",
    async (m, url, raw) => {
      const r = await answer(m, url, raw);
      expect(r.status).toBe(401);
      expect(r.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(r.headers.get("x-content-type-options")).toBe("nosniff");
      if (m === "HEAD") return expect(r.text).toBe("");
      expect(r.body).toEqual({
        statusCode: 401,
        error: "Unauthorized",
        code: "PUBLIC_API_KEY_INVALID",
        message: "Clé API invalide.",
        requestId: r.headers.get("x-request-id"),
      });
    },
  );

  it("one Authorization line under /public/, or two elsewhere, are handed on", () => {
    expect(passed("GET", "/public/v1/products", ["Authorization", bearer("a")]).api).toBe(true);
    expect(passed("GET", "/console", ["authorization", "x", "authorization", "y"]).url).toBe("/console");
  });

  it("every answer it gives outside the API carries the baseline CSP, nosniff, X-Frame-Options and Referrer-Policy", async () => {
    const answers = [
      await answer("TRACE", "/docs"),
      await answer("CONNECT", "/console"),
      await answer("GET", "*"),
      await answer("OPTIONS", "*"),
      await answer("GET", "evil.test:443"),
    ];
    for (const r of answers) {
      for (const [name, value] of Object.entries(BASELINE_SECURITY_HEADERS))
        expect(r.headers.get(name), `${r.status} ${name}`).toBe(value);
    }
    expect(BASELINE_SECURITY_HEADERS["Content-Security-Policy"]).toContain("frame-ancestors 'none'");
  });
});

describe("front door: slash variants of portal paths", () => {
  it.each([
    ["/docs/", "/docs"],
    ["//docs", "/docs"],
    ["/docs//getting-started/?a=1", "/docs/getting-started?a=1"],
    ["/docs\\x", "/docs/x"],
    ["//evil.test/console", "/evil.test/console"],
    ["/\\evil.test", "/evil.test"],
  ])("%s is redirected to %s on this site, with the security headers", async (url, location) => {
    const r = await answer("GET", url);
    expect(r.status).toBe(308);
    expect(r.headers.get("location")).toBe(location);
    for (const [name, value] of Object.entries(BASELINE_SECURITY_HEADERS))
      expect(r.headers.get(name)).toBe(value);
  });

  it("leaves canonical portal paths and dot segments to Next.js", () => {
    for (const url of ["/", "/docs", "/docs/getting-started?x=/y//z", "/a/../docs"])
      expect(passed("GET", url).url).toBe(url);
  });
});

// Parses the bytes of parserRefusal's answer.
function parseAnswer(bytes: Buffer) {
  const text = bytes.toString("utf8");
  const [head, body] = [text.slice(0, text.indexOf("\r\n\r\n")), text.slice(text.indexOf("\r\n\r\n") + 4)];
  const [statusLine, ...lines] = head.split("\r\n");
  const headers = new Map(
    lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 2)]),
  );
  return { statusLine, headers, body };
}

describe("parserRefusal: the answer to a request node's HTTP parser refused", () => {
  it.each([
    [
      "HPE_HEADER_OVERFLOW",
      "GET /public/v1/products?q=aaaa HTTP/1.1\r\nX-Pad: aaaa",
      431,
      "PUBLIC_API_HEADERS_TOO_LARGE",
    ],
    [
      "HPE_HEADER_OVERFLOW",
      "GET http://evil.test/public/v1/x HTTP/1.1\r\n",
      431,
      "PUBLIC_API_HEADERS_TOO_LARGE",
    ],
    [
      "ERR_HTTP_REQUEST_TIMEOUT",
      "GET //public/v1/products HTTP/1.1\r\nHo",
      408,
      "PUBLIC_API_REQUEST_TIMEOUT",
    ],
    [
      "HPE_INVALID_HEADER_TOKEN",
      "GET /public/v1/products HTTP/1.1\r\nBad Header: x",
      400,
      "PUBLIC_API_INVALID_HEADER",
    ],
  ])("%s on %j under /public/ is a %i in the error shape, and closes", (code, raw, status, errorCode) => {
    const r = parseAnswer(parserRefusal(code, Buffer.from(raw)));
    expect(r.statusLine).toMatch(new RegExp(`^HTTP/1\\.1 ${status} [A-Z]`));
    expect(r.headers.get("connection")).toBe("close");
    expect(r.headers.get("content-type")).toMatch(/^application\/json/);
    expect(r.headers.get("x-content-type-options")).toBe("nosniff");
    expect(Number(r.headers.get("content-length"))).toBe(Buffer.byteLength(r.body));
    expect(JSON.parse(r.body)).toEqual({
      statusCode: status,
      error: expect.any(String),
      message: expect.any(String),
      code: errorCode,
      requestId: r.headers.get("x-request-id"),
    });
  });

  it.each([
    ["HPE_HEADER_OVERFLOW", "GET /console?x=aaaa HTTP/1.1\r\n", 431],
    ["HPE_HEADER_OVERFLOW", "GET http://evil.test/docs HTTP/1.1\r\n", 431],
    ["HPE_INVALID_HEADER_TOKEN", "POST /api/auth/session HTTP/1.1\r\nBad Header: x", 400],
  ])("%s on %j elsewhere is a plain-text %i with the portal's security headers", (code, raw, status) => {
    const r = parseAnswer(parserRefusal(code, raw === undefined ? undefined : Buffer.from(raw, "latin1")));
    expect(r.statusLine).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(r.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(r.headers.get("connection")).toBe("close");
    for (const [name, value] of Object.entries(BASELINE_SECURITY_HEADERS))
      expect(r.headers.get(name.toLowerCase()), name).toBe(value);
  });

  // Node keeps an unfinished request line to itself (a timed-out request's), and a request that is not HTTP has none.
  it.each([
    ["ERR_HTTP_REQUEST_TIMEOUT", undefined, 408, "PUBLIC_API_REQUEST_TIMEOUT"],
    ["ERR_HTTP_REQUEST_TIMEOUT", "GE", 408, "PUBLIC_API_REQUEST_TIMEOUT"],
    ["HPE_HEADER_OVERFLOW", "aaaaaaaaaaaaaaaa", 431, "PUBLIC_API_HEADERS_TOO_LARGE"],
    ["HPE_INVALID_METHOD", "\x16\x03\x01 tls", 400, "PUBLIC_API_INVALID_HEADER"],
  ])(
    "%s on %j (no path known) is in the API's error shape with the portal's security headers too",
    (code, raw, status, errorCode) => {
      const r = parseAnswer(parserRefusal(code, raw === undefined ? undefined : Buffer.from(raw, "latin1")));
      expect(r.statusLine).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      expect(r.headers.get("connection")).toBe("close");
      expect(JSON.parse(r.body)).toMatchObject({ statusCode: status, code: errorCode });
      for (const [name, value] of Object.entries(BASELINE_SECURITY_HEADERS))
        expect(r.headers.get(name.toLowerCase()), name).toBe(value);
    },
  );
});

describe("connectRefusal: the answer to CONNECT, which node never hands to the request handler", () => {
  it("under /public/ a 405 in the error shape; an authority-form target a plain 400; elsewhere a plain 405", async () => {
    const api = parseAnswer(await connectRefusal("/public/v1/products", []));
    expect(api.statusLine).toBe("HTTP/1.1 405 Method Not Allowed");
    expect(api.headers.get("connection")).toBe("close");
    expect(api.headers.get("allow")).toBe("GET, HEAD");
    expect(JSON.parse(api.body)).toMatchObject({ statusCode: 405, code: "PUBLIC_API_METHOD_NOT_ALLOWED" });
    for (const [target, status] of [
      ["evil.test:443", "400 Bad Request"],
      ["/console", "405 Method Not Allowed"],
    ] as const) {
      const r = parseAnswer(await connectRefusal(target, []));
      expect(r.statusLine).toBe(`HTTP/1.1 ${status}`);
      expect(r.headers.get("content-type")).toMatch(/^text\/plain/);
      for (const [name, value] of Object.entries(BASELINE_SECURITY_HEADERS))
        expect(r.headers.get(name.toLowerCase()), name).toBe(value);
    }
  });
});

// Issue 21, row 15: what Next.js writes around an app route's answer, on a node:http server: its router headers
// first in Vary, the route's own, then its compression middleware's Accept-Encoding.
describe("dropRouterVary on a node:http server", () => {
  // The public package Next.js compiles its copy from.
  const compression = compressionMiddleware();
  const ROUTER = "rsc, next-router-state-tree, next-router-prefetch, next-router-segment-prefetch";

  async function served(vary: string[], drop: boolean): Promise<http.IncomingMessage> {
    const server = http.createServer((req, res) => {
      if (drop) dropRouterVary(res);
      compression(req as never, res as never, () => {});
      for (const v of vary) res.appendHeader("vary", v);
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ pad: "x".repeat(2000) }));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      return await new Promise((resolve, reject) => {
        const port = (server.address() as AddressInfo).port;
        http
          .get({ host: "127.0.0.1", port, path: "/", headers: { "accept-encoding": "gzip" } }, (res) => {
            res.resume();
            res.on("end", () => resolve(res));
          })
          .on("error", reject);
      });
    } finally {
      server.close();
    }
  }

  it("keeps the route's and the compression's names, drops Next.js' router headers", async () => {
    expect((await served([ROUTER, "Authorization"], false)).headers.vary).toBe(
      `${ROUTER}, Authorization, Accept-Encoding`,
    );
    const r = await served([ROUTER, "Authorization"], true);
    expect(r.headers.vary).toBe("Authorization, Accept-Encoding");
    expect(r.headers["content-encoding"]).toBe("gzip");
    expect((await served([`${ROUTER}, Next-Url`], true)).headers.vary).toBe("Accept-Encoding");
  });

  it("tells which requests it is for: under /public/ and /media/, not the portal; the API's, under /public/", () => {
    expect(passed("GET", "/public/v1/products").routerFree).toBe(true);
    expect(passed("GET", "/public/v2").api).toBe(true);
    expect(passed("GET", "/x/../media/acme/a.png").api).toBe(false);
    expect(passed("GET", "/x/../media/acme/a.png").routerFree).toBe(true);
    expect(passed("GET", "/docs").routerFree).toBe(false);
  });
});
