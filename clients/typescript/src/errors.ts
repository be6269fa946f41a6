// The errors the client throws: an answer of the API that is not 2xx (after the retries), or no answer at all.
// Neither carries the API key: a message names the method, the path and what the server said.
import type { ErrorCode } from "./types.js";

// The catalogue's code for a status, when the body is not the API's (a proxy's page, an empty body).
function codeForStatus(status: number): ErrorCode {
  if (status === 400) return "PUBLIC_API_INVALID_QUERY";
  if (status === 401) return "PUBLIC_API_KEY_INVALID";
  if (status === 403) return "PUBLIC_API_INSUFFICIENT_SCOPE";
  if (status === 404) return "PUBLIC_API_NOT_FOUND";
  if (status === 405) return "PUBLIC_API_METHOD_NOT_ALLOWED";
  if (status === 408) return "PUBLIC_API_REQUEST_TIMEOUT";
  if (status === 410) return "PUBLIC_API_CURSOR_EXPIRED";
  if (status === 429) return "PUBLIC_API_RATE_LIMIT_EXCEEDED";
  if (status === 503) return "PUBLIC_API_UNAVAILABLE";
  return "PUBLIC_API_INTERNAL_ERROR";
}

// What a CatalogApiError is built from.
export interface ApiErrorInit {
  method: string;
  path: string;
  status: number;
  body: unknown;
  requestId?: string;
  retryAfterSeconds?: number;
}

// An answer that is not 2xx after the retries: its status, the error body's `code` (from the error catalogue; for a
// body that is not the API's, the catalogue's code of that status), the body, the X-Request-Id (quote it to
// support) and Retry-After in seconds when given.
export class CatalogApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly body: unknown;
  readonly requestId?: string;
  readonly retryAfterSeconds?: number;

  constructor(init: ApiErrorInit) {
    const fields =
      typeof init.body === "object" && init.body !== null ? (init.body as Record<string, unknown>) : {};
    const code = typeof fields.code === "string" ? (fields.code as ErrorCode) : codeForStatus(init.status);
    const said = typeof fields.message === "string" ? `: ${fields.message}` : "";
    super(`${init.method} ${init.path}: ${init.status} ${code}${said}`);
    this.name = "CatalogApiError";
    this.status = init.status;
    this.code = code;
    this.body = init.body;
    this.requestId = init.requestId ?? (typeof fields.requestId === "string" ? fields.requestId : undefined);
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}

// The server could not be reached after the retries (DNS, refused, reset, timeout, a stream cut on the way); `cause`
// is the last failure.
export class CatalogNetworkError extends Error {
  declare readonly cause: unknown;

  constructor(method: string, path: string, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(`${method} ${path}: no answer (${why})`, { cause });
    this.name = "CatalogNetworkError";
  }
}
