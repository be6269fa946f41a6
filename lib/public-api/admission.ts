// Admission control of the public API under overload: at most `maxConcurrent` requests at work at once, at most
// `maxQueue` waiting for a place, none waiting longer than `queueTimeoutMs`. A request refused (the queue full or late, its
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
// A queue is for bursts, not for a load past what the process serves. Under an offered load twice the saturation
// (bench:overload) a queue that refuses only when full stays full: every request served waits as long as the whole
// queue takes to drain, every other is refused after it waited its whole bound, and clients with a bounded number of
// connections (an integrator's pool) run out of them and queue on their side. So a newcomer is refused on arrival
// as soon as the oldest request waiting has waited half the bound (it would likely wait past it too): the queue
// holds about half a bound's worth of requests, those served waited that long at most, the excess is refused at
// once (as CoDel judges a queue by how long its oldest has waited, not by its length: Nichols and Jacobson,
// "Controlling Queue Delay", ACM Queue 10(5), 2012). Refused on arrival, a request costs npm start's host almost
// nothing (publicApi.refusesNow, lib/server/api-host.ts).
//
// Not a library: p-limit bounds neither the queue nor the wait; p-queue's `timeout` bounds a task's run (which must
// not be cut: its statements go on) rather than its wait, leaves the queue's bound to the caller, and allocates a
// promise, closures and an event per task. Here the fast path, a place free, is a comparison and an increment; only a
// request that waits costs an entry of a linked list and a promise, and one timer per queue (not per request) ends
// the waits past their bound.
import { randomUUID } from "node:crypto";
import type { Config } from "@/lib/config";
import { PublicApiError, errorBody } from "./api-errors";
import { UNAVAILABLE_RETRY_AFTER, errorAnswer } from "./error-response";
import { baseHeaders } from "./headers";
import type { Reply } from "./reply";

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
  /** When it joined the queue. */
  since: number;
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
  /** Requests refused on arrival: the oldest waiting had already waited half of queueTimeoutMs. */
  refusedLate: number;
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
  private refusedLate = 0;
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
   * Whether a request arriving now is refused at once, counted if so: every place taken, and the queue full or its
   * oldest waiting for half of queueTimeoutMs already (a newcomer would likely wait past the bound).
   * A host calls it before building the request (npm start's: lib/server/api-host.ts), when `wouldRefuse()`.
   */
  refuseNow(now = this.clock()): boolean {
    if (this.active < this.settings.maxConcurrent) return false;
    if (this.waiting >= this.settings.maxQueue) {
      this.refused("full");
      return true;
    }
    if (this.head && now - this.head.since >= this.settings.queueTimeoutMs / 2) {
      this.refused("late");
      return true;
    }
    return false;
  }

  /** Whether a request may be refused now (every place taken): a comparison, for the hosts' fast path. */
  wouldRefuse(): boolean {
    return this.active >= this.settings.maxConcurrent;
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
    const now = this.clock();
    if (this.refuseNow(now)) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const w: Waiter = {
        since: now,
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
    while (this.head && this.head.since + this.settings.queueTimeoutMs <= now) {
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
      refusedLate: this.refusedLate,
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

  private refused(why: "full" | "late" | "timeout"): void {
    if (why === "full") this.refusedFull++;
    else if (why === "late") this.refusedLate++;
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

// The answer to a request refused by the admission as plain parts (a new request id; no key was read, so no
// rate-limit headers): its status, its headers as a flat list of names and values (node's writeHead takes it), its
// body (none for HEAD). npm start's host writes it without building a Web Request, which cost ten times the refusal
// itself (bench:overload); overloadedReply gives the same answer to the router.
export function overloadedAnswer(method: string): {
  status: number;
  headers: string[];
  body: string | undefined;
} {
  const requestId = randomUUID();
  const t = (template ??= overloadedTemplate());
  const headers: string[] = [];
  for (const [name, value] of t.headers) headers.push(name, value === PLACEHOLDER_ID ? requestId : value);
  return {
    status: t.status,
    headers,
    body: method === "HEAD" ? undefined : t.body.replace(PLACEHOLDER_ID, requestId),
  };
}

// The answer to a request refused by the admission, as the router gives it.
export function overloadedReply(method: string): Reply {
  const { status, headers, body } = overloadedAnswer(method);
  const pairs: [string, string][] = [];
  for (let i = 0; i < headers.length; i += 2) pairs.push([headers[i]!, headers[i + 1]!]);
  return { status, headers: new Headers(pairs), body: body ?? null };
}

// The refusal's answer built once, the contract's way (errorAnswer: the error's headers and body), with a request id
// that each answer replaces.
const PLACEHOLDER_ID = "00000000-0000-4000-8000-000000000000";
let template: { status: number; headers: [string, string][]; body: string } | undefined;
function overloadedTemplate(): { status: number; headers: [string, string][]; body: string } {
  const e = overloadedError();
  const response = errorAnswer(e, PLACEHOLDER_ID, baseHeaders(PLACEHOLDER_ID));
  const headers: [string, string][] = [];
  response.headers.forEach((value, name) => headers.push([name, value]));
  return { status: e.status, headers, body: JSON.stringify(errorBody(e, PLACEHOLDER_ID)) };
}
