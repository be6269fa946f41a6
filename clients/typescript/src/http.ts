// The client's HTTP layer on the standard `fetch`: the key in the Authorization header, and the retries. A 429 or a
// 503 is sent again after its Retry-After (at most maxRetryDelaySeconds; 1 s when absent), a network error after
// 1, 2, 4… seconds, at most maxRetries times; any other status throws at once. The key is kept in a private field:
// it shows in no error, no log and no inspection of the client.
import { CatalogApiError, CatalogNetworkError } from "./errors.js";

// What the onRetry callback is told before each wait: the request's path (with its query), the retry's number
// (from 1), the wait, and the status (429, 503) or the network error that caused it.
export interface RetryInfo {
  path: string;
  attempt: number;
  delaySeconds: number;
  status?: number;
  error?: unknown;
}

// How a client reaches the API.
export interface ClientOptions {
  /** The server, e.g. "http://127.0.0.1:3000" (the client adds /public/v1/...). */
  baseUrl: string;
  /** The API key, sent as `Authorization: Bearer`. */
  key: string;
  /** Default globalThis.fetch. */
  fetch?: typeof fetch;
  /** Default 5: retries of 429 and 503 (after Retry-After) and of network errors. */
  maxRetries?: number;
  /** Default 60: the longest wait before a retry. */
  maxRetryDelaySeconds?: number;
  /** Called before each wait for a retry (to log it: it never carries the key). */
  onRetry?: (r: RetryInfo) => void;
}

// A query's values: undefined ones and empty arrays are left out, arrays are sent comma-separated.
export type QueryValues = Record<string, string | number | boolean | readonly string[] | null | undefined>;

// What a request may add: its query, an abort signal, the media type it accepts, the encodings it accepts (fetch's
// own default when undefined: gzip, deflate, br).
export interface RequestOptions {
  query?: QueryValues;
  signal?: AbortSignal;
  accept?: string;
  acceptEncoding?: string;
}

// Retry-After in seconds: a number of seconds or an HTTP date; undefined when absent or unreadable.
export function parseRetryAfter(value: string | null): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

// Waits this many seconds; rejects with the signal's reason as soon as it aborts.
export function sleep(seconds: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, seconds * 1000);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

// The body of an answer that is not 2xx: its JSON, else its text, else null.
async function errorBody(response: Response): Promise<unknown> {
  const text = await response.text().catch(() => "");
  if (text === "") return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

// Sends the client's requests, with the key and the retries.
export class Http {
  readonly #key: string;
  readonly #fetch: typeof fetch;
  readonly #onRetry?: (r: RetryInfo) => void;
  readonly baseUrl: string;
  readonly maxRetries: number;
  readonly maxRetryDelaySeconds: number;

  constructor(options: ClientOptions) {
    if (!options.baseUrl) throw new TypeError("CatalogClient: baseUrl is required");
    if (!options.key) throw new TypeError("CatalogClient: key is required");
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.#key = options.key;
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#onRetry = options.onRetry;
    this.maxRetries = Math.max(0, options.maxRetries ?? 5);
    this.maxRetryDelaySeconds = Math.max(0, options.maxRetryDelaySeconds ?? 60);
  }

  // A path with its query string (what errors and onRetry name).
  pathWith(path: string, query: QueryValues = {}): string {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
      if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) continue;
      params.set(name, Array.isArray(value) ? value.join(",") : String(value));
    }
    const qs = params.toString();
    return qs ? `${path}?${qs}` : path;
  }

  // The wait before the n-th retry of a network error (or a cut stream): 1, 2, 4… seconds, at most the cap.
  backoffSeconds(attempt: number): number {
    return Math.min(2 ** Math.max(0, attempt - 1), this.maxRetryDelaySeconds);
  }

  // Tells onRetry, then waits (rejects when the signal aborts).
  async pause(info: RetryInfo, signal?: AbortSignal): Promise<void> {
    this.#onRetry?.(info);
    await sleep(info.delaySeconds, signal);
  }

  // A GET answered 2xx, after the retries; throws CatalogApiError, CatalogNetworkError, or the signal's reason.
  async get(path: string, options: RequestOptions = {}): Promise<Response> {
    const { signal } = options;
    const target = this.pathWith(path, options.query);
    const headers: Record<string, string> = {
      Authorization: `Bearer ${this.#key}`,
      Accept: options.accept ?? "application/json",
    };
    if (options.acceptEncoding) headers["Accept-Encoding"] = options.acceptEncoding;
    for (let attempt = 1; ; attempt++) {
      let response: Response;
      try {
        response = await this.#fetch(this.baseUrl + target, { headers, signal });
      } catch (error) {
        if (signal?.aborted) throw signal.reason ?? error;
        if (attempt > this.maxRetries) throw new CatalogNetworkError("GET", target, error);
        await this.pause(
          { path: target, attempt, delaySeconds: this.backoffSeconds(attempt), error },
          signal,
        );
        continue;
      }
      if (response.ok) return response;
      const retryAfterSeconds = parseRetryAfter(response.headers.get("retry-after"));
      const retryable = response.status === 429 || response.status === 503;
      if (!retryable || attempt > this.maxRetries) {
        const body = await errorBody(response);
        const requestId = response.headers.get("x-request-id") ?? undefined;
        throw new CatalogApiError({
          method: "GET",
          path: target,
          status: response.status,
          body,
          requestId,
          retryAfterSeconds,
        });
      }
      await response.body?.cancel().catch(() => undefined);
      const delaySeconds = Math.min(retryAfterSeconds ?? 1, this.maxRetryDelaySeconds);
      await this.pause({ path: target, attempt, delaySeconds, status: response.status }, signal);
    }
  }

  // A GET's JSON answer, after the retries; an answer cut before its body's end is a network error, sent again.
  async json<T>(path: string, options: RequestOptions = {}): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const response = await this.get(path, options);
      try {
        return JSON.parse(await response.text()) as T;
      } catch (error) {
        if (options.signal?.aborted) throw options.signal.reason ?? error;
        const target = this.pathWith(path, options.query);
        if (attempt > this.maxRetries) throw new CatalogNetworkError("GET", target, error);
        const delaySeconds = this.backoffSeconds(attempt);
        await this.pause({ path: target, attempt, delaySeconds, error }, options.signal);
      }
    }
  }
}
