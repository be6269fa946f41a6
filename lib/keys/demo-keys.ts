import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Scope } from "./scopes";

// The demo keys that the first embedded start created, as written to `${DATA_DIR}/demo-keys.json`.
export interface DemoKeysFile {
  createdAt: string;
  keys: {
    org: string;
    orgId: string;
    keyId: string;
    name: string;
    prefix: string;
    scopes: Scope[];
    key: string;
  }[];
}

// Where the demo keys of a data folder are written.
export function demoKeysPath(dataDir: string): string {
  return path.resolve(dataDir, "demo-keys.json");
}

// Writes the demo keys file, readable by its owner only (mode 0600).
export function writeDemoKeys(dataDir: string, file: DemoKeysFile): string {
  const target = demoKeysPath(dataDir);
  mkdirSync(path.dirname(target), { recursive: true });
  writeFileSync(target, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  chmodSync(target, 0o600); // the mode above applies only when the file is new
  return target;
}

// Reads the demo keys file of a data folder, or null when there is none (or it is unreadable).
export function readDemoKeys(dataDir: string): DemoKeysFile | null {
  try {
    const parsed = JSON.parse(readFileSync(demoKeysPath(dataDir), "utf8")) as DemoKeysFile;
    return Array.isArray(parsed?.keys) ? parsed : null;
  } catch {
    return null;
  }
}
