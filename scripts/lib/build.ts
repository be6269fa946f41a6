import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { build, type Plugin } from "esbuild";

// The modules of our own that scripts/serve.mjs imports (the front door, the public API's router and its host),
// compiled once at build time next to Next.js' output (plain ESM for node, npm packages left as imports): no
// TypeScript is transpiled when the server starts. Next.js compiles its own copy of the same sources for the route
// files and the console; the state both use lives in the runtime on globalThis (lib/runtime.ts), one per process.
export const SERVER_MODULES = [
  { entry: "lib/server/bundle-entry.ts", out: ".next/server-bundle/server.mjs" },
  // The webhooks' delivery worker, a process of its own (npm start forks it; `npm run webhooks:worker`).
  { entry: "lib/server/webhooks-worker.ts", out: ".next/server-bundle/webhooks-worker.mjs" },
] as const;

// `import "server-only"` (a guard against client bundles, which throws outside React's server condition) becomes
// nothing: this bundle runs on the server only.
const serverOnly: Plugin = {
  name: "server-only",
  setup(b) {
    b.onResolve({ filter: /^server-only$/ }, () => ({ path: "server-only", namespace: "server-only" }));
    b.onLoad({ filter: /.*/, namespace: "server-only" }, () => ({ contents: "" }));
  },
};

// Compiles SERVER_MODULES (into `outRoot`: the project by default, a test's folder); run right after `next build`.
export async function buildServerModules(root: string, outRoot = root): Promise<void> {
  for (const m of SERVER_MODULES) {
    await build({
      entryPoints: [path.join(root, m.entry)],
      outfile: path.join(outRoot, m.out),
      bundle: true,
      packages: "external",
      platform: "node",
      format: "esm",
      target: "node20",
      tsconfig: path.join(root, "tsconfig.json"),
      logLevel: "warning",
      plugins: [serverOnly],
    });
  }
}

// What a production build depends on: a change to any of these after `.next/BUILD_ID` means a rebuild.
export const BUILD_INPUTS = [
  "app",
  "lib",
  "db",
  "components",
  "proxy.ts",
  "next.config.ts",
  "package.json",
] as const;

function newestFile(target: string): { file: string; mtimeMs: number } | null {
  if (!existsSync(target)) return null;
  const stat = statSync(target);
  if (!stat.isDirectory()) return { file: target, mtimeMs: stat.mtimeMs };
  let newest: { file: string; mtimeMs: number } | null = null;
  for (const entry of readdirSync(target, { withFileTypes: true })) {
    if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
    const found = newestFile(path.join(target, entry.name));
    if (found && (!newest || found.mtimeMs > newest.mtimeMs)) newest = found;
  }
  return newest;
}

// Why the project needs a production build before `next start`, or null when `.next` is up to date.
export function buildReason(root: string): string | null {
  const buildId = path.join(root, ".next", "BUILD_ID");
  if (!existsSync(buildId)) return "no production build yet (.next/BUILD_ID is missing)";
  const missing = SERVER_MODULES.find((m) => !existsSync(path.join(root, m.out)));
  if (missing) return `${missing.out} is missing`;
  const builtAt = statSync(buildId).mtimeMs;
  let newest: { file: string; mtimeMs: number } | null = null;
  for (const input of BUILD_INPUTS) {
    const found = newestFile(path.join(root, input));
    if (found && (!newest || found.mtimeMs > newest.mtimeMs)) newest = found;
  }
  if (newest && newest.mtimeMs > builtAt) {
    return `${path.relative(root, newest.file)} changed after the last build`;
  }
  return null;
}
