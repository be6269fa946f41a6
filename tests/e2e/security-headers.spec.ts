// Issue 27, item 7: the security headers on every kind of answer of the production server (`npm start`, the
// webServer). The walk covers every route file under app/ (pages and route handlers, each dynamic segment given a
// value; a new route file without one fails the walk), every operation of the OpenAPI document with each of its
// methods, the answers of the server's own (the front door's, a request node's parser refused), static assets,
// media files, and the kinds of answer each gives: 200, 204, 304, 3xx, 400, 401, 403, 404, 405, 413, 431.
// Outside /public/ every answer carries the baseline list (lib/portal/csp.ts BASELINE_SECURITY_HEADERS: a CSP with
// frame-ancestors 'none', nosniff, X-Frame-Options, Referrer-Policy; pages the proxy's nonce CSP instead of the
// baseline one); under /public/ the API's (nosniff, a request id). Nowhere an X-Powered-By.
// 429 and 503 answers are walked elsewhere (tests/e2e/client-address.spec.ts, database-down.spec.ts), on servers
// of their own: flooding this one would limit the other specs.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect, test, type APIRequestContext, type APIResponse } from "@playwright/test";
import { BASELINE_SECURITY_HEADERS } from "@/lib/portal/csp";
import { rawExchange } from "./support/raw-socket";
import { signInRequest } from "./support/sign-in";

const port = Number(process.env.PCA_E2E_PORT);
const dataDir = () => process.env.PCA_E2E_DATA_DIR!;
const acmeKey = () =>
  (
    JSON.parse(readFileSync(path.join(dataDir(), "demo-keys.json"), "utf8")) as {
      keys: { org: string; key: string }[];
    }
  ).keys.find((k) => k.org === "acme")!.key;

// Every route file under app/ as a path pattern ("/console/[org]/keys"), pages and handlers.
function routeFiles(): { pattern: string; handler: boolean }[] {
  const out: { pattern: string; handler: boolean }[] = [];
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        // Route groups "(x)" add no segment.
        const segment = /^\(.*\)$/.test(entry.name) ? "" : `/${entry.name}`;
        walk(path.join(dir, entry.name), prefix + segment);
      } else if (/^page\.tsx?$/.test(entry.name)) out.push({ pattern: prefix || "/", handler: false });
      else if (/^route\.tsx?$/.test(entry.name)) out.push({ pattern: prefix || "/", handler: true });
    }
  };
  walk(path.resolve("app"), "");
  return out;
}

// A value for each dynamic segment of a route pattern, by name: real ones where the demo has them, else a value
// that reaches the route and gets its own not-found answer.
function segmentValues(ids: { product: string; mediaFile: string; docsSlug: string; referenceSlug: string }) {
  return {
    org: "acme",
    auth: "session",
    slug: "", // by the route's folder, below
    id: "nope",
    token: "nope",
    delivery: "nope",
    resource: "products",
    file: ids.mediaFile,
    path: "nope",
  } as Record<string, string>;
}

// The concrete path of a route pattern.
function concrete(
  pattern: string,
  values: Record<string, string>,
  ids: { product: string; docsSlug: string; referenceSlug: string },
): string {
  return pattern.replace(/\/\[\[?(?:\.\.\.)?(\w+)\]?\]/g, (_, name: string) => {
    if (name === "slug") return `/${pattern.startsWith("/docs") ? ids.docsSlug : ids.referenceSlug}`;
    if (name === "id" && pattern.startsWith("/public/v1/products")) return `/${ids.product}`;
    if (!(name in values)) throw new Error(`no value for the segment [${name}] of ${pattern}: add one`);
    return `/${values[name]}`;
  });
}

interface Seen {
  label: string;
  status: number;
  headers: Record<string, string>;
}

