import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { MembershipRole } from "@/db/users";
import type { Scope } from "./scopes";

// A portal account that the first embedded start created, with its generated password: a member of one demo
// organization (org, role), or a product-team account (isStaff, no organization).
export interface DemoUser {
  email: string;
  name: string;
  password: string;
  org: string | null;
  role: MembershipRole | null;
  isStaff: boolean;
}

// The demo keys and accounts that the first embedded start created, as written to `${DATA_DIR}/demo-keys.json`
// (`users` is absent from the files of earlier versions).
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
  users?: DemoUser[];
}

// Where the demo keys and accounts of a data folder are written.
export function demoKeysPath(dataDir: string): string {
  return path.resolve(dataDir, "demo-keys.json");
}

// Writes the demo file (keys and accounts with their passwords), readable by its owner only (mode 0600).
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
