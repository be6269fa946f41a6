// An open-loop load generator: requests leave on a fixed schedule (one every 1000/rate ms), whatever the answers
// (a slow answer never delays the next departures, so there is no coordinated omission), and each latency is
// measured from the request's departure to the end of its body.
//
// autocannon's `overallRate` is not this: each connection sends its share of a second back to back at the start of
// every second, so the server sees a burst of `connections` concurrent requests each second and the latency it
// reports is mostly queueing in that burst, not the work of a request.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { mixDrawer, type Mix } from "./mix";

export interface OpenLoopResult {
  sent: number;
  statuses: Record<string, number>;
  errors: number;
  /** Requests sent again because the kept-alive socket they went out on had just been closed by the server. */
  resent: number;
  p50: number;
  p99: number;
  max: number;
  /** How late, at worst, a request left its scheduled time (the generator's own timer lag, in ms). */
  maxLag: number;
  /** Answers that took longer than `slowMs` (bench/overload.ts: 2000). */
  slow: number;
  /** 503 answers without a Retry-After header. */
  noRetryAfter: number;
  /**
   * Where the answers slower than `slowMs` and the errors spent most of their time: waiting in the generator for a
   * free socket (`queued`: the generator's own backlog), opening a connection (`connect`: the server's accept
   * backlog, SYN retransmits), or between the request written and the answer's end (`server`).
   */
  slowWhere: Record<Phase, number>;
  errorWhere: Record<Phase, number>;
  /** The answers over `slowMs` and the errors by the second of the run they left in (0: the first). */
  slowBySecond: Record<number, number>;
  errorsBySecond: Record<number, number>;
}

export type Phase = "queued" | "connect" | "server";

