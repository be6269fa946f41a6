// An answer of the public API as the parts a host writes: its status, its headers and its body (bytes or a string
// sent at once, a stream sent as it is read: an export's lines; none for HEAD and bodiless answers). The router
// answers with one: npm start's host writes it to node:http as it is (lib/server/api-host.ts), Next.js' route files
// and the tests get it as a Web Response (toResponse). A Response built and read back for every answer cost the
// host about a tenth of its CPU under the big catalog's mix (undici's body, its stream and its reader).
// Measured: bench/README.md#the-api-host
export interface Reply {
  status: number;
  /** Sent in their iteration order (undici's: names lowercased and sorted), as a Response's are. */
  headers: Headers;
  body: Uint8Array<ArrayBuffer> | string | ReadableStream<Uint8Array> | null;
}

// The Web Response of a reply.
export function toResponse(reply: Reply): Response {
  return new Response(reply.body, { status: reply.status, headers: reply.headers });
}
