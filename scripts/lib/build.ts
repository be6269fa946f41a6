import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

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
