// Instances of the API and console for the multi-instance suites: each a process of its own (instance-process.ts)
// on the database its environment names, started and stopped the same way by every suite.
import { spawn, type ChildProcess } from "node:child_process";
import { serverRedisUrl } from "../support/servers";

// A running instance: its name, where it serves, its process.
export interface Instance {
  name: string;
  base: string;
  child: ChildProcess;
}

// Starts one instance on `databaseUrl` with the shared Redis, in production mode and without the demo, plus `env`;
// resolves once it serves.
export function startInstance(
  name: string,
  databaseUrl: string,
  env: Record<string, string>,
): Promise<Instance> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "--conditions=react-server", "tests/instances/instance-process.ts"],
    {
      env: {
        ...process.env,
        NODE_ENV: "production",
        DATABASE_URL: databaseUrl,
        REDIS_URL: serverRedisUrl(),
        DEMO_SEED: "never",
        ...env,
      },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening (\d+)/.exec(out);
      if (m) resolve({ name, base: `http://127.0.0.1:${m[1]}`, child });
    });
    child.once("exit", (code) => reject(new Error(`instance ${name} exited (${code}) before serving`)));
  });
}

// Stops an instance (SIGTERM: its runtime closes), SIGKILL after 15 s.
export async function stopInstance(i: Instance): Promise<void> {
  if (i.child.exitCode !== null) return;
  const exited = new Promise((resolve) => i.child.once("exit", resolve));
  i.child.kill("SIGTERM");
  const timer = setTimeout(() => i.child.kill("SIGKILL"), 15_000);
  await exited;
  clearTimeout(timer);
}
