import { appendFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL(".", import.meta.url));
// Under `npm test` (PCA_SERVER_LOG_DIR, scripts/test.ts): what the suites' in-process servers log (the API's and
// the console's handlers run inside the test processes) is also written to the collected server logs, which its
// last step scans for secrets.
const logDir = process.env.PCA_SERVER_LOG_DIR;
if (logDir) mkdirSync(logDir, { recursive: true });

// Vitest: unit and integration suites under tests/ (browser suites are Playwright's, under tests/e2e).
export default defineConfig({
  resolve: {
    alias: [
      { find: /^@\//, replacement: `${root}` },
      { find: /^server-only$/, replacement: `${root}tests/support/server-only.ts` },
    ],
  },
  test: {
    include: ["tests/**/*.test.ts"],
    exclude: ["tests/e2e/**", "node_modules/**"],
    environment: "node",
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: 2,
    onConsoleLog: logDir
      ? (log, type, entity) => {
          const moduleId = !entity ? "" : entity.type === "module" ? entity.moduleId : entity.module.moduleId;
          const where = moduleId && path.relative(root, moduleId);
          appendFileSync(path.join(logDir, "vitest-console.log"), `[${type} ${where}]\n${log}\n`);
          return undefined;
        }
      : undefined,
  },
});