export async function openLoop(opts: {
  url: string;
  /** Authorization header values, used in rotation. */
  authorizations: string[];
  /** Other request headers (If-None-Match of a conditional scenario). */
  headers?: Record<string, string>;
  rate: number;
  durationSeconds: number;
  maxSockets?: number;
  timeoutMs?: number;
  /** The multi-tenant mix (bench/mix.ts) as JSON: each request's path and key drawn from it instead. */
  mixFile?: string;
  /** The mix's draw seed. */
  seed?: number;
  /** An answer slower than this (ms) is counted in `slow` (default 2000). */
  slowMs?: number;
}): Promise<OpenLoopResult> {
  const url = new URL(opts.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.maxSockets ?? 64 });
  const total = Math.round(opts.rate * opts.durationSeconds);
  const interval = 1000 / opts.rate;
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  let resent = 0;
  let maxLag = 0;
  let slow = 0;
  let noRetryAfter = 0;
  const slowWhere: Record<Phase, number> = { queued: 0, connect: 0, server: 0 };
  const errorWhere: Record<Phase, number> = { queued: 0, connect: 0, server: 0 };
  const slowBySecond: Record<number, number> = {};
  const errorsBySecond: Record<number, number> = {};
  const slowMs = opts.slowMs ?? 2000;
  const draw = opts.mixFile
    ? mixDrawer(JSON.parse(readFileSync(opts.mixFile, "utf8")) as Mix, opts.seed ?? 1)
    : undefined;
  const start = performance.now() + 20;
  const bump = (bySecond: Record<number, number>, departure: number) => {
    const second = Math.floor((departure - start) / 1000);
    bySecond[second] = (bySecond[second] ?? 0) + 1;
  };

  // The request i: the URL and a key in rotation, or a draw from the mix.
  const target = (i: number) =>
    draw?.() ?? {
      path: url.pathname + url.search,
      authorization: opts.authorizations[i % opts.authorizations.length]!,
    };
  const one = (t: { path: string; authorization: string }, departure: number, retry = true): Promise<void> =>
    new Promise<void>((resolve) => {
      // The request's phases: a socket assigned (from the agent's pool or a new one), connected, answered.
      let assigned = NaN;
      let connected = NaN;
      const phase = (end: number): Phase => {
        if (Number.isNaN(assigned)) return "queued";
        const times = { queued: assigned - departure, connect: 0, server: end - assigned };
        if (!Number.isNaN(connected)) {
          times.connect = connected - assigned;
          times.server = end - connected;
        } else if (!req.reusedSocket) {
          // Never connected: the whole wait was the connection's.
          times.connect = end - assigned;
          times.server = 0;
        }
        return (Object.keys(times) as Phase[]).reduce((a, b) => (times[b] > times[a] ? b : a));
      };
      const req = http.get(
        {
          agent,
          host: url.hostname,
          port: url.port,
          path: t.path,
          headers: { ...opts.headers, authorization: t.authorization },
          timeout: opts.timeoutMs ?? 10_000,
        },
        (res) => {
          res.on("data", () => undefined);
          res.on("end", () => {
            const end = performance.now();
            const ms = end - departure;
            latencies.push(ms);
            if (ms > slowMs) {
              slow++;
              slowWhere[phase(end)]++;
              bump(slowBySecond, departure);
            }
            if (res.statusCode === 503 && res.headers["retry-after"] === undefined) noRetryAfter++;
            statuses[String(res.statusCode)] = (statuses[String(res.statusCode)] ?? 0) + 1;
            resolve();
          });
        },
      );
      req.on("socket", (socket) => {
        assigned = performance.now();
        if (socket.connecting) socket.once("connect", () => (connected = performance.now()));
      });
      req.on("timeout", () => req.destroy(new Error("timeout")));
      req.on("error", (err: NodeJS.ErrnoException) => {
        // A kept-alive socket that the server closed (its keep-alive timeout) just as this request went out: the
        // request never reached the server. Sent again once, as Node's documentation advises; its latency still
        // counts from the first departure.
        if (retry && req.reusedSocket && err.code === "ECONNRESET") {
          resent++;
          void one(t, departure, false).then(resolve);
          return;
        }
        errors++;
        errorWhere[phase(performance.now())]++;
        bump(errorsBySecond, departure);
        resolve();
      });
    });

  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const scheduled = start + i * interval;
    const wait = scheduled - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const departure = performance.now();
    maxLag = Math.max(maxLag, departure - scheduled);
    pending.push(one(target(i), departure));
  }
  await Promise.all(pending);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
  return {
    sent: total,
    statuses,
    errors,
    resent,
    p50: at(0.5),
    p99: at(0.99),
    max: round(latencies[latencies.length - 1] ?? 0),
    maxLag: round(maxLag),
    slow,
    noRetryAfter,
    slowWhere,
    errorWhere,
    slowBySecond,
    errorsBySecond,
  };
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

// The generator in a process of its own (so that the orchestrator's work and garbage collection never delay the
// reading of an answer): bench/run.ts, bench/overload.ts.
export async function openLoopProcess(opts: Parameters<typeof openLoop>[0]): Promise<OpenLoopResult> {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
  const child = spawn(
    process.execPath,
    [
      "--conditions=react-server",
      "--import",
      "tsx",
      path.join(root, "bench/open-loop.ts"),
      JSON.stringify(opts),
    ],
    { cwd: root, stdio: ["ignore", "pipe", "inherit"] },
  );
  if (process.env.BENCH_GENERATOR_NICE) os.setPriority(child.pid!, Number(process.env.BENCH_GENERATOR_NICE));
  let out = "";
  child.stdout!.on("data", (b: Buffer) => (out += b.toString()));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  if (code !== 0) throw new Error(`open-loop generator exited with ${code}`);
  return JSON.parse(out) as OpenLoopResult;
}

// Run alone, in a process of its own (so that the orchestrator's work and garbage collection never delay the
// reading of an answer): `node --import tsx bench/open-loop.ts '<options as JSON>'` prints the result as JSON.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await openLoop(JSON.parse(process.argv[2]!) as Parameters<typeof openLoop>[0]);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
