import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

// Lints an OpenAPI document with @redocly/cli (its server set to an https URL, as the rules want): whether it failed,
// and what it printed.
export function redoclyLint(doc: Record<string, unknown>): { failed: boolean; output: string } {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "openapi-")), "openapi.json");
  writeFileSync(file, JSON.stringify({ ...doc, servers: [{ url: "https://api.catalog.test" }] }));
  try {
    const output = execFileSync(
      path.resolve("node_modules/.bin/redocly"),
      ["lint", file, "--format=stylish"],
      {
        encoding: "utf8",
        stdio: "pipe",
      },
    );
    return { failed: false, output };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    return { failed: true, output: `${e.stdout ?? ""}${e.stderr ?? ""}` };
  }
}
