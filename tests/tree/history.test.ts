// The product's code says what and why in the present: the history of a choice (the issue that asked for it, the
// benchmark run that measured it, a numbered section of a design note) lives in git and in bench/README.md, which a
// comment links instead. This test finds what a reader of the repository could not follow.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
// The product's code: what the layers app/, scripts/ → lib/ → db/ and the components hold.
const SOURCE_DIRS = ["app", "lib", "components", "db", "scripts"];
// Code, SQL migrations and shell scripts.
const SOURCE_FILE = /\.(ts|tsx|mts|mjs|js|sql|sh)$/;

// What points at history, each with the reason it is refused.
const RULES: { name: string; pattern: RegExp }[] = [
  // "issue 12", "issues 3", "issue #12".
  { name: "an issue reference", pattern: /\bissues? #?\d{1,3}\b/i },
  // "run 17", "bench run 3", "runs 16": not a count of repetitions ("runs 3 times", "run 2 workers").
  {
    name: "a benchmark run reference",
    pattern:
      /\bbench runs? \d|\bruns? \d{1,3}\b(?!\s*(times|requests|rounds|seconds|minutes|workers|walkers|servers|processes|connections|ms\b|s\b|x\b|×))/i,
  },
  // "DESIGN §5", "DESIGN.md §3": docs/design.md does not number its sections.
  { name: "a numbered design section", pattern: /\bDESIGN(\.md)? §/i },
];

// Every source file under the product's folders, as a path relative to the root.
function sourceFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(rel);
      else if (SOURCE_FILE.test(entry.name)) out.push(rel);
    }
  };
  for (const dir of SOURCE_DIRS) walk(dir);
  return out.sort();
}

// Each line of the files that matches a rule, as "file:line: rule: text".
function findings(files: string[]): string[] {
  return files.flatMap((file) =>
    readFileSync(path.join(ROOT, file), "utf8")
      .split("\n")
      .flatMap((line, i) =>
        RULES.filter(({ pattern }) => pattern.test(line)).map(
          ({ name }) => `${file}:${i + 1}: ${name}: ${line.trim()}`,
        ),
      ),
  );
}

const files = sourceFiles();

describe("history out of the code", () => {
  it("finds the product's files, migrations and shell scripts included", () => {
    expect(files).toContain(path.join("lib", "config.ts"));
    expect(files.some((f) => f.endsWith(".sql"))).toBe(true);
    expect(files.some((f) => f.endsWith(".sh"))).toBe(true);
  });

  it("tells a reference to history from a count", () => {
    const matches = (text: string) => RULES.some(({ pattern }) => pattern.test(text));
    for (const text of [
      "(issue 27, item 7)",
      "issues 14–16",
      "issue #12",
      "bench run 24",
      "run 17",
      "DESIGN §5",
    ])
      expect(matches(text), text).toBe(true);
    for (const text of ["runs 3 times", "run 2 workers", "run 20 requests", "runs 4 servers", "DESIGN.md"])
      expect(matches(text), text).toBe(false);
  });

  it("has no issue, benchmark run or numbered design section reference in app, lib, components, db, scripts", () => {
    expect(findings(files)).toEqual([]);
  });
});
