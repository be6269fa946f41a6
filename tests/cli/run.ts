import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { configSchema } from "@/lib/config";

// The project root, where the CLIs run.
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

// What a finished child process printed and returned.
export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

// The current environment without any configuration variable, plus the given ones (so the test decides the database).
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(configSchema.shape)) delete env[key];
  return { ...env, ...extra };
}

// Runs `npx tsx <script> ...args` from the project root and collects its output; `input` is written to its standard
// input, which is then closed (closed at once without it).
export function runScript(
  script: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs = 60_000,
  input?: string,
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn("npx", ["tsx", script, ...args], { cwd: ROOT, env: cleanEnv(env) });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.stdin.on("error", () => undefined); // a child that exits without reading its input
    child.stdin.end(input ?? "");
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

// The last non-empty line of an output.
export function lastLine(text: string): string {
  return text.trimEnd().split("\n").at(-1)?.trim() ?? "";
}
