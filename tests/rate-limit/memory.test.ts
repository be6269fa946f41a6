// The in-process sliding window (check() takes the time, so the window arithmetic is tested exactly) and retryAfterSeconds.
import { describe, expect, it } from "vitest";
import { loadConfig } from "@/lib/config";
import { createRateLimiter } from "@/lib/rate-limit/limiters";
import { MemorySlidingWindow } from "@/lib/rate-limit/memory";
import { retryAfterSeconds } from "@/lib/rate-limit/types";

const W = 60_000;
const T0 = 1_700_000_040_000; // a window start: T0 % W === 0
const at = (ms: number) => T0 + ms;

describe("retryAfterSeconds", () => {
  it("rounds up to whole seconds and is never below 1", () => {
    expect(retryAfterSeconds(10_000, 0)).toBe(10);
    expect(retryAfterSeconds(10_001, 0)).toBe(11);
    expect(retryAfterSeconds(9_001, 0)).toBe(10);
    expect(retryAfterSeconds(1, 0)).toBe(1);
    expect(retryAfterSeconds(0, 0)).toBe(1);
    expect(retryAfterSeconds(-5_000, 0)).toBe(1);
    expect(retryAfterSeconds(500, 0)).toBe(1);
    expect(Number.isInteger(retryAfterSeconds(123_456.7, 0.3))).toBe(true);
  });

  it("defaults now to the current time", () => {
    expect(retryAfterSeconds(Date.now() + 4_200)).toBe(5);
  });
});

describe("in-process sliding window", () => {
  it("counts down exactly, refuses at limit + 1, and resets at the end of the window", () => {
    const l = new MemorySlidingWindow(5, W);
    for (let i = 0; i < 5; i++) {
      expect(l.check("k", at(1_000 + i))).toEqual({
        success: true,
        limit: 5,
        remaining: 4 - i,
        reset: at(W),
      });
    }
    const refused = l.check("k", at(2_000));
    expect(refused.success).toBe(false);
    expect(refused.remaining).toBe(0);
    expect(refused.limit).toBe(5);
    // The current window alone is full: it frees 1 ms into the next window (weight of 5 × (1 - 1/60000) floors to 4).
    expect(refused.reset).toBe(at(W + 1));
    expect(retryAfterSeconds(refused.reset, at(2_000))).toBe(59);
    // Refusals are not counted: still refused, same reset.
    expect(l.check("k", at(3_000)).reset).toBe(at(W + 1));
    // Another identifier has its own window.
    expect(l.check("other", at(3_000)).remaining).toBe(4);
  });

  it("weighs the previous window by the part of it still inside the sliding window", () => {
    const l = new MemorySlidingWindow(10, W);
    for (let i = 0; i < 10; i++) l.check("k", at(50_000));
    // 25% into the next window: floor(0.75 × 10) = 7 still count, so 3 pass.
    const t = at(W + W / 4);
    expect(l.check("k", t)).toMatchObject({ success: true, remaining: 2 });
    expect(l.check("k", t)).toMatchObject({ success: true, remaining: 1 });
    expect(l.check("k", t)).toMatchObject({ success: true, remaining: 0 });
    const refused = l.check("k", t);
    expect(refused.success).toBe(false);
    // 3 in the current window, previous weight must drop below 7: (1 - f) × 10 < 7 → f > 0.3.
    expect(refused.reset).toBe(at(W + 0.3 * W + 1));
    expect(l.check("k", refused.reset - 1).success).toBe(false);
    expect(l.check("k", refused.reset)).toMatchObject({ success: true, remaining: 0 });
    // Two windows later nothing of the burst is left.
    expect(l.check("k", at(3 * W))).toMatchObject({ success: true, remaining: 9 });
  });

  it("gives a reset at which a request passes again, whatever the state", () => {
    const l = new MemorySlidingWindow(7, 10_000);
    const history: number[] = [];
    let t = at(0);
    let refusals = 0;
    for (let step = 0; step < 1_500; step++) {
      t += 37 * ((step % 11) + 1);
      history.push(t);
      const r = l.check("k", t);
      if (!r.success) {
        refusals++;
        expect(r.reset).toBeGreaterThan(t);
        // On a replica with the same history: still refused 1 ms before reset, accepted at reset.
        const replica = new MemorySlidingWindow(7, 10_000);
        for (const h of history) replica.check("k", h);
        expect(replica.check("k", r.reset - 1).success).toBe(false);
        expect(replica.check("k", r.reset).success).toBe(true);
      }
    }
    expect(refusals).toBeGreaterThan(100);
  });

  it("stays within its bound and forgets identifiers whose windows are over", () => {
    const l = new MemorySlidingWindow(3, W, 1_000);
    for (let i = 0; i < 20_000; i++) l.check(`id-${i}`, at(1_000));
    expect(l.size).toBeLessThanOrEqual(1_000);
    expect(l.size).toBeGreaterThan(800);
    // The most recent identifiers are kept, with their counts.
    expect(l.check("id-19999", at(1_000)).remaining).toBe(1);
    // Two windows later a single call sweeps everything that weighs nothing any more.
    l.check("fresh", at(2 * W + 5));
    expect(l.size).toBe(1);
  });

  it("keeps identifiers still inside the sliding window when it sweeps", () => {
    const l = new MemorySlidingWindow(3, W, 1_000);
    l.check("old", at(0));
    for (let i = 0; i < 3; i++) l.check("busy", at(W + 59_000));
    expect(l.size).toBe(2);
    // First call of the next window sweeps: "old" weighs nothing any more, "busy" still weighs floor(0.9998 × 3) = 2.
    expect(l.check("busy", at(2 * W + 10))).toMatchObject({ success: true, remaining: 0 });
    expect(l.size).toBe(1);
    expect(l.check("busy", at(2 * W + 10)).success).toBe(false);
  });

  it("is what createRateLimiter returns when no Redis is configured", async () => {
    const l = createRateLimiter(loadConfig({}), { prefix: "t", limit: 2, windowSeconds: 30 });
    expect(l.backend).toBe("memory");
    const a = await l.limit("x");
    const b = await l.limit("x");
    const c = await l.limit("x");
    expect([a.remaining, b.remaining, c.success]).toEqual([1, 0, false]);
    expect(a.reset).toBeGreaterThan(Date.now());
    expect(a.reset).toBeLessThanOrEqual(Date.now() + 30_000);
    await l.close?.();
  });
});
