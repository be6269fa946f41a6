// The public API's admission (lib/public-api/admission.ts) alone: places at work, the queue's bound, the wait's
// bound, a client gone, the long poll's step outside, the 503 it answers, and no place lost after thousands of
// requests. The router's use of it over HTTP with a real database: tests/public-api/overload.test.ts.
import { describe, expect, it } from "vitest";
import { Admission, admissionSettings, overloadedReply } from "@/lib/public-api/admission";
import { toResponse } from "@/lib/public-api/reply";
import { PublicApiError } from "@/lib/public-api/api-errors";
import { loadConfig } from "@/lib/config";

// An admission on a clock the test moves (its timer never fires within a test: sweep is called by hand).
function admission(maxConcurrent: number, maxQueue: number, queueTimeoutMs = 1000) {
  let now = 0;
  const logged: string[] = [];
  const a = new Admission(
    { maxConcurrent, maxQueue, queueTimeoutMs },
    () => now,
    (line) => logged.push(line),
  );
  return {
    a,
    logged,
    advance: (ms: number) => {
      now += ms;
      a.sweep();
    },
  };
}

// The settled value of a promise now, or "pending".
async function state<T>(p: Promise<T>): Promise<T | "pending"> {
  return Promise.race([p, new Promise<"pending">((r) => setTimeout(() => r("pending"), 0))]);
}

