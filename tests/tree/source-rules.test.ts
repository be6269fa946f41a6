// Rules of the source tree that no compiler checks: one place holds the process state on globalThis, types say what
// values are (no double cast), and a file does one job (a size past which it does several).
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
// The product's code: what the layers app/, scripts/ → lib/ → db/ and the components hold.
const SOURCE_DIRS = ["app", "lib", "components", "db", "scripts"];
const SOURCE_FILE = /\.(ts|tsx|mts|mjs|js)$/;
// Lines a source file may have: past it, it does more than one job and is split by job.
const MAX_FILE_LINES = 340;
// Modules that are data, not code, kept whole and typed: the demo seed's word lists (as JSON they would lose the
// types that check them, and be no shorter).
const DATA_MODULES = new Set([path.join("db", "seed", "vocabulary.ts")]);

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

// The file's text without its comments (line and block, their lines kept), so that a comment naming a rule passes.
function code(file: string): string {
  return readFileSync(path.join(ROOT, file), "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, (block) => block.replace(/[^\n]/g, ""))
    .replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

const files = sourceFiles();

describe("the source tree", () => {
  it("finds the product's files", () => {
    expect(files).toContain(path.join("lib", "runtime.ts"));
    expect(files.length).toBeGreaterThan(100);
  });

  it("puts the process state on globalThis in one place only (lib/runtime.ts)", () => {
    const users = files.filter((f) => /\bglobalThis\b/.test(code(f)));
    expect(users).toEqual([path.join("lib", "runtime.ts")]);
  });

  it("has no double cast (`as unknown as`): types say what the values are", () => {
    const casts = files.flatMap((f) =>
      code(f)
        .split("\n")
        .flatMap((line, i) => (/\bas unknown as\b/.test(line) ? [`${f}:${i + 1}`] : [])),
    );
    expect(casts).toEqual([]);
  });

  it(`keeps every file under ${MAX_FILE_LINES} lines`, () => {
    const long = files
      .filter((f) => !DATA_MODULES.has(f))
      .map((f) => ({ f, lines: (readFileSync(path.join(ROOT, f), "utf8").match(/\n/g) ?? []).length }))
      .filter(({ lines }) => lines > MAX_FILE_LINES)
      .map(({ f, lines }) => `${f} (${lines})`);
    expect(long).toEqual([]);
  });
});
