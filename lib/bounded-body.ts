// A request body read up to a limit: refused from its Content-Length before a byte is read, else while reading (a
// chunked body has none), the stream cancelled at once. Neither the public API's writes nor the console buffer more.

// A body larger than the reader's limit (the caller answers 413).
export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`The request body is larger than ${limit} bytes`);
    this.name = "BodyTooLargeError";
  }
}

// The request's body, at most `limit` bytes; throws BodyTooLargeError (the rest is never read) past it.
export async function readBoundedBody(
  request: { headers: { get(name: string): string | null }; body: ReadableStream<Uint8Array> | null },
  limit: number,
): Promise<Buffer> {
  // The declared length first: nothing is read of a body that says it is too large.
  if (Number(request.headers.get("content-length") ?? "0") > limit) throw new BodyTooLargeError(limit);
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => {});
        throw new BodyTooLargeError(limit);
      }
      chunks.push(value);
    }
  }
  return Buffer.concat(chunks);
}
