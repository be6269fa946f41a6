// What `npm test` prints last of the suites' reports (scripts/lib/test-report.ts): the counts, and each test that
// failed or passed only on a retry, with where it is and its error's first line. The reports are real: a tiny suite
// of each runner, run here in a folder of its own, with a test that passes, one that fails and (Playwright) one that
// fails once and passes on its retry.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { firstLine, formatFailures, readReports } from "@/scripts/lib/test-report";

const root = path.resolve(import.meta.dirname, "../..");
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "pca-test-report-"));
  symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"), "dir");
  writeFileSync(
    path.join(dir, "sample.test.mjs"),
    `import { describe, expect, it } from "vitest";
describe("a group", () => {
  it("passes", () => expect(1).toBe(1));
  it("fails", () => expect(2).toBe(3));
});
`,
  );
  writeFileSync(path.join(dir, "broken.test.mjs"), `import "./missing-module.mjs";\n`);
  writeFileSync(
    path.join(dir, "vitest.config.mjs"),
    `export default { test: { include: ["*.test.mjs"] } };\n`,
  );
  writeFileSync(
    path.join(dir, "sample.spec.mjs"),
    `import { expect, test } from "@playwright/test";
test.describe("a group", () => {
  test("passes", () => expect(1).toBe(1));
  test("fails", () => expect(2, "two is not three").toBe(3));
  test("fails once", ({}, info) => expect(info.retry).toBe(1));
});
`,
  );
  writeFileSync(
    path.join(dir, "playwright.config.mjs"),
    `export default { testDir: ".", testMatch: "*.spec.mjs", retries: 1, workers: 1, projects: [{ name: "p" }] };\n`,
  );
  const env = { ...process.env, CI: "", FORCE_COLOR: "1" };
  spawnSync(
    path.join(root, "node_modules/.bin/vitest"),
    ["run", "--root", dir, "--reporter=json", `--outputFile.json=${path.join(dir, "vitest.json")}`],
    { cwd: dir, env, encoding: "utf8" },
  );
  spawnSync(
    path.join(root, "node_modules/.bin/playwright"),
    ["test", "-c", "playwright.config.mjs", "--reporter=json"],
    {
      cwd: dir,
      env: { ...env, PLAYWRIGHT_JSON_OUTPUT_NAME: path.join(dir, "playwright.json") },
      encoding: "utf8",
    },
  );
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the suites' reports, read for npm test's summary", () => {
  it("counts a broken file as one failure and a test that passed on retry as a failure", () => {
    const { counts } = readReports(path.join(dir, "vitest.json"), path.join(dir, "playwright.json"), dir);
    // vitest: 1 passed, 1 failed + the broken file; playwright: 1 passed, 1 failed, 1 flaky.
    expect(counts).toEqual({ passed: 2, failed: 4, skipped: 0 });
  });

  it("names each failed and flaky test, its file (and line) and its error's first line, without colour codes", () => {
    const { failures } = readReports(path.join(dir, "vitest.json"), path.join(dir, "playwright.json"), dir);
    expect(failures).toHaveLength(4);
    expect(failures).toContainEqual({
      suite: "unit",
      status: "failed",
      where: "sample.test.mjs",
      title: "a group fails",
      error: expect.stringContaining("expected 2 to be 3"),
    });
    expect(failures).toContainEqual(
      expect.objectContaining({ suite: "unit", where: "broken.test.mjs", title: "(the file itself)" }),
    );
    expect(failures).toContainEqual({
      suite: "e2e",
      status: "failed",
      where: "sample.spec.mjs:4",
      title: "[p] › a group › fails",
      error: expect.stringContaining("two is not three"),
    });
    expect(failures).toContainEqual(
      expect.objectContaining({
        status: "flaky",
        where: "sample.spec.mjs:5",
        title: "[p] › a group › fails once",
      }),
    );
    for (const f of failures) expect(f.error).not.toMatch(/\x1b/);
    const lines = formatFailures(failures);
    expect(lines).toContain("  ✘ failed [e2e] sample.spec.mjs:4 › [p] › a group › fails");
    expect(lines).toContain(
      "  ~ flaky (passed on retry) [e2e] sample.spec.mjs:5 › [p] › a group › fails once",
    );
  });

  it("reads no report as nothing (a step that did not run)", () => {
    expect(readReports(path.join(dir, "none.json"), path.join(dir, "none2.json"), dir)).toEqual({
      counts: { passed: 0, failed: 0, skipped: 0 },
      failures: [],
    });
  });

  it("keeps an error's first non-empty line, cut at 300 characters", () => {
    expect(firstLine("\n\n  \x1b[31mError: boom\x1b[39m\n  at x")).toBe("Error: boom");
    expect(firstLine("x".repeat(400))).toHaveLength(300);
    expect(firstLine(undefined)).toBe("");
  });
});
