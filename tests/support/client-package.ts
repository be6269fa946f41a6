// The TypeScript client (clients/typescript) as an integrator gets it: built with its tsconfig.build.json into a
// copy of the package's directory (the checkout's dist/ is left alone), packed with `npm pack` once per process,
// and the tarball installed offline (it has no dependencies) into a project of a test's, so that a plain `node`
// script there imports @public-catalog/client.
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const root = path.resolve(import.meta.dirname, "../..");
const packageDir = path.join(root, "clients/typescript");
const tsc = path.join(root, "node_modules/.bin/tsc");

let work: string | undefined;
let packed: Promise<string> | undefined;

// The commands' environment: npm kept to the temp dir (its cache; no registry is asked).
function envOf(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    npm_config_cache: path.join(work!, "npm-cache"),
    npm_config_update_notifier: "false",
    npm_config_fund: "false",
    npm_config_audit: "false",
  };
}

async function run(cmd: string, args: string[], cwd: string): Promise<void> {
  await promisify(execFile)(cmd, args, { cwd, env: envOf(), timeout: 120_000 });
}

// The package's tarball, built and packed on the first call (the later ones wait for that one).
export function typeScriptClientTarball(): Promise<string> {
  packed ??= (async () => {
    work = mkdtempSync(path.join(os.tmpdir(), "pca-client-package-"));
    process.once("exit", () => rmSync(work!, { recursive: true, force: true }));
    const pkg = path.join(work, "package");
    mkdirSync(pkg);
    for (const f of ["package.json", "README.md"]) cpSync(path.join(packageDir, f), path.join(pkg, f));
    await run(
      tsc,
      ["-p", path.join(packageDir, "tsconfig.build.json"), "--outDir", path.join(pkg, "dist")],
      root,
    );
    await run("npm", ["pack", "--pack-destination", work], pkg);
    const tarball = readdirSync(work).find((f) => f.endsWith(".tgz"));
    if (!tarball) throw new Error(`npm pack wrote no tarball in ${work}`);
    return path.join(work, tarball);
  })();
  return packed;
}

// Installs @public-catalog/client into `dir` (a package.json is written there first when it has none), as
// `npm install <tarball>` does it for an integrator, offline.
export async function installTypeScriptClient(dir: string): Promise<void> {
  const tarball = await typeScriptClientTarball();
  if (!existsSync(path.join(dir, "package.json")))
    writeFileSync(
      path.join(dir, "package.json"),
      JSON.stringify({
        name: path.basename(dir).toLowerCase(),
        version: "1.0.0",
        private: true,
        type: "module",
      }),
    );
  await run("npm", ["install", "--offline", "--no-audit", "--no-fund", tarball], dir);
}
