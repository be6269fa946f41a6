// The body of an export: the NDJSON lines of one snapshot, read only as fast as its client takes them, then the end
// line with the snapshot's change-feed cursor.
import type { ExportEnd, ExportSnapshot } from "@/lib/catalog/feed/export";

const encoder = new TextEncoder();

// The body of an export: each batch of the snapshot as lines, read only when the client has taken the one before
// (no queue: highWaterMark 0, so memory stays one batch whatever the resource's size), then the end line. The
// snapshot ends when the last line is read, when the client goes away (cancel), when it reads nothing for `idleMs`,
// or when a batch fails: then the stream errors without its end line (the status is already sent; the client knows
// by the missing line) and the failure is logged.
export function ndjsonStream(
  snapshot: ExportSnapshot,
  opts: { idleMs: number; requestId: string; onEnd: () => void },
): ReadableStream<Uint8Array> {
  let count = 0;
  let ended = false;
  let idle: ReturnType<typeof setTimeout> | undefined;
  // The key's slot is given back at once, its connection when the snapshot's transaction has ended: a client that
  // cuts an export and starts the next one is not refused while the first one's rollback runs.
  const end = async (error?: unknown) => {
    if (ended) return;
    ended = true;
    clearTimeout(idle);
    opts.onEnd();
    await snapshot.close(error);
  };
  // The idle guard, armed whenever the stream waits for its reader.
  const watch = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    idle = setTimeout(() => {
      console.error(
        `[public-api] ${opts.requestId} export ended: its client read nothing for ${opts.idleMs} ms`,
      );
      void end().then(() => controller.error(new Error("export idle")));
    }, opts.idleMs);
    idle.unref?.();
  };
  return new ReadableStream<Uint8Array>(
    {
      start: watch,
      async pull(controller) {
        clearTimeout(idle);
        try {
          const lines = await snapshot.next();
          if (ended) return;
          // The snapshot ends before the client gets the end line: by then its slot and connection are free.
          if (lines.length === 0) {
            await end();
            const last: ExportEnd = { end: true, cursor: snapshot.cursor, count };
            controller.enqueue(encoder.encode(`${JSON.stringify(last)}\n`));
            controller.close();
            return;
          }
          count += lines.length;
          controller.enqueue(encoder.encode(`${lines.join("\n")}\n`));
          watch(controller);
        } catch (err) {
          // A batch that fails because the client went away meanwhile (cancel ended the snapshot) is no failure.
          if (ended) return;
          console.error(`[public-api] ${opts.requestId} export cut after ${count} items:`, err);
          await end(err);
          controller.error(err);
        }
      },
      cancel: () => end(),
    },
    { highWaterMark: 0 },
  );
}
