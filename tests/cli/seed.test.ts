// `npm run db:seed` as a real child process: a bad command line is exit code 2 with the usage, and the
// configuration comes from the `.env` file of the working folder (as for the other scripts), the environment winning.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, ROOT, type RunResult } from "./run";

function run(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: cleanEnv(env) });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

// The seed script run from another working folder (tsx told where the project's tsconfig is, for its `@/` paths).
function seedFrom(cwd: string, args: string[], env: Record<string, string> = {}): Promise<RunResult> {
  const tsx = path.join(ROOT, "node_modules", ".bin", "tsx");
  const script = path.join(ROOT, "scripts", "seed.ts");
  return run(tsx, ["--tsconfig", path.join(ROOT, "tsconfig.json"), script, ...args], cwd, env);
}

let cwd: string;

beforeAll(() => {
  cwd = mkdtempSync(path.join(tmpdir(), "cli-seed-"));
  writeFileSync(path.join(cwd, ".env"), "DATA_DIR=data-from-env\n");
});

afterAll(() => {
  rmSync(cwd, { recursive: true, force: true });
});

describe("npm run db:seed", () => {
  it("exits 2 with the usage on an unknown option", async () => {
    const r = await run("npm", ["run", "db:seed", "--", "--bogus"], ROOT);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("db:seed: Unknown option '--bogus'");
    expect(r.stderr).toContain("\n\nUsage:\n  npm run db:seed ");
    expect(r.stderr).toContain("An organization that already has products is never seeded again.\n");
  });

  it("prints the usage on stdout with --help, exit code 0", async () => {
    const r = await seedFrom(cwd, ["--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage:\n {2}npm run db:seed /);
    expect(r.stderr).toBe("");
  });

  it("seeds the DATA_DIR of the working folder's .env", async () => {
    const r = await seedFrom(cwd, ["--org", "envtest", "--products", "3"]);
    expect(r.stderr).toContain(
      `Seeding "envtest" (3 products) into PGlite in ${path.join(cwd, "data-from-env", "pglite")}\n`,
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/envtest: channels \d+, .*products 3,/);
    expect(existsSync(path.join(cwd, "data-from-env", "pglite"))).toBe(true);
    expect(existsSync(path.join(cwd, ".data"))).toBe(false);
  });

  it("lets the environment win over .env", async () => {
    // A folder whose server.pid names a live process (this one): the seed refuses before opening anything.
    const busy = path.join(cwd, "busy");
    mkdirSync(busy);
    writeFileSync(path.join(busy, "server.pid"), `${process.pid}\n`);
    const r = await seedFrom(cwd, ["--org", "envtest", "--products", "3"], { DATA_DIR: busy });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `The embedded database in ${busy} is in use by the server (pid ${process.pid}).\n` +
        "PGlite cannot be opened by two processes: stop the server first, then run npm run db:seed again.\n",
    );
  });
});
