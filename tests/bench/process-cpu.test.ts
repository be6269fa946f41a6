// The benchmarks' CPU readings from /proc (bench/process-rss.ts): a busy process is seen using CPU, and the time
// between two readings of a command's processes counts one started in between whole and is never negative when one
// ended in between (bench:webhooks' Postgres column read −182 ms/s once, a backend gone mid-block).
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { commandCpuMs, cpuBetween, treeCpuMs } from "../../bench/process-rss";

describe("CPU readings from /proc", () => {
  it("sees a process burn CPU, itself and through its parent's tree", async () => {
    // The child burns 300 ms of CPU (however long that takes on a busy machine), says so and waits to be read.
    const child = spawn(process.execPath, [
      "-e",
      "while (process.cpuUsage().user + process.cpuUsage().system < 300_000); console.log('done'); setInterval(() => {}, 1000);",
    ]);
    try {
      await new Promise<void>((resolve) => child.stdout!.on("data", () => resolve()));
      const own = treeCpuMs(child.pid!);
      expect(own).toBeGreaterThanOrEqual(250);
      expect(treeCpuMs(process.pid)).toBeGreaterThanOrEqual(own);
      expect(commandCpuMs("node").get(child.pid!)).toBeGreaterThanOrEqual(own);
    } finally {
      child.kill();
    }
  });

  it("counts a process started between two readings whole, and one that ended not at all", () => {
    const before = new Map([
      [10, 500], // lives through: 200 more
      [11, 900], // ends in between
    ]);
    const after = new Map([
      [10, 700],
      [12, 50], // starts in between
    ]);
    expect(cpuBetween(before, after)).toBe(250);
    expect(cpuBetween(before, new Map())).toBe(0);
  });
});
