import { existsSync } from "node:fs";
import path from "node:path";

// Loads `.env.local` then `.env` from a folder into process.env, as `next start` does; variables already set win.
export function loadEnvFiles(dir: string = process.cwd()): string[] {
  const loaded: string[] = [];
  for (const name of [".env.local", ".env"]) {
    const file = path.join(dir, name);
    if (existsSync(file)) {
      process.loadEnvFile(file);
      loaded.push(name);
    }
  }
  return loaded;
}
