// `npm run build`: the Next.js production build, then the server modules scripts/serve.mjs imports.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { buildServerModules } from "./lib/build";

const root = path.resolve(import.meta.dirname, "..");
const next = spawnSync(path.join(root, "node_modules", ".bin", "next"), ["build"], {
  cwd: root,
  stdio: "inherit",
});
if (next.status !== 0) process.exit(next.status ?? 1);
await buildServerModules(root);
