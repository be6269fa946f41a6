// The export (`GET /public/v1/export/{resource}`): NDJSON read as it comes, every item, then one end line. A stream
// cut on the way (no end line: a network error, a proxy's timeout) is resumed with `?after=<last id read>`, after
// 1, 2, 4… seconds, at most maxRetries times in a row without a new item. The end's cursor is the first request's
// X-Export-Cursor: a resumed request reads a later snapshot, and only the earliest cursor is safe to follow from.
import { CatalogNetworkError } from "./errors.js";
import type { Http } from "./http.js";
import type { ExportEnd, ExportResource, Item } from "./types.js";

// One value of an export: an item, or the end (the cursor to follow the feed from, the number of items yielded).
export type ExportLine = { item: Item } | { end: true; cursor: string; count: number };

// What an export takes: `after` to start after an id, `signal` to stop it, `compress` to ask for it gzipped.
//
// Uncompressed unless asked: Node's fetch decodes a long gzip stream far slower than the export comes (its
// decompressed chunks pile up and are joined again at each read), so a million products loaded 6 times slower
// gzipped than plain on loopback. Across a slow network, `compress: true` trades that CPU for a fifth of the bytes.
// Measured: bench/README.md#the-mirror-command
export interface ExportOptions {
  after?: string;
  signal?: AbortSignal;
  compress?: boolean;
}

// The complete lines in what was held plus a new chunk, and what is left after the last "\n" (a line whose end has
// not come yet). Empty lines are dropped.
export function splitLines(held: string, chunk: string): { lines: string[]; rest: string } {
  const parts = (held + chunk).split("\n");
  const rest = parts.pop() ?? "";
  return { lines: parts.filter((l) => l.trim() !== ""), rest };
}

function isEnd(value: unknown): value is ExportEnd {
  return typeof value === "object" && value !== null && (value as { end?: unknown }).end === true;
}

// Reads one chunk of a body; a failure (the connection reset, a gzip stream cut short) is returned, not thrown.
async function readChunk(
  reader: ReadableStreamDefaultReader<Uint8Array>,
): Promise<{ value?: Uint8Array; done: boolean; error?: unknown }> {
  try {
    const { value, done } = await reader.read();
    return { value, done };
  } catch (error) {
    return { done: true, error };
  }
}

// The export's lines, resumed across cuts; ends after the end line.
export async function* exportLines(
  http: Http,
  resource: ExportResource,
  options: ExportOptions = {},
): AsyncGenerator<ExportLine, void, undefined> {
  const { signal } = options;
  const path = `/public/v1/export/${encodeURIComponent(resource)}`;
  let after = options.after;
  let cursor: string | undefined;
  let first = true;
  let count = 0;
  let failures = 0;
  for (;;) {
    const response = await http.get(path, {
      query: { after },
      signal,
      accept: "application/x-ndjson",
      acceptEncoding: options.compress ? "gzip" : "identity",
    });
    if (first) cursor = response.headers.get("x-export-cursor") ?? undefined;
    first = false;
    if (!response.body) throw new CatalogNetworkError("GET", http.pathWith(path, { after }), "no body");
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let held = "";
    let progressed = false;
    let cut: unknown = "the stream stopped before its end line";
    try {
      for (;;) {
        const chunk = await readChunk(reader);
        if (chunk.error !== undefined) {
          if (signal?.aborted) throw signal.reason ?? chunk.error;
          cut = chunk.error;
          break;
        }
        const text = chunk.done ? decoder.decode() : decoder.decode(chunk.value, { stream: true });
        const { lines, rest } = splitLines(held, text);
        held = rest;
        // A stream ended cleanly may end with a line without its "\n": take it only if it is the end line.
        if (chunk.done && held.trim() !== "") {
          const last = parseOrUndefined(held);
          if (isEnd(last)) lines.push(held);
        }
        for (const line of lines) {
          const value = JSON.parse(line) as unknown;
          if (isEnd(value)) {
            yield { end: true, cursor: cursor ?? value.cursor, count };
            return;
          }
          const item = value as Item;
          count++;
          after = item.id;
          progressed = true;
          yield { item };
        }
        if (chunk.done) break;
      }
    } finally {
      // Stopped early (the caller's break, an abort, a cut): the connection is let go.
      await reader.cancel().catch(() => undefined);
    }
    failures = progressed ? 1 : failures + 1;
    const target = http.pathWith(path, { after });
    if (failures > http.maxRetries) throw new CatalogNetworkError("GET", target, cut);
    await http.pause(
      { path: target, attempt: failures, delaySeconds: http.backoffSeconds(failures), error: cut },
      signal,
    );
  }
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
