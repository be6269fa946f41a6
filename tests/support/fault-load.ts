// Clients that keep requesting the API over HTTP while a test (tests/faults) or the bench (bench/faults.ts) breaks its
// back end: each client requests, records the answer and its time, pauses, and requests again, until stopped. And
// the figures of a run: when the first 503 came, the slowest answer during the fault, the first 200 after recovery.

// One client: a path, the key of each request (the same one: a key the runtime has cached; a new one each time: a
// key it must look up), and the pause between two requests.
export interface LoadClient {
  path: string;
  /** "cached": one key for every request; "fresh": a key never used before for each request. */
  keyKind: "cached" | "fresh";
  key: () => string;
  pauseMs?: number;
}

// One answer as a client saw it (times in ms since the epoch). status 0: no answer (the connection failed, or
// nothing came within the client's own bound).
export interface Answer {
  path: string;
  keyKind: LoadClient["keyKind"];
  start: number;
  end: number;
  status: number;
  headers: Record<string, string>;
  /** The parsed JSON body of an error answer (a 200's body is read, not kept). */
  body?: unknown;
  /** Why there was no answer (status 0). */
  failure?: string;
}

// A client's own bound on one request: far above the 2 s an answer may take, so that a hang is recorded, not waited
// for without end.
const CLIENT_TIMEOUT_MS = 10_000;

// Sends GET requests with the clients' keys to `base` until stop() is called; stop() waits for the requests under
// way and returns every answer in the order they started.
export function startLoad(base: string, clients: readonly LoadClient[]): { stop(): Promise<Answer[]> } {
  const answers: Answer[] = [];
  let running = true;
  const loop = async (c: LoadClient) => {
    while (running) {
      answers.push(await request(base, c));
      await new Promise((r) => setTimeout(r, c.pauseMs ?? 20));
    }
  };
  const loops = clients.map(loop);
  return {
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return answers.sort((a, b) => a.start - b.start);
    },
  };
}

async function request(base: string, c: LoadClient): Promise<Answer> {
  const start = Date.now();
  const base_ = { path: c.path, keyKind: c.keyKind, start };
  try {
    const res = await fetch(new URL(c.path, base), {
      headers: { authorization: `Bearer ${c.key()}` },
      signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
    });
    const text = await res.text();
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => (headers[k] = v));
    let body: unknown;
    if (res.status !== 200) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    return { ...base_, end: Date.now(), status: res.status, headers, body };
  } catch (err) {
    return { ...base_, end: Date.now(), status: 0, headers: {}, failure: String(err) };
  }
}

// The figures of one fault: `faultAt` when it began, `recoveredAt` when the back end was back (accepting connections,
// thawed, the lock released).
export interface FaultFigures {
  answers: number;
  byStatus: Record<string, number>;
  /** From the fault to the end of the first 503 that ended after it (ms); undefined: none. */
  first503Ms?: number;
  /** The slowest answer among those under way at any time during the fault (ms). */
  slowestDuringMs: number;
  /** The slowest answer of the whole run (ms). */
  slowestMs: number;
  /** From recovery to the end of the first 200 that started after it (ms); undefined: none. */
  first200AfterMs?: number;
  /** From recovery to the start of the last answer that was not a 200 (ms; 0: none after recovery). */
  lastFailureAfterMs: number;
}

// The figures of a run's answers around a fault.
export function faultFigures(answers: readonly Answer[], faultAt: number, recoveredAt: number): FaultFigures {
  const byStatus: Record<string, number> = {};
  for (const a of answers) byStatus[a.status] = (byStatus[a.status] ?? 0) + 1;
  const ms = (a: Answer) => a.end - a.start;
  const during = answers.filter((a) => a.end >= faultAt && a.start <= recoveredAt);
  const first503 = answers
    .filter((a) => a.end >= faultAt && a.status === 503)
    .sort((a, b) => a.end - b.end)[0];
  const first200 = answers
    .filter((a) => a.start >= recoveredAt && a.status === 200)
    .sort((a, b) => a.end - b.end)[0];
  const failuresAfter = answers.filter((a) => a.start >= recoveredAt && a.status !== 200);
  return {
    answers: answers.length,
    byStatus,
    first503Ms: first503 ? first503.end - faultAt : undefined,
    slowestDuringMs: Math.max(0, ...during.map(ms)),
    slowestMs: Math.max(0, ...answers.map(ms)),
    first200AfterMs: first200 ? first200.end - recoveredAt : undefined,
    lastFailureAfterMs: Math.max(0, ...failuresAfter.map((a) => a.start - recoveredAt)),
  };
}
