import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";

// A free TCP port, found once by the runner and inherited by its workers through the environment.
function freePort(): string {
  return execFileSync(process.execPath, [
    "-e",
    "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})",
  ])
    .toString()
    .trim();
}

process.env.PCA_E2E_PORT ??= freePort();
process.env.PCA_E2E_DATA_DIR ??= mkdtempSync(path.join(os.tmpdir(), "pca-e2e-"));
const port = process.env.PCA_E2E_PORT;
const baseURL = `http://127.0.0.1:${port}`;
// A second server of the same build with every preview feature on (PUBLIC_API_PREVIEW=all), its own data directory
// and demo: the `preview` project's pages (DESIGN §5: on, each feature appears everywhere at once).
process.env.PCA_E2E_PREVIEW_PORT ??= freePort();
process.env.PCA_E2E_PREVIEW_DATA_DIR ??= mkdtempSync(path.join(os.tmpdir(), "pca-e2e-preview-"));
const previewPort = process.env.PCA_E2E_PREVIEW_PORT;
const previewURL = `http://127.0.0.1:${previewPort}`;
// Under `npm test` (PCA_SERVER_LOG_DIR, scripts/test.ts), each webServer's output is also copied into the collected
// server logs, which its last step scans for secrets; Playwright still shows it as before.
const logDir = process.env.PCA_SERVER_LOG_DIR;
const npmStart = (name: string) =>
  logDir ? `npm start 2>&1 | tee -a ${JSON.stringify(path.join(logDir, `${name}.log`))}` : "npm start";
// The specs that check a preview feature in whichever state their server runs (off on the default server, on on the
// preview one), and those that check it on only.
const PREVIEW_SPECS = /write-preview\.spec\.ts|preview-on\.spec\.ts|webhooks\.spec\.ts/;

// Playwright: the portal in Debian's Chromium against the real app (`npm start`: build if needed, migrate, seed the demo).
export default defineConfig({
  testDir: "tests/e2e",
  outputDir: "test-results",
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: true,
  workers: 2,
  retries: process.env.CI ? 1 : 0,
  reporter: process.env.CI ? [["list"], ["html", { open: "never" }]] : "list",
  use: {
    baseURL,
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    },
  },
  projects: [
    {
      name: "chromium",
      testIgnore:
        /client-address\.spec\.ts|sign-in-address\.spec\.ts|sessions\.spec\.ts|preview-on\.spec\.ts|webhooks\.spec\.ts/,
      use: { ...devices["Desktop Chrome"], channel: undefined },
    },
    // The preview server: the specs of preview features, with every feature on.
    {
      name: "preview",
      testMatch: PREVIEW_SPECS,
      use: { ...devices["Desktop Chrome"], channel: undefined, baseURL: previewURL },
    },
    // "Sign out everywhere", which ends every session of a demo account: after the portal suite, whose tests share
    // the demo accounts.
    {
      name: "sessions",
      testMatch: /sign-in-address\.spec\.ts|sessions\.spec\.ts/,
      dependencies: ["chromium"],
      use: { ...devices["Desktop Chrome"], channel: undefined },
    },
    // Floods failed look-ups from this address: runs after the portal suite so its 401 checks are not turned into 429s.
    { name: "server", testMatch: /client-address\.spec\.ts/, dependencies: ["chromium"] },
  ],
  // Started one after the other (the first builds when needed; the second reuses its build).
  webServer: [
    {
      command: npmStart("e2e-webserver"),
      url: `${baseURL}/public/v1/openapi.json`,
      timeout: 420_000,
      reuseExistingServer: !process.env.CI,
      stdout: "pipe",
      stderr: "pipe",
      env: {
        PORT: port,
        DATA_DIR: process.env.PCA_E2E_DATA_DIR,
        PUBLIC_BASE_URL: baseURL,
        NODE_ENV: "production",
        // Usage and the request log written every half second, so that usage.spec.ts finds a request at once.
        USAGE_FLUSH_MS: "500",
      },
    },
    {
      command: npmStart("e2e-webserver-preview"),
      url: `${previewURL}/public/v1/openapi.json`,
      timeout: 420_000,
      reuseExistingServer: !process.env.CI,
      stdout: "pipe",
      stderr: "pipe",
      env: {
        PORT: previewPort,
        DATA_DIR: process.env.PCA_E2E_PREVIEW_DATA_DIR,
        PUBLIC_BASE_URL: previewURL,
        PUBLIC_API_PREVIEW: "all",
        // Webhooks' endpoints may be the spec's receivers on loopback, over http.
        WEBHOOKS_ALLOW_PRIVATE_URLS: "true",
        NODE_ENV: "production",
      },
    },
  ],
});
