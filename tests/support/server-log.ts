import type { ChildProcess } from "node:child_process";
import { createWriteStream, mkdirSync } from "node:fs";
import path from "node:path";

// The folder where `npm test` collects the logs of every server the suites start (PCA_SERVER_LOG_DIR, set by
// scripts/test.ts), which its last step scans for secrets (scripts/lib/log-scan.ts); undefined when a suite runs
// on its own.
export function serverLogDir(): string | undefined {
  const dir = process.env.PCA_SERVER_LOG_DIR;
  if (!dir) return undefined;
  mkdirSync(dir, { recursive: true });
  return dir;
}

// Copies a server's standard output and error, as they come, into `<name>-<pid>.log` of the collected logs: the
// child must have been spawned with both piped. Its other readers are left as they are; when nothing is collected
// the pipes are still drained, so that a child nobody else reads never blocks on a full pipe.
export function collectServerLog(child: ChildProcess, name: string): void {
  const dir = serverLogDir();
  if (!dir) {
    child.stdout?.resume();
    child.stderr?.resume();
    return;
  }
  const file = createWriteStream(
    path.join(dir, `${name.replace(/[^\w.-]+/g, "-")}-${child.pid ?? "x"}.log`),
    {
      flags: "a",
    },
  );
  let open = 2;
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) {
      open--;
      continue;
    }
    stream.on("data", (d: Buffer) => file.write(d));
    stream.once("close", () => --open === 0 && file.end());
  }
  if (open === 0) file.end();
}
