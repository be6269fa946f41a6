import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import {
  chownSync,
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { freePort } from "./ports";

// A throw-away Postgres 15 cluster of a test's own (initdb into a temporary folder, a postmaster on a free loopback
// port, fsync off), which the test may stop (fast or immediate shutdown), kill, freeze (SIGSTOP) and thaw, and start
// again on the same port and data folder. Never the shared servers of TEST_DATABASE_URL: a fault injected there
// would fail every other suite running beside this one.
export interface PostgresProcess {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  readonly url: string;
  readonly port: number;
  /** A postmaster is running (frozen or not). */
  readonly running: boolean;
  readonly frozen: boolean;
  /** The URL of another database of the cluster. */
  urlOf(database: string): string;
  /** Starts the postmaster (again, on the same port and data folder) and waits until it accepts connections. */
  start(): Promise<void>;
  /** Shuts down: "fast" (SIGINT: sessions terminated, their transactions rolled back, then a checkpoint) or
   * "immediate" (SIGQUIT: every process exits at once, crash recovery at the next start); waits until it is gone. */
  stop(mode?: "fast" | "immediate"): Promise<void>;
  /** SIGKILL to the postmaster and every backend at once (a machine that lost power, as the server sees it). */
  kill(): Promise<void>;
  /** SIGSTOP to the postmaster and every backend: connections stay open and new ones are accepted by the kernel,
   * but nothing answers. */
  freeze(): void;
  /** SIGCONT to them all. */
  thaw(): void;
  /** Stops the cluster and removes its folder. */
  close(): Promise<void>;
}

const START_TIMEOUT_MS = 30_000;
const live = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of live) signalCluster(child, "SIGKILL");
});

// The newest Postgres binaries of the machine (Debian installs them under /usr/lib/postgresql/<major>/bin), or
// PG_BIN when set.
export function postgresBin(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = "/usr/lib/postgresql";
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((d) => existsSync(path.join(root, d, "bin", "postgres")))
        .sort((a, b) => Number(a) - Number(b))
    : [];
  if (majors.length === 0)
    throw new Error("Postgres binaries not found under /usr/lib/postgresql (apt-get install postgresql)");
  return path.join(root, majors[majors.length - 1]!, "bin");
}

// The user the server runs as: itself, or the postgres user when run as root (initdb and postgres refuse root).
function serverUser(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => {
    const out = spawnSync("id", [flag, "postgres"], { encoding: "utf8" });
    if (out.status !== 0)
      throw new Error("running as root, and there is no postgres user to run the server as");
    return Number(out.stdout.trim());
  };
  return { uid: id("-u"), gid: id("-g") };
}

// The postmaster's children (backends, background workers): each is a process group of its own (Postgres calls
// setsid() in every child, so that the postmaster can signal a child's own children), so a signal to the
// postmaster's group does not reach them. Read from /proc.
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after its last ")".
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return out;
}

// Sends a signal to the postmaster and to each of its children's process groups. The children are listed before
// (a postmaster killed leaves them to init) and after the postmaster gets it (a postmaster stopped forks no child
// the signal would miss).
function signalCluster(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  const send = (pid: number) => {
    try {
      process.kill(pid, signal);
    } catch {
      // Gone already.
    }
  };
  const before = childrenOf(child.pid);
  send(child.pid);
  for (const pid of new Set([...before, ...childrenOf(child.pid)])) {
    try {
      process.kill(-pid, signal);
    } catch {
      send(pid);
    }
  }
}

async function accepts(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  c.on("error", () => {});
  try {
    await c.connect();
    await c.query("select 1");
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => undefined);
  }
}

// initdb into a new temporary folder, then starts the cluster on a free loopback port. `settings`: more -c options
// of the server.
export async function startPostgres(settings: Record<string, string> = {}): Promise<PostgresProcess> {
  const bin = postgresBin();
  const user = serverUser();
  const dir = mkdtempSync(path.join(os.tmpdir(), "pca-pg-"));
  if (user.uid !== undefined) chownSync(dir, user.uid, user.gid!);
  const data = path.join(dir, "data");
  const init = spawnSync(
    path.join(bin, "initdb"),
    ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"],
    { encoding: "utf8", ...user },
  );
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${init.stderr || init.stdout || init.error?.message}`);
  }
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const options = {
    listen_addresses: "127.0.0.1",
    port: String(port),
    // TCP only: no socket file in a shared folder.
    unix_socket_directories: "",
    // Nothing survives the machine, but a commit is a commit: synchronous_commit stays on, so that a kill loses no
    // transaction a client saw committed (as on a production server).
    fsync: "off",
    full_page_writes: "off",
    shared_buffers: "64MB",
    max_connections: "100",
    ...settings,
  };
  const args = ["-D", data, ...Object.entries(options).flatMap(([k, v]) => ["-c", `${k}=${v}`])];
  let child: ChildProcess | undefined;
  let frozen = false;

  const start = async () => {
    if (child) return;
    const log = openSync(path.join(dir, "postgres.log"), "a");
    const c = spawn(path.join(bin, "postgres"), args, {
      detached: true,
      stdio: ["ignore", log, log],
      ...user,
    });
    closeSync(log);
    child = c;
    live.add(c);
    let failure: Error | undefined;
    c.once("error", (err) => (failure = new Error(`postgres could not start: ${err.message}`)));
    c.once("exit", (code, signal) => {
      live.delete(c);
      if (child === c) child = undefined;
      failure ??= new Error(`postgres exited (${code ?? signal}); see ${path.join(dir, "postgres.log")}`);
    });
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (!(await accepts(url))) {
      if (failure) throw failure;
      if (Date.now() > deadline) {
        signalCluster(c, "SIGKILL");
        throw new Error(`postgres did not accept connections on port ${port} within ${START_TIMEOUT_MS} ms`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  // Signals the postmaster (or it and every child: a kill) and waits for it to exit; SIGCONT after, when frozen, so
  // that it can.
  const end = async (signal: NodeJS.Signals, group: boolean) => {
    const c = child;
    if (!c) return;
    if (c.exitCode === null && c.signalCode === null) {
      const exited = new Promise<void>((resolve) => c.once("exit", () => resolve()));
      if (group) signalCluster(c, signal);
      else c.kill(signal);
      if (frozen) signalCluster(c, "SIGCONT");
      await exited;
    }
    frozen = false;
    child = undefined;
    live.delete(c);
  };

  await start();
  return {
    url,
    port,
    get running() {
      return child !== undefined;
    },
    get frozen() {
      return frozen;
    },
    urlOf(database) {
      const u = new URL(url);
      u.pathname = `/${database}`;
      return u.toString();
    },
    start,
    stop: (mode = "fast") => end(mode === "fast" ? "SIGINT" : "SIGQUIT", false),
    kill: () => end("SIGKILL", true),
    freeze() {
      if (!child) throw new Error("postgres is not running");
      signalCluster(child, "SIGSTOP");
      frozen = true;
    },
    thaw() {
      if (child) signalCluster(child, "SIGCONT");
      frozen = false;
    },
    close: async () => {
      await end("SIGINT", false);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
