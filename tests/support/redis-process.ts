import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import { freePort } from "./ports";

// A redis-server of a test's own on a loopback port, which the test may stop (kill) and start again on the same port.
export interface RedisProcess {
  readonly url: string;
  readonly port: number;
  readonly running: boolean;
  start(): Promise<void>;
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 10_000;
const live = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of live) child.kill("SIGKILL");
});

async function ping(port: number): Promise<boolean> {
  return await new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (d) => done(d.toString().startsWith("+PONG")));
  });
}

// Spawns redis-server on a free loopback port and waits until it answers PING; fails when redis-server is missing.
export async function startRedis(): Promise<RedisProcess> {
  const port = await freePort();
  let child: ChildProcess | undefined;

  const start = async () => {
    if (child) return;
    const c = spawn(
      "redis-server",
      [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
        "--daemonize",
        "no",
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    child = c;
    live.add(c);
    let failure: Error | undefined;
    c.once("error", (err) => (failure = new Error(`redis-server could not start: ${err.message}`)));
    c.once("exit", (code, signal) => {
      live.delete(c);
      if (child === c) child = undefined;
      failure ??= new Error(`redis-server exited (${code ?? signal})`);
    });
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (!(await ping(port))) {
      if (failure) throw failure;
      if (Date.now() > deadline) {
        c.kill("SIGKILL");
        throw new Error(`redis-server did not answer on port ${port} within ${START_TIMEOUT_MS} ms`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  const stop = async () => {
    const c = child;
    if (!c) return;
    child = undefined;
    if (c.exitCode === null && c.signalCode === null) {
      const exited = new Promise<void>((resolve) => c.once("exit", () => resolve()));
      c.kill("SIGKILL");
      await exited;
    }
    live.delete(c);
  };

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    get running() {
      return child !== undefined;
    },
    start,
    stop,
  };
}
