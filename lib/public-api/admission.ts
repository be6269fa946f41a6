// Admission control of the public API (issue 27: overload): at most `maxConcurrent` requests at work at once, at most
// `maxQueue` waiting for a place, none waiting longer than `queueTimeoutMs`. A request refused (the queue full, its
// wait over, or its client gone) is answered at once with 503 PUBLIC_API_UNAVAILABLE and Retry-After, so that under
// an offered load past what the process can serve the excess is shed by a bounded queue instead of piling up in an
// unbounded one (node's sockets, pg-pool's waiters) until every answer is late and memory grows.
//
// The router (lib/public-api/router.ts) admits every operation but the OpenAPI document, for both hosts (npm start's
// server and Next.js' route files). A request holds its place until its handler has returned its Response (the
// body of a JSON answer is written from memory after that; an export's stream is bounded by EXPORTS_PER_KEY), and
// keeps it if its client goes away while it works: its database work goes on, so its place stays taken until that
// ends (a statement is bounded by DB_STATEMENT_TIMEOUT_MS). A request still waiting whose client goes away leaves the
// queue at once. A long poll of the change feed gives its place back while it waits for an event (`outside`).
//
// Not a library: p-limit bounds neither the queue nor the wait; p-queue's `timeout` bounds a task's run (which must
// not be cut: its statements go on) rather than its wait, leaves the queue's bound to the caller, and allocates a
// promise, closures and an event per task. Here the fast path, a place free, is a comparison and an increment; only a
// request that waits costs an entry of a linked list and a promise, and one timer per queue (not per request) ends
// the waits past their bound.
import { randomUUID } from "node:crypto";
import type { Config } from "@/lib/config";
import { PublicApiError } from "./api-errors";
import { UNAVAILABLE_RETRY_AFTER, errorAnswer } from "./error-response";
import { baseHeaders } from "./headers";

export interface AdmissionSettings {
  /** Requests at work at once. */
  maxConcurrent: number;
  /** Requests waiting for a place at most; 0: none wait (refused at once when every place is taken). */
  maxQueue: number;
  /** Longest a request waits for a place (ms). */
  queueTimeoutMs: number;
}

// Requests at work at once by default, per connection of the database's pool: a request holds at most one
// connection at a time (two while a list's first count runs beside its page), and spends part of its time off the
// database (the key cache, the page cache, JSON), so four per connection keep the pool busy without a queue in
// pg-pool longer than a connection's wait (DB_CONNECT_TIMEOUT_MS bounds each waiter there). With the default pool
// (10) that is 40 places: page 1 at saturation (the bench's 32 connections) never waits in this queue.
export const CONCURRENT_PER_CONNECTION = 4;

// The settings of a configuration (API_MAX_CONCURRENT unset: CONCURRENT_PER_CONNECTION per pooled connection).
export function admissionSettings(config: Config): AdmissionSettings {
  return {
    maxConcurrent: config.API_MAX_CONCURRENT ?? CONCURRENT_PER_CONNECTION * config.DB_POOL_SIZE,
    maxQueue: config.API_MAX_QUEUE,
    queueTimeoutMs: config.API_QUEUE_TIMEOUT_MS,
  };
}

// A request waiting for a place: an entry of the queue's doubly linked list (removed in O(1) when its client goes
// away), settled once: true when it got a place, false when refused.
interface Waiter {
  deadline: number;
  settle: (admitted: boolean) => void;
  prev: Waiter | undefined;
  next: Waiter | undefined;
  /** Still in the queue (not admitted, refused or gone). */
  queued: boolean;
  abort?: { signal: AbortSignal; listener: () => void };
}

// What the admission has done since it was built (tests, the overload bench's report through the log).
export interface AdmissionStats {
  /** Requests at work now. */
  active: number;
  /** Requests waiting now. */
  waiting: number;
  /** Requests refused: the queue was full. */
  refusedFull: number;
  /** Requests refused: they waited past queueTimeoutMs. */
  refusedTimeout: number;
  /** Requests that left the queue because their client went away. */
  gone: number;
}

// How often the waits are checked against their bound: a refusal comes at most this long after queueTimeoutMs.
const SWEEP_MS = 25;
// At most one line in the log per this period while requests are refused (not one per request under overload).
const LOG_EVERY_MS = 60_000;

export class Admission {
  private active = 0;
  private waiting = 0;
  private head: Waiter | undefined;
  private tail: Waiter | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private refusedFull = 0;
  private refusedTimeout = 0;
  private gone = 0;
  private loggedAt = -Infinity;
  private refusedSinceLog = 0;

  constructor(
    readonly settings: AdmissionSettings,
    private readonly clock: () => number = Date.now,
    private readonly log: (line: string) => void = (line) => console.warn(line),
  ) {}

