import { randomUUID } from "node:crypto";
import {
  CatalogWriteError,
  CountPendingError,
  CursorError,
  UnknownReferenceError,
  type WriteRefusal,
} from "@/lib/catalog/catalog-errors";
import { ERRORS, PublicApiError, errorBody, isUnavailableError, type ErrorCode } from "./api-errors";
import { baseHeaders } from "./headers";
import { invalidParamText } from "./query-messages";
import { toResponse, type Reply } from "./reply";

// Seconds a client is asked to wait after a 503 (database or limiter unreachable).
export const UNAVAILABLE_RETRY_AFTER = 5;

// The methods every read resource of the API allows: the Allow header of its 405 and of its preflight (V1's 405
// sends `Allow: GET, HEAD`; OPTIONS, answered on every resource for CORS, is in Access-Control-Allow-Methods).
export const READ_ALLOW = "GET, HEAD";
// The methods of /public/v1/products while the write preview is on.
export const WRITE_ALLOW = "GET, HEAD, POST";

// Turns anything thrown into an error answer of the contract's shape; internal detail is logged, never sent.
export function errorReply(err: unknown, requestId: string, headers: Headers, head = false): Reply {
  return errorAnswer(toPublicApiError(err, requestId), requestId, headers, head);
}

// The same as a Web Response (the media and the changelog's feeds, outside the router).
export function errorResponse(err: unknown, requestId: string, headers: Headers, head = false): Response {
  return toResponse(errorReply(err, requestId, headers, head));
}

// The contract's error for anything thrown (its code is what the request log records); internal detail is logged.
export function toPublicApiError(err: unknown, requestId: string): PublicApiError {
  let e: PublicApiError;
  if (err instanceof PublicApiError) e = err;
  else if (err instanceof UnknownReferenceError) e = invalidReference(err);
  else if (err instanceof CursorError) e = cursorRefused(err);
  else if (err instanceof CatalogWriteError)
    e = new PublicApiError(WRITE_REFUSALS[err.refusal], undefined, { details: err.issues });
  else if (isUnavailableError(err) || err instanceof CountPendingError) {
    console.error(`[public-api] ${requestId} back end unavailable:`, (err as Error).message);
    e = new PublicApiError("PUBLIC_API_UNAVAILABLE", undefined, {
      headers: { "Retry-After": String(UNAVAILABLE_RETRY_AFTER) },
    });
  } else {
    console.error(`[public-api] ${requestId} internal error:`, err);
    e = new PublicApiError("PUBLIC_API_INTERNAL_ERROR");
  }
  return e;
}

// The answer of a contract error: its headers (401's WWW-Authenticate, 405's Allow) and body.
export function errorAnswer(e: PublicApiError, requestId: string, headers: Headers, head = false): Reply {
  for (const [k, v] of Object.entries(e.extra.headers ?? {})) headers.set(k, v);
  if (e.status === 401) headers.set("WWW-Authenticate", 'Bearer realm="public-api"');
  if (e.status === 405 && !headers.has("Allow")) headers.set("Allow", READ_ALLOW);
  return { status: e.status, headers, body: head ? null : JSON.stringify(errorBody(e, requestId)) };
}

// An answer given before any key is read (404, 405, a malformed path, a request with two Authorization headers): the
// error shape, a new request id. A 405 names the resource's methods (`allow`: the reads' by default) in its message
// and its Allow header.
export function plainError(
  code:
    | "PUBLIC_API_NOT_FOUND"
    | "PUBLIC_API_METHOD_NOT_ALLOWED"
    | "PUBLIC_API_INVALID_PATH"
    | "PUBLIC_API_KEY_INVALID",
  method: string,
  allow = READ_ALLOW,
): Reply {
  const requestId = randomUUID();
  const headers = baseHeaders(requestId);
  const notAllowed = code === "PUBLIC_API_METHOD_NOT_ALLOWED";
  if (notAllowed) headers.set("Allow", allow);
  const message = notAllowed
    ? `Méthode ${method} non autorisée sur cette ressource. Méthodes autorisées : ${allow}.`
    : ERRORS[code].message;
  return errorReply(new PublicApiError(code, message), requestId, headers, method === "HEAD");
}

// The catalog's refusals of a write, each to its code (and so its status).
const WRITE_REFUSALS: Record<WriteRefusal, ErrorCode> = {
  invalid: "PUBLIC_API_INVALID_BODY",
  family_not_found: "PUBLIC_API_FAMILY_NOT_FOUND",
  category_not_found: "PUBLIC_API_CATEGORY_NOT_FOUND",
  conflict: "PUBLIC_API_CONFLICT",
  unprocessable: "PUBLIC_API_UNPROCESSABLE",
};

// The catalog's refusal of a filter that names what the organization does not have: a 400 naming the parameter.
function invalidReference(err: UnknownReferenceError): PublicApiError {
  return new PublicApiError(
    "PUBLIC_API_INVALID_QUERY",
    `Paramètre « ${err.field} » invalide : canal inconnu pour cette organisation (reçu « ${err.value.slice(0, 60)} »).`,
  );
}

// The change feed's refusal of a cursor: 410 when the events after it were pruned (the client exports again and
// follows from the export's cursor), a 400 naming `after` when it is past the organization's last event (a cursor of
// another organization, or made up).
export function cursorRefused(err: CursorError): PublicApiError {
  if (err.reason === "expired") return new PublicApiError("PUBLIC_API_CURSOR_EXPIRED");
  return new PublicApiError(
    "PUBLIC_API_INVALID_QUERY",
    invalidParamText(
      "after",
      `curseur inconnu pour cette organisation, au-delà du dernier événement de son flux (${err.bound})`,
      err.cursor,
    ),
  );
}
