// What the API reads of a request: its method, its URL, its headers by name, the signal aborted when its client goes
// away, and a write's body. A Web Request is one (Next.js' route files and the tests hand theirs); npm start's host
// hands a lighter one for a read (lib/server/api-host.ts): a Web Request cost it a URL parse, an AbortController and
// a Headers of its own per request. Measured: bench/README.md#the-api-host
export interface ApiRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: { get(name: string): string | null };
  readonly signal: AbortSignal;
  readonly body: ReadableStream<Uint8Array> | null;
}