  /** Takes a place if one is free (the fast path: no allocation). */
  tryEnter(): boolean {
    if (this.active >= this.settings.maxConcurrent) return false;
    this.active++;
    return true;
  }

  /**
   * Waits for a place (after tryEnter failed): true once taken, false when refused (the queue full, the wait past
   * queueTimeoutMs, or `signal` aborted: the client went away). A refused request holds no place.
   */
  enter(signal?: AbortSignal): Promise<boolean> {
    if (this.tryEnter()) return Promise.resolve(true);
    if (signal?.aborted) {
      this.gone++;
      return Promise.resolve(false);
    }
    if (this.waiting >= this.settings.maxQueue) {
      this.refused("full");
      return Promise.resolve(false);
    }
    return new Promise<boolean>((resolve) => {
      const w: Waiter = {
        deadline: this.clock() + this.settings.queueTimeoutMs,
        settle: resolve,
        prev: this.tail,
        next: undefined,
        queued: true,
      };
      if (this.tail) this.tail.next = w;
      else this.head = w;
      this.tail = w;
      this.waiting++;
      if (signal) {
        const listener = () => {
          if (!w.queued) return;
          this.unlink(w);
          this.gone++;
          w.settle(false);
        };
        signal.addEventListener("abort", listener, { once: true });
        w.abort = { signal, listener };
      }
      if (!this.timer) {
        this.timer = setInterval(() => this.sweep(), SWEEP_MS);
        this.timer.unref();
      }
    });
  }

  /** Gives a place back: the first request waiting takes it, else it is free. */
  leave(): void {
    const w = this.head;
    if (!w) {
      if (this.active > 0) this.active--;
      return;
    }
    // The place passes to the waiter as it is (active unchanged).
    this.unlink(w);
    w.settle(true);
  }

  /**
   * Runs `wait` (work that holds no connection: a long poll's wait for an event) without the caller's place, and
   * takes a place again after it (`signal`: the client's; gone, it does not queue again). Refused then, the caller
   * gets a 503 (PublicApiError) and still holds a place, which its own leave() gives back: the count stays right
   * whatever happens.
   */
  async outside<T>(wait: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    this.leave();
    let outcome: { ok: true; value: T } | { ok: false; err: unknown };
    try {
      outcome = { ok: true, value: await wait() };
    } catch (err) {
      outcome = { ok: false, err };
    }
    if (!(await this.enter(signal))) {
      this.active++;
      throw overloadedError();
    }
    if (!outcome.ok) throw outcome.err;
    return outcome.value;
  }

  /** Refuses the waits past their bound (the timer's work; tests call it with a time of their own). */
  sweep(now = this.clock()): void {
    // Waits all have the same bound, so the oldest come first: only the head is looked at.
    while (this.head && this.head.deadline <= now) {
      const w = this.head;
      this.unlink(w);
      this.refused("timeout");
      w.settle(false);
    }
  }

  get stats(): AdmissionStats {
    return {
      active: this.active,
      waiting: this.waiting,
      refusedFull: this.refusedFull,
      refusedTimeout: this.refusedTimeout,
      gone: this.gone,
    };
  }

  /** Stops the timer (a runtime closed); requests still waiting are refused. */
  close(): void {
    this.sweep(Infinity);
  }

  private unlink(w: Waiter): void {
    w.queued = false;
    if (w.prev) w.prev.next = w.next;
    else this.head = w.next;
    if (w.next) w.next.prev = w.prev;
    else this.tail = w.prev;
    w.prev = w.next = undefined;
    this.waiting--;
    if (w.abort) w.abort.signal.removeEventListener("abort", w.abort.listener);
    if (!this.head && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private refused(why: "full" | "timeout"): void {
    if (why === "full") this.refusedFull++;
    else this.refusedTimeout++;
    this.refusedSinceLog++;
    const now = this.clock();
    if (now - this.loggedAt < LOG_EVERY_MS) return;
    this.log(
      `[public-api] overloaded: ${this.refusedSinceLog} request(s) answered 503 since the last report ` +
        `(${this.settings.maxConcurrent} at work, ${this.settings.maxQueue} waiting at most, ` +
        `${this.settings.queueTimeoutMs} ms wait at most)`,
    );
    this.loggedAt = now;
    this.refusedSinceLog = 0;
  }
}

// The error of a request refused by the admission: the database-unavailable 503's code, message and Retry-After.
export function overloadedError(): PublicApiError {
  return new PublicApiError("PUBLIC_API_UNAVAILABLE", undefined, {
    headers: { "Retry-After": String(UNAVAILABLE_RETRY_AFTER) },
  });
}

// The answer to a request refused by the admission (a new request id; no key was read, so no rate-limit headers).
export function overloadedResponse(method: string): Response {
  const requestId = randomUUID();
  return errorAnswer(overloadedError(), requestId, baseHeaders(requestId), method === "HEAD");
}