// The header checks of one answer, by side: the API's under /public/, the baseline everywhere else.
function checkHeaders(seen: Seen, apiSide: boolean): string[] {
  const h = seen.headers;
  const problems: string[] = [];
  const want = (cond: boolean, what: string) => {
    if (!cond) problems.push(`${seen.label} → ${seen.status}: ${what}`);
  };
  want(h["x-powered-by"] === undefined, "X-Powered-By present");
  want(h["x-content-type-options"] === "nosniff", `X-Content-Type-Options ${h["x-content-type-options"]}`);
  if (apiSide) {
    want(/^[0-9a-f-]{36}$/.test(h["x-request-id"] ?? ""), "no X-Request-Id");
    want(h.location === undefined, `a redirect to ${h.location}`);
    return problems;
  }
  want(/frame-ancestors 'none'/.test(h["content-security-policy"] ?? ""), "no CSP frame-ancestors 'none'");
  want(/object-src 'none'/.test(h["content-security-policy"] ?? ""), "no CSP object-src 'none'");
  want(h["x-frame-options"] === BASELINE_SECURITY_HEADERS["X-Frame-Options"], "no X-Frame-Options DENY");
  want(h["referrer-policy"] === BASELINE_SECURITY_HEADERS["Referrer-Policy"], "no Referrer-Policy");
  if ((h["content-type"] ?? "").startsWith("text/html"))
    want(
      /script-src 'self' 'nonce-/.test(h["content-security-policy"] ?? ""),
      "an HTML page without its nonce CSP",
    );
  return problems;
}

function isSeen(r: APIResponse | Seen): r is Seen {
  return typeof r.status === "number";
}

function seenOf(label: string, r: APIResponse): Seen {
  return { label, status: r.status(), headers: r.headers() };
}

