// The portal of a server whose Postgres cannot be reached: a second production server (scripts/serve.mjs, on the
// build the webServer made) with DATABASE_URL on a closed port. The changelog and its feeds answer 503 with
// Retry-After (a readable page, the API's error shape); the pages that need no database still answer 200.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { generateApiKey } from "@/lib/keys/format";
import { freePort } from "../support/ports";
import { startSecondServer, type SecondServer } from "./support/second-server";

let server: SecondServer | undefined;
let dataDir: string;
let base = "";

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(90_000);
  const closed = await freePort();
  dataDir = mkdtempSync(path.join(os.tmpdir(), "pca-e2e-dbdown-"));
  server = await startSecondServer({
    label: "database-down",
    env: { DATA_DIR: dataDir, DATABASE_URL: `postgres://postgres@127.0.0.1:${closed}/postgres` },
  });
  base = server.base;
});

test.afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test("/changelog is a readable 503 page with Retry-After; its feeds are the API's 503 body", async ({
  request,
}) => {
  const page = await request.get(`${base}/changelog`);
  expect(page.status()).toBe(503);
  expect(page.headers()["content-type"]).toMatch(/^text\/html/);
  expect(Number(page.headers()["retry-after"])).toBeGreaterThanOrEqual(1);
  expect(page.headers()["content-security-policy"]).toContain("default-src 'self'");
  expect(await page.text()).toContain("This page is temporarily unavailable");

  for (const feed of ["/changelog/rss.xml", "/changelog/atom.xml"]) {
    const res = await request.get(`${base}${feed}`);
    expect(res.status(), feed).toBe(503);
    expect(Number(res.headers()["retry-after"]), feed).toBeGreaterThanOrEqual(1);
    const body = await res.json();
    expect(body, feed).toEqual({
      statusCode: 503,
      message: "Service momentanément indisponible, réessayez plus tard.",
      error: "Service Unavailable",
      code: "PUBLIC_API_UNAVAILABLE",
      requestId: res.headers()["x-request-id"],
    });
  }
});

// Issue 27, item 7: a 503 carries the security headers of its side, like any other answer.
test("every 503 carries the security headers: the portal's on the page and the feeds, the API's under /public/", async ({
  request,
}) => {
  for (const url of ["/changelog", "/changelog/rss.xml", "/changelog/atom.xml"]) {
    const h = (await request.get(`${base}${url}`)).headers();
    expect(h["x-content-type-options"], url).toBe("nosniff");
    expect(h["content-security-policy"], url).toMatch(/frame-ancestors 'none'/);
    expect(h["x-frame-options"], url).toBe("DENY");
    expect(h["referrer-policy"], url).toBe("strict-origin-when-cross-origin");
  }
  const api = await request.get(`${base}/public/v1/products`, {
    // A well-formed key (its checksum right): only the database can tell it is unknown.
    headers: { authorization: `Bearer ${generateApiKey()}` },
  });
  expect(api.status()).toBe(503);
  expect(api.headers()["x-content-type-options"]).toBe("nosniff");
  expect(api.headers()["x-request-id"]).toBe((await api.json()).requestId);
});

test("the pages that need no database still answer 200", async ({ request }) => {
  for (const url of [
    "/",
    "/docs",
    "/docs/getting-started",
    "/reference",
    "/reference/products",
    "/search?q=page",
  ]) {
    const res = await request.get(`${base}${url}`);
    expect(res.status(), url).toBe(200);
  }
});

test("in a browser: the 503 page shows under the CSP, also when reached from the header's link", async ({
  page,
}) => {
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" && !/status of 503/.test(m.text())) problems.push(m.text());
  });
  page.on("pageerror", (e) => problems.push(e.message));
  page.on("response", (r) => {
    const url = r.url().replace(base, "");
    if (r.status() >= 400 && !(r.status() === 503 && url.startsWith("/changelog"))) {
      problems.push(`${r.status()} ${url}`);
    }
  });

  const direct = await page.goto(`${base}/changelog`);
  expect(direct!.status()).toBe(503);
  await expect(page.getByRole("heading", { name: "This page is temporarily unavailable" })).toBeVisible();
  await expect(page.getByRole("link", { name: "API reference" })).toHaveAttribute("href", "/reference");

  // A client-side navigation: the router's request for /changelog gets the 503 page, not React's payload, and
  // loads it as a document.
  await page.goto(`${base}/reference/products`);
  await expect(page.getByRole("heading", { name: "Try it" })).toBeVisible();
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Changelog" }).click();
  await expect(page.getByRole("heading", { name: "This page is temporarily unavailable" })).toBeVisible();
  expect(page.url()).toBe(`${base}/changelog`);
  expect(problems).toEqual([]);
});
