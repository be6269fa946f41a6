// The resident memory and CPU time of a server under load, from /proc, for the benchmarks (bench/run.ts,
// bench/export.ts, bench/webhooks.ts).
import { readFileSync, readdirSync } from "node:fs";

// The clock ticks of /proc/<pid>/stat's times (USER_HZ: 100 on Linux).
const TICK_MS = 10;

// CPU time (ms, user and system) of a process and its descendants so far.
export function treeCpuMs(pid: number): number {
  return cpuMsOf(tree(pid));
}

// CPU time (ms, user and system) of one process so far.
export function processCpuMs(pid: number): number {
  return cpuMsOf([pid]);
}

// CPU time (ms) so far of each process whose command is `comm` (e.g. "postgres": the server and its backends).
export function commandCpuMs(comm: string): Map<number, number> {
  const byPid = new Map<number, number>();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/comm`, "utf8").trim() === comm) byPid.set(Number(d), cpuMsOf([Number(d)]));
    } catch {
      // exited
    }
  }
  return byPid;
}

// The CPU time (ms) the processes of two commandCpuMs readings used between them: each one alive at both its
// difference, each one started since all of its time. One that ended in between is not counted (its time since the
// first reading is gone with it): a lower bound, never a negative figure.
export function cpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let ms = 0;
  for (const [pid, t] of after) ms += t - (before.get(pid) ?? 0);
  return ms;
}

function cpuMsOf(pids: Iterable<number>): number {
  let ticks = 0;
  for (const p of pids) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // utime and stime: fields 14 and 15 of stat(5), 12 and 13 after the command.
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // exited
    }
  }
  return ticks * TICK_MS;
}

// Resident memory (MB) of a process and its descendants, from /proc.
export function treeRssMb(pid: number): number {
  let kb = 0;
  for (const p of tree(pid)) {
    try {
      const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, "utf8"));
      kb += Number(m?.[1] ?? 0);
    } catch {
      // exited
    }
  }
  return Math.round(kb / 1024);
}

// A process and its descendants.
function tree(pid: number): Set<number> {
  const parents = new Map<number, number>();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parents.set(Number(d), ppid);
    } catch {
      // exited
    }
  }
  const tree = new Set([pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [p, pp] of parents) {
      if (tree.has(pp) && !tree.has(p)) {
        tree.add(p);
        grew = true;
      }
    }
  }
  return tree;
}

// CPU seconds (user + system) a process and its descendants have used.
export function treeCpuSeconds(pid: number): number {
  let ticks = 0;
  for (const p of tree(pid)) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(f[11]) + Number(f[12]);
    } catch {
      // exited
    }
  }
  return ticks / 100;
}

// Resolves once a process tree has used under `share` of a core for `quietMs` in a row (at most `maxMs`): its
// background work at start (the products kept in memory being built) is done before it is measured.
export async function whenQuiet(
  pid: number,
  opts = { share: 0.05, quietMs: 3_000, maxMs: 180_000 },
): Promise<number> {
  const t0 = Date.now();
  let last = treeCpuSeconds(pid);
  let quietSince = Date.now();
  while (Date.now() - t0 < opts.maxMs) {
    await new Promise((r) => setTimeout(r, 500));
    const now = treeCpuSeconds(pid);
    if (now - last > 0.5 * opts.share) quietSince = Date.now();
    last = now;
    if (Date.now() - quietSince >= opts.quietMs) break;
  }
  return Date.now() - t0;
}
