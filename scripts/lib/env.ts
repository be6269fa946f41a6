import { existsSync } from "node:fs";
import path from "node:path";

// Loads `.env.local` then `.env` from a folder into process.env, as `next start` does; variables already set win.
export function loadEnvFiles(dir: string = process.cwd()): string[] {
  const loaded: string[] = [];
  for (const name of [".env.local", ".env"]) {
    const file = path.join(dir, name);
    if (existsSync(file)) {
      // process.loadEnvFile exists from Node 20.12; older 20.x ignore the files (next start still reads them).
      if (typeof process.loadEnvFile !== "function") {
        console.warn(
          `${name} not read: Node ${process.version} lacks process.loadEnvFile (use Node 20.12 or later)`,
        );
        continue;
      }
      process.loadEnvFile(file);
      loaded.push(name);
    }
  }
  return loaded;
}
