import { readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";

// Where the start script records the pid of the running server of a data folder.
export function pidFilePath(dataDir: string): string {
  return path.resolve(dataDir, "server.pid");
}

// True when a process with this pid exists (signal 0 checks without sending anything).
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

// The pid of the server running on this data folder, or null when there is none (no file, bad file, dead pid).
export function runningServerPid(dataDir: string): number | null {
  let text: string;
  try {
    text = readFileSync(pidFilePath(dataDir), "utf8").trim();
  } catch {
    return null;
  }
  const pid = Number(text);
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) return null;
  return isProcessAlive(pid) ? pid : null;
}

// Records this process as the server of the data folder.
export function writePidFile(dataDir: string, pid: number = process.pid): void {
  mkdirSync(path.resolve(dataDir), { recursive: true });
  writeFileSync(pidFilePath(dataDir), `${pid}\n`);
}

// Removes the pid file when it still names this process (another server may have replaced it).
export function removePidFile(dataDir: string, pid: number = process.pid): void {
  try {
    if (readFileSync(pidFilePath(dataDir), "utf8").trim() === String(pid)) rmSync(pidFilePath(dataDir));
  } catch {
    // already gone
  }
}
