// Stopping the mirror without waiting on a read that never ends. Node 20's fetch, aborted just as an answer's headers
// have come, sometimes leaves the body's next read pending for ever (seen about once in ten on loopback, with fetch
// alone as with the client): the mirror waits for what it reads only until a moment after its signal aborts, then
// goes on as stopped (the load's transaction rolls back; the process exits, and the pending read with it).
import { MirrorStopped } from "./failures";

// How long a read may still settle by itself after the signal aborts.
export const ABORT_GRACE_MS = 1_000;

// `p`'s outcome, or MirrorStopped when the signal has aborted and `p` has not settled ABORT_GRACE_MS later.
export function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => {
      timer = setTimeout(() => reject(new MirrorStopped()), ABORT_GRACE_MS);
      timer.unref?.();
    };
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (value) => {
        done();
        resolve(value);
      },
      (err: unknown) => {
        done();
        reject(err);
      },
    );
  });
}

// The values of an async iterable, each awaited with untilAborted; stopped early, the iterable is told (return),
// without waiting on it.
export async function* abortable<T>(
  iterable: AsyncIterable<T>,
  signal: AbortSignal,
): AsyncGenerator<T, void> {
  const it = iterable[Symbol.asyncIterator]();
  let finished = false;
  try {
    for (;;) {
      const next = await untilAborted(it.next(), signal);
      if (next.done) {
        finished = true;
        return;
      }
      yield next.value;
    }
  } finally {
    if (!finished) void it.return?.().catch(() => undefined);
  }
}
