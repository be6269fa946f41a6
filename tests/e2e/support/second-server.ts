// A second production server for a spec, on the build the webServer made: `scripts/serve.mjs` (npm start's server),
// `scripts/start.ts` when it must migrate and seed its own data folder first, or a bare `next start` (on a data
// folder seeded before). Its output is collected for the
// suite's log scan (tests/support/server-log.ts) and kept for the spec's error messages; `stop` ends it (SIGTERM) and
// waits for it.
import { spawn, type ChildProcess } from "node:child_process";
import { freePort } from "../../support/ports";
import { collectServerLog } from "../../support/server-log";

export interface SecondServer {
  child: ChildProcess;
  port: number;
  /** http://127.0.0.1:<port> */
  base: string;
  /** Everything it wrote so far, stdout and stderr. */
  output(): string;
  stop(): Promise<void>;
}

// Starts one on a free port of loopback with `env` over the spec's environment (NODE_ENV production, PORT, HOSTNAME
// and PUBLIC_BASE_URL set); resolves once `ready` holds (by default: its OpenAPI document answers, which needs no
// database). Throws with its output if it exits first or is not ready within `timeoutMs`.
export async function startSecondServer(opts: {
  label: string;
  env: Record<string, string>;
  script?: "serve" | "start" | "next start";
  ready?: (s: SecondServer) => boolean | Promise<boolean>;
  timeoutMs?: number;
}): Promise<SecondServer> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const args =
    opts.script === "start"
      ? ["--import", "tsx", "scripts/start.ts"]
      : opts.script === "next start"
        ? ["node_modules/next/dist/bin/next", "start", "-p", String(port), "-H", "127.0.0.1"]
        : ["scripts/serve.mjs"];
  const child = spawn(process.execPath, args, {
    env: {
      ...process.env,
      NODE_ENV: "production",
      HOSTNAME: "127.0.0.1",
      PUBLIC_BASE_URL: base,
      ...opts.env,
      PORT: String(port),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  collectServerLog(child, opts.label);
  let output = "";
  child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
  const server: SecondServer = {
    child,
    port,
    base,
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
  const ready =
    opts.ready ??
    (() =>
      fetch(`${base}/public/v1/openapi.json`).then(
        (r) => r.ok,
        () => false,
      ));
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`${opts.label}: the server exited (${child.exitCode}):\n${output}`);
    if (await ready(server)) return server;
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`${opts.label}: the server was not ready in time:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}
