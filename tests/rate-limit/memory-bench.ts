// Quick measurement of the in-process limiter's hot path: `npx tsx tests/rate-limit/memory-bench.ts`.
import { MemorySlidingWindow } from "@/lib/rate-limit/memory";

const N = 2_000_000;
const ids = Array.from({ length: 1_000 }, (_, i) => `key_${i.toString(36).padStart(8, "0")}`);

function measure(label: string, run: () => Promise<void> | void) {
  return async () => {
    const heap = process.memoryUsage().heapUsed;
    const started = process.hrtime.bigint();
    await run();
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const heapMb = (process.memoryUsage().heapUsed - heap) / 1e6;
    console.log(
      `${label}: ${Math.round(N / seconds).toLocaleString("en")} ops/s (${((seconds / N) * 1e9).toFixed(0)} ns/op, heap Δ ${heapMb.toFixed(1)} MB)`,
    );
  };
}

const steps = [
  measure("check() sync, 1,000 keys", () => {
    const l = new MemorySlidingWindow(1_000_000_000, 60_000);
    for (let i = 0; i < N; i++) l.check(ids[i % ids.length]!, Date.now());
  }),
  measure("await limit(), 1,000 keys", async () => {
    const l = new MemorySlidingWindow(1_000_000_000, 60_000);
    for (let i = 0; i < N; i++) await l.limit(ids[i % ids.length]!);
  }),
  measure("await limit(), refusals (limit 10)", async () => {
    const l = new MemorySlidingWindow(10, 60_000);
    for (let i = 0; i < N; i++) await l.limit(ids[i % ids.length]!);
  }),
  measure("await limit(), 2M distinct keys, bound 100,000", async () => {
    const l = new MemorySlidingWindow(600, 60_000, 100_000);
    for (let i = 0; i < N; i++) await l.limit(`ip:${i}`);
    if (l.size > 100_000) throw new Error("bound exceeded");
  }),
];
for (const step of steps) await step();
