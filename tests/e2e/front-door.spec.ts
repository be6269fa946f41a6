// The production server (`npm start`: scripts/serve.mjs in front of Next.js), probed as an attacker would: raw
// paths and methods that Next.js alone answers with a 500, a redirect or an HTML page.
import { spawn, type ChildProcess } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { freePort } from "../support/ports";

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
  let server: ChildProcess | undefined;
  let proxied = 0;
  test.beforeAll(async () => {
    // A second production server on the same build, behind a "proxy" (TRUST_PROXY=true), so that the test can
    // present a client address other than loopback without leaving this machine.
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "pca-e2e-proxied-"));
    copyFileSync(
      path.join(process.env.PCA_E2E_DATA_DIR!, "demo-keys.json"),
      path.join(dataDir, "demo-keys.json"),
    );
    proxied = await freePort();
    server = spawn(process.execPath, ["scripts/serve.mjs"], {
      env: {
        ...process.env,
        PORT: String(proxied),
        DATA_DIR: dataDir,
        TRUST_PROXY: "true",
        NODE_ENV: "production",
        HOSTNAME: "127.0.0.1",
      },
      stdio: "ignore",
    });
    for (let i = 0; i < 120; i++) {
      if (
        await raw("GET", "/public/v1/openapi.json", {}, proxied).then(
          (r) => r.status === 200,
          () => false,
        )
      )
        return;
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error("second server did not start");
  });
  test.afterAll(() => {
    server?.kill("SIGTERM");
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