describe("admission", () => {
  it("takes the settings from the configuration: four places per pooled connection unless API_MAX_CONCURRENT", () => {
    expect(admissionSettings(loadConfig({}))).toEqual({
      maxConcurrent: 40,
      maxQueue: 256,
      queueTimeoutMs: 1000,
    });
    expect(admissionSettings(loadConfig({ DB_POOL_SIZE: "3" })).maxConcurrent).toBe(12);
    expect(
      admissionSettings(
        loadConfig({ API_MAX_CONCURRENT: "7", API_MAX_QUEUE: "0", API_QUEUE_TIMEOUT_MS: "250" }),
      ),
    ).toEqual({ maxConcurrent: 7, maxQueue: 0, queueTimeoutMs: 250 });
    expect(() => loadConfig({ API_MAX_CONCURRENT: "0" })).toThrow(/API_MAX_CONCURRENT/);
    expect(() => loadConfig({ API_QUEUE_TIMEOUT_MS: "5" })).toThrow(/API_QUEUE_TIMEOUT_MS/);
  });

  it("admits at most maxConcurrent at once, queues at most maxQueue, and refuses the next at once", async () => {
    const { a } = admission(2, 3);
    expect(a.tryEnter()).toBe(true);
    expect(a.tryEnter()).toBe(true);
    expect(a.tryEnter()).toBe(false);
    const waits = [a.enter(), a.enter(), a.enter()];
    expect(await state(waits[0]!)).toBe("pending");
    // The queue is full: the fourth waiter is refused without waiting.
    expect(await a.enter()).toBe(false);
    expect(a.stats).toMatchObject({ active: 2, waiting: 3, refusedFull: 1 });
    // Places pass to the waiters in the order they came.
    a.leave();
    expect(await state(waits[0]!)).toBe(true);
    expect(await state(waits[1]!)).toBe("pending");
    a.leave();
    a.leave();
    expect(await Promise.all(waits)).toEqual([true, true, true]);
    expect(a.stats).toMatchObject({ active: 2, waiting: 0 });
    a.leave();
    a.leave();
    expect(a.stats).toMatchObject({ active: 0, waiting: 0 });
  });

  it("with maxQueue 0, refuses as soon as every place is taken", async () => {
    const { a } = admission(1, 0);
    expect(a.tryEnter()).toBe(true);
    expect(await a.enter()).toBe(false);
    a.leave();
    expect(await a.enter()).toBe(true);
  });

  it("refuses a request that waited past queueTimeoutMs, and only it", async () => {
    const { a, advance } = admission(1, 10, 1000);
    a.tryEnter();
    const first = a.enter();
    advance(600);
    a.leave(); // first admitted after 600 ms: the queue is empty again
    expect(await state(first)).toBe(true);
    const second = a.enter();
    advance(499);
    const third = a.enter();
    advance(500);
    expect(await state(second)).toBe("pending");
    advance(1);
    expect(await state(second)).toBe(false);
    expect(await state(third)).toBe("pending");
    expect(a.stats).toMatchObject({ active: 1, waiting: 1, refusedTimeout: 1, refusedLate: 0 });
  });

  it("refuses a newcomer on arrival once the oldest waiting has waited half the bound, and queues again after", async () => {
    const { a, advance } = admission(1, 100, 1000);
    a.tryEnter();
    const oldest = a.enter();
    advance(300);
    const second = a.enter();
    advance(199);
    expect(a.refuseNow()).toBe(false);
    advance(1);
    // The oldest has waited 500 ms: a newcomer is refused at once (counted), without joining the queue.
    expect(a.refuseNow()).toBe(true);
    expect(await state(a.enter())).toBe(false);
    expect(a.stats).toMatchObject({ waiting: 2, refusedLate: 2, refusedFull: 0 });
    // A place frees: the oldest takes it; the second has waited 200 ms, newcomers queue again.
    a.leave();
    expect(await state(oldest)).toBe(true);
    const third = a.enter();
    expect(await state(third)).toBe("pending");
    expect(a.stats).toMatchObject({ waiting: 2, refusedLate: 2 });
    a.leave();
    a.leave();
    expect(await state(second)).toBe(true);
    expect(await state(third)).toBe(true);
    expect(a.stats).toMatchObject({ active: 1, waiting: 0 });
  });

  it("wouldRefuse is a place check only: false while a place is free, whatever the queue", () => {
    const { a } = admission(2, 0);
    expect(a.wouldRefuse()).toBe(false);
    a.tryEnter();
    expect(a.wouldRefuse()).toBe(false);
    a.tryEnter();
    expect(a.wouldRefuse()).toBe(true);
    expect(a.refuseNow()).toBe(true); // maxQueue 0: full
    a.leave();
    expect(a.wouldRefuse()).toBe(false);
    expect(a.refuseNow()).toBe(false);
  });

  it("ends a wait past its bound on its own timer (real time)", async () => {
    const a = new Admission({ maxConcurrent: 1, maxQueue: 5, queueTimeoutMs: 50 }, Date.now, () => {});
    a.tryEnter();
    const started = performance.now();
    expect(await a.enter()).toBe(false);
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(45);
    expect(waited).toBeLessThan(1000);
    a.leave();
    expect(a.stats).toMatchObject({ active: 0, waiting: 0 });
  });

  it("takes a waiter out of the queue when its client goes away, and skips it", async () => {
    const { a } = admission(1, 2);
    a.tryEnter();
    const gone = new AbortController();
    const leaving = a.enter(gone.signal);
    const staying = a.enter();
    gone.abort();
    expect(await leaving).toBe(false);
    expect(a.stats).toMatchObject({ waiting: 1, gone: 1 });
    // Its place in the queue is free again: two may wait.
    const third = a.enter();
    a.leave();
    expect(await staying).toBe(true);
    a.leave();
    expect(await third).toBe(true);
    // A signal already aborted never queues; one aborted after admission changes nothing.
    const aborted = new AbortController();
    aborted.abort();
    expect(await a.enter(aborted.signal)).toBe(false);
    a.leave();
    const late = new AbortController();
    expect(await a.enter(late.signal)).toBe(true);
    late.abort();
    expect(a.stats).toMatchObject({ active: 1, waiting: 0, gone: 2 });
    a.leave();
    expect(a.stats.active).toBe(0);
  });

  it("gives the place back during a long poll's wait and takes one again after it", async () => {
    const { a } = admission(1, 2);
    a.tryEnter();
    let wake!: (v: string) => void;
    const polling = a.outside(() => new Promise<string>((r) => (wake = r)));
    // While it waits, another request works in its place.
    expect(a.tryEnter()).toBe(true);
    expect(await state(polling)).toBe("pending");
    wake("event");
    // It waits for the place again…
    expect(await state(polling)).toBe("pending");
    a.leave();
    expect(await polling).toBe("event");
    expect(a.stats).toMatchObject({ active: 1, waiting: 0 });
    // …and a wait that throws still takes its place back.
    await expect(a.outside(() => Promise.reject(new Error("lost")))).rejects.toThrow("lost");
    expect(a.stats.active).toBe(1);
    a.leave();
    expect(a.stats.active).toBe(0);
  });

  it("answers 503 to a long poll refused a place after its wait, and the count stays right", async () => {
    const { a, advance } = admission(1, 0);
    a.tryEnter();
    let wake!: () => void;
    const polling = a.outside(() => new Promise<void>((r) => (wake = r)));
    expect(a.tryEnter()).toBe(true);
    wake();
    const err = await polling.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PublicApiError);
    expect((err as PublicApiError).code).toBe("PUBLIC_API_UNAVAILABLE");
    expect((err as PublicApiError).extra.headers).toEqual({ "Retry-After": "5" });
    // The poll's own leave() and the other request's give back exactly the two places taken.
    a.leave();
    a.leave();
    advance(0);
    expect(a.stats).toMatchObject({ active: 0, waiting: 0 });
  });

  it("a long poll whose client went away during its wait does not queue again for a place", async () => {
    const { a } = admission(1, 5);
    a.tryEnter();
    const client = new AbortController();
    let wake!: () => void;
    const polling = a.outside(() => new Promise<void>((r) => (wake = r)), client.signal);
    expect(a.tryEnter()).toBe(true);
    client.abort();
    wake();
    await expect(polling).rejects.toBeInstanceOf(PublicApiError);
    expect(a.stats).toMatchObject({ active: 2, waiting: 0, gone: 1 });
    a.leave();
    a.leave();
    expect(a.stats.active).toBe(0);
  });

  it("answers the contract's 503 with Retry-After, its body exact; none for HEAD", async () => {
    const res = toResponse(overloadedReply("GET"));
    expect(res.status).toBe(503);
    const requestId = res.headers.get("x-request-id");
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get("retry-after")).toBe("5");
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(await res.json()).toEqual({
      statusCode: 503,
      message: "Service momentanément indisponible, réessayez plus tard.",
      error: "Service Unavailable",
      code: "PUBLIC_API_UNAVAILABLE",
      requestId,
    });
    const head = toResponse(overloadedReply("HEAD"));
    expect(head.status).toBe(503);
    expect(head.headers.get("retry-after")).toBe("5");
    expect(await head.text()).toBe("");
  });

  it("logs refusals at most once a minute, with how many", async () => {
    const { a, logged, advance } = admission(1, 0);
    a.tryEnter();
    for (let i = 0; i < 5; i++) await a.enter();
    expect(logged).toHaveLength(1);
    advance(60_000);
    await a.enter();
    expect(logged).toHaveLength(2);
    expect(logged[1]).toMatch(/overloaded: 5 request\(s\) answered 503/);
  });

  it("loses no place and keeps no waiter after thousands of requests that finish, fail, time out or go away", async () => {
    const a = new Admission({ maxConcurrent: 8, maxQueue: 64, queueTimeoutMs: 20 }, Date.now, () => {});
    let admitted = 0;
    let refused = 0;
    const one = async (i: number) => {
      const client = new AbortController();
      if (i % 7 === 0) setTimeout(() => client.abort(), i % 3);
      if (!a.tryEnter() && !(await a.enter(client.signal))) {
        refused++;
        return;
      }
      admitted++;
      try {
        await new Promise((r) => setTimeout(r, i % 5));
        if (i % 11 === 0) throw new Error("the handler failed");
        if (i % 13 === 0) await a.outside(() => new Promise((r) => setTimeout(r, 2)));
      } catch {
        // the router's finally gives the place back whatever happened
      } finally {
        a.leave();
      }
    };
    const batches = Array.from({ length: 20 }, (_, b) =>
      Promise.all(Array.from({ length: 250 }, (_, i) => one(b * 250 + i))),
    );
    await Promise.all(batches);
    expect(admitted + refused).toBe(5000);
    expect(admitted).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
    expect(a.stats).toMatchObject({ active: 0, waiting: 0 });
    // Every place is there to take again.
    for (let i = 0; i < 8; i++) expect(a.tryEnter()).toBe(true);
    expect(a.tryEnter()).toBe(false);
  });
});