// A GET with the path sent as written (Playwright's client normalises it).
async function rawGet(p: string): Promise<Seen> {
  const r = await rawExchange(port, `GET ${p} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
  return { label: `GET ${p}`, status: r.status, headers: r.headers };
}

test.describe.configure({ mode: "serial" });

test("every route, operation and kind of answer carries the security headers of its side", async ({
  request,
  playwright,
}) => {
  test.setTimeout(180_000);
  const key = acmeKey();
  const auth = { authorization: `Bearer ${key}` };
  const product = (
    (await (await request.get("/public/v1/products?perPage=1", { headers: auth })).json()) as {
      data: { id: string }[];
    }
  ).data[0]!.id;
  const mediaUrl = (
    (await (await request.get("/public/v1/media?perPage=1", { headers: auth })).json()) as {
      data: { mediaUrl: string }[];
    }
  ).data[0]!.mediaUrl;
  const mediaPath = new URL(mediaUrl).pathname;
  const docsHtml = await (await request.get("/docs")).text();
  const referenceHtml = await (await request.get("/reference")).text();
  const ids = {
    product,
    mediaFile: mediaPath.replace(/^\/media\/acme\//, ""),
    docsSlug: /href="\/docs\/([^"/?#]+)"/.exec(docsHtml)![1]!,
    referenceSlug: /href="\/reference\/([^"/?#]+)"/.exec(referenceHtml)![1]!,
  };
  const values = segmentValues(ids);
  const seen: { seen: Seen; api: boolean }[] = [];
  const kinds = new Set<number>();
  const record = (label: string, r: APIResponse | Seen, api: boolean) => {
    const s = isSeen(r) ? r : seenOf(label, r);
    kinds.add(s.status);
    seen.push({ seen: s, api });
  };

  // Signed out and signed in (the console's pages answer both ways: a redirect to sign in, the page).
  const signedIn: APIRequestContext = await playwright.request.newContext({
    baseURL: `http://127.0.0.1:${port}`,
  });
  await signInRequest(signedIn, "owner@acme.example", dataDir());
  const routes = routeFiles();
  expect(routes.length).toBeGreaterThan(40);
  for (const { pattern, handler } of routes) {
    const url = concrete(pattern, values, ids);
    const api = url.startsWith("/public/");
    const headers = api ? auth : {};
    for (const [who, ctx] of [
      ["anonymous", request],
      ["signed in", signedIn],
    ] as const) {
      record(`GET ${url} (${who}, ${pattern})`, await ctx.get(url, { headers, maxRedirects: 0 }), api);
      if (handler && !api)
        record(
          `POST ${url} (${who}, ${pattern})`,
          await ctx.post(url, {
            headers: { ...headers, "content-type": "application/json" },
            data: "{}",
            maxRedirects: 0,
          }),
          false,
        );
    }
  }

  // Every operation of the OpenAPI document, with each of its methods, and one it does not allow.
  const doc = (await (await request.get("/public/v1/openapi.json")).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  for (const [p, ops] of Object.entries(doc.paths)) {
    const url = p.replace(/\{[^}]+\}/g, p.startsWith("/public/v1/products") ? product : "nope");
    for (const method of [...Object.keys(ops).filter((m) => m !== "parameters"), "delete"]) {
      const r = await request.fetch(url, { method: method.toUpperCase(), headers: auth, maxRedirects: 0 });
      record(`${method.toUpperCase()} ${url}`, r, true);
    }
    record(`GET ${url} no key`, await request.get(url, { maxRedirects: 0 }), true);
  }
  const first = await request.get("/public/v1/products?perPage=1", { headers: auth });
  record(
    "GET products, If-None-Match",
    await request.get("/public/v1/products?perPage=1", {
      headers: { ...auth, "if-none-match": first.headers().etag ?? '"x"' },
    }),
    true,
  );
  record(
    "OPTIONS preflight",
    await request.fetch("/public/v1/products", {
      method: "OPTIONS",
      headers: { origin: "https://x.test", "access-control-request-method": "GET" },
    }),
    true,
  );
  record(
    "POST 70 KB to the sign-in",
    await request.post("/api/auth/callback/credentials", {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      data: `x=${"a".repeat(70_000)}`,
    }),
    false,
  );
  for (const p of ["/docs/", "//docs", "/docs\\x"]) record(`GET ${p}`, await rawGet(p), false);
  record("GET bad query", await request.get("/public/v1/products?perPage=0", { headers: auth }), true);

  // Static assets, media files, the feeds, not-found pages, the answers of the server's own.
  const home = await (await request.get("/")).text();
  const assets = [...home.matchAll(/(?:src|href)="(\/_next\/static\/[^"]+\.(?:js|css|woff2))"/g)].map(
    (m) => m[1]!,
  );
  expect(assets.length).toBeGreaterThan(0);
  for (const a of [...new Set(assets)].slice(0, 6)) record(`GET ${a}`, await request.get(a), false);
  for (const p of [
    "/favicon.ico",
    "/_next/static/nope.js",
    mediaPath,
    `/media/acme/thumbs/${ids.mediaFile}`,
    "/media/acme/nope.png",
    "/changelog/rss.xml",
    "/changelog/atom.xml",
    "/nope",
    "/docs/nope",
    "/console/nope/keys",
    "/api/auth/csrf",
    "/api/auth/providers",
    "/api/auth/error",
    "/api/auth/nope",
    "/api/console/nope",
  ])
    record(`GET ${p}`, await request.get(p, { maxRedirects: 0 }), false);
  record(`GET ${mediaPath} Range`, await request.get(mediaPath, { headers: { range: "bytes=0-9" } }), false);
  record("TRACE /docs", await request.fetch("/docs", { method: "TRACE" }), false);
  record("TRACE /public/v1/products", await request.fetch("/public/v1/products", { method: "TRACE" }), true);
  for (const [label, bytes, api] of [
    ["OPTIONS *", "OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", false],
    ["GET *", "GET * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", false],
    ["CONNECT host", "CONNECT evil.test:443 HTTP/1.1\r\nHost: x\r\n\r\n", false],
    ["431 /docs", `GET /docs?x=${"a".repeat(17_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, false],
    ["431 /public", `GET /public/v1/products?x=${"a".repeat(17_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, true],
    [
      "two Authorization",
      `GET /public/v1/products HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer ${key}\r\nAuthorization: Bearer ${key}\r\n\r\n`,
      true,
    ],
  ] as const) {
    const r = await rawExchange(port, bytes);
    record(label, { label, status: r.status, headers: r.headers }, api);
  }

  await signedIn.dispose();
  const problems = seen.flatMap(({ seen: s, api }) => checkHeaders(s, api));
  expect(problems).toEqual([]);
  // The kinds of answer walked, so that a walk that silently lost one shows.
  for (const status of [200, 204, 206, 304, 307, 308, 400, 401, 404, 405, 413, 431])
    expect([...kinds]).toContain(status);
});
