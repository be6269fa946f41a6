// What the Python client's tests share: Python code run as a child process with the client importable (each JSON
// line it prints is one result, a failure throws with its traceback), and a proxy in front of the test server that
// records every request and its answer, holds a request until the test lets it go, and plays faults (an export cut
// after so many lines, an error status, a connection reset).
import { spawn, type ChildProcess } from "node:child_process";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

// The directory of clients/python/pca_client.py.
export const CLIENT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../clients/python");

// What every snippet starts with: the client imported, `out` printing one JSON result, `error_of` an error's fields.
const PREAMBLE = `
import json, os, sys, threading, time
sys.path.insert(0, os.environ["PCA_CLIENT_DIR"])
from pca_client import *
BASE = os.environ.get("PCA_BASE_URL", "")
KEY = os.environ.get("PCA_API_KEY", "")
def out(value):
    print(json.dumps(value), flush=True)
def error_of(e):
    fields = {"type": type(e).__name__, "text": str(e) + repr(e)}
    for name in ("status", "code", "message", "body", "request_id", "retry_after", "path"):
        if hasattr(e, name):
            fields[name] = getattr(e, name)
    return fields
`;

// The environment of a snippet: only what it needs (no secret of the test process leaks into it).
function pythonEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return {
    ...({} as NodeJS.ProcessEnv),
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PYTHONDONTWRITEBYTECODE: "1",
    PYTHONIOENCODING: "utf-8",
    PCA_CLIENT_DIR: CLIENT_DIR,
    ...env,
  };
}

// A snippet running: the JSON lines it printed so far, a wait for one, a line sent to its stdin, its end.
export interface PythonRun {
  child: ChildProcess;
  lines: unknown[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  waitFor(test: (line: any) => boolean, what: string, timeoutMs?: number): Promise<any>;
  send(line: string): void;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  done(): Promise<any[]>;
  stop(): Promise<void>;
}

// Starts `code` (Python, after the preamble) with `env`.
export function startPython(code: string, env: Record<string, string>): PythonRun {
  const child = spawn("python3", ["-u", "-c", PREAMBLE + code], { env: pythonEnv(env) });
  const lines: unknown[] = [];
  let stdout = "";
  let stderr = "";
  let rest = "";
  child.stdout!.on("data", (d: Buffer) => {
    stdout += d;
    const parts = (rest + d.toString()).split("\n");
    rest = parts.pop()!;
    for (const line of parts) if (line.trim()) lines.push(JSON.parse(line));
  });
  child.stderr!.on("data", (d: Buffer) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on("close", (status) => resolve(status)));
  const failure = (what: string) => new Error(`python: ${what}\nstdout:\n${stdout}\nstderr:\n${stderr}`);
  return {
    child,
    lines,
    async waitFor(test, what, timeoutMs = 60_000) {
      const end = Date.now() + timeoutMs;
      while (Date.now() < end) {
        const found = lines.find(test);
        if (found !== undefined) return found;
        if (child.exitCode !== null) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw failure(`no line for ${what}`);
    },
    send: (line) => child.stdin!.write(`${line}\n`),
    async done() {
      const status = await exited;
      if (status !== 0) throw failure(`exited with ${status}`);
      return lines;
    },
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

// Runs `code` to its end; its JSON lines.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function runPython(code: string, env: Record<string, string>): Promise<any[]> {
  const run = startPython(code, env);
  run.child.stdin!.end();
  return run.done();
}

// A fault the proxy plays on the next request whose path and query match.
export type Fault =
  | { match: RegExp; cut: number } // the answer cut after this many lines and half of the next one
  | { match: RegExp; status: number; code: string; retryAfter?: number }
  | { match: RegExp; reset: true }; // the connection closed before any answer

// One request the proxy got: its path and query, when it came (ms), its answer's status and headers.
export interface Seen {
  url: string;
  at: number;
  status?: number;
  headers?: http.IncomingHttpHeaders;
  fault?: string;
}

// The proxy in front of a server.
export interface FaultProxy {
  url: string;
  seen: Seen[];
  faults: Fault[];
  /** Awaited before each request is forwarded (a test holds it there, or writes first). */
  before?: (url: string) => Promise<void> | void;
  close(): Promise<void>;
}

// Starts a proxy on loopback in front of `target` (`http://127.0.0.1:<port>`).
export async function startProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  const sockets = new Set<Socket>();
  const proxy: FaultProxy = { url: "", seen: [], faults: [], close: async () => undefined };
  const server = http.createServer(async (req, res) => {
    const seen: Seen = { url: req.url ?? "/", at: Date.now() };
    proxy.seen.push(seen);
    const i = proxy.faults.findIndex((f) => f.match.test(seen.url));
    const fault = i >= 0 ? proxy.faults.splice(i, 1)[0] : undefined;
    if (fault && "reset" in fault) {
      seen.fault = "reset";
      req.socket.destroy();
      return;
    }
    if (fault && "status" in fault) {
      seen.fault = String(fault.status);
      seen.status = fault.status;
      res.writeHead(fault.status, {
        "content-type": "application/json; charset=utf-8",
        "x-request-id": "proxy-fault",
        ...(fault.retryAfter !== undefined ? { "retry-after": String(fault.retryAfter) } : {}),
      });
      res.end(
        JSON.stringify({ statusCode: fault.status, code: fault.code, error: "Fault", message: "Panne." }),
      );
      return;
    }
    await proxy.before?.(seen.url);
    const headers = { ...req.headers, host: upstream.host };
    // A cut is counted in lines: the answer comes uncompressed.
    if (fault) delete headers["accept-encoding"];
    const forward = http.request({ host: upstream.hostname, port: upstream.port, path: req.url, headers });
    forward.on("error", () => req.socket.destroy());
    forward.on("response", (answer) => {
      seen.status = answer.statusCode;
      seen.headers = answer.headers;
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      if (!fault) {
        answer.pipe(res);
        return;
      }
      seen.fault = "cut";
      let lines = 0;
      answer.on("data", (chunk: Buffer) => {
        let at = -1;
        while (lines < fault.cut && (at = chunk.indexOf(10, at + 1)) >= 0) lines++;
        if (lines < fault.cut) {
          res.write(chunk);
          return;
        }
        // What was written reaches the client, then the connection is lost; the server's export ends.
        answer.destroy();
        forward.destroy();
        res.write(chunk.subarray(0, at + 20), () => setTimeout(() => res.socket?.destroy(), 50));
      });
    });
    req.pipe(forward);
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  };
  return proxy;
}
