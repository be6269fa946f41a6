// The runtime's background timer (lib/background-timer.ts): its first run after firstMs, the next everyMs after the
// previous one ends (never two at once), stop() waits for a run under way and tells it, a failure does not end it.
import { describe, expect, it } from "vitest";
import { BackgroundTimer } from "@/lib/background-timer";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("BackgroundTimer", () => {
  it("runs first after firstMs, then everyMs after each run ends, one at a time; a failure does not stop it", async () => {
    let running = 0;
    let most = 0;
    const starts: number[] = [];
    const t0 = Date.now();
    const timer = new BackgroundTimer(
      async () => {
        starts.push(Date.now() - t0);
        running++;
        most = Math.max(most, running);
        await sleep(40);
        running--;
        if (starts.length === 2) throw new Error("a failed run");
      },
      { firstMs: 50, everyMs: 10 },
    );
    timer.start();
    timer.start();
    await sleep(30);
    expect(starts).toEqual([]);
    await expect.poll(() => starts.length, { timeout: 2000 }).toBeGreaterThanOrEqual(4);
    await timer.stop();
    expect(most).toBe(1);
    expect(starts[0]).toBeGreaterThanOrEqual(45);
    // Each run starts after the one before ended (40 ms) and the pause (10 ms).
    for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(45);
    const n = starts.length;
    await sleep(100);
    expect(starts.length).toBe(n);
  });

  it("stop() waits for the run under way, which sees `stopping` and may end early", async () => {
    let steps = 0;
    let ended = false;
    const timer: BackgroundTimer = new BackgroundTimer(
      async () => {
        while (!timer.stopping && steps < 1000) {
          steps++;
          await sleep(5);
        }
        ended = true;
      },
      { firstMs: 0, everyMs: 1000 },
    );
    expect(timer.stopping).toBe(false);
    timer.start();
    await expect.poll(() => steps, { timeout: 2000 }).toBeGreaterThan(3);
    await timer.stop();
    expect(ended).toBe(true);
    expect(steps).toBeLessThan(1000);
    expect(timer.stopping).toBe(true);
  });
});
