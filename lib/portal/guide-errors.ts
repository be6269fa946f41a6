import "server-only";
import { getConfig } from "@/lib/config";
import { previewOn } from "@/lib/preview";
import { currencies } from "@/lib/catalog/writes/create-product-schema";
import { writeIssue } from "@/lib/catalog/writes/write-issues";
import { CHANGES_ERROR_CODES, ERRORS, WRITE_ERROR_CODES, type ErrorCode } from "@/lib/public-api/api-errors";
import { IF_NONE_MATCH_MAX } from "@/lib/public-api/conditional";
import { WRITE_BODY_LIMIT } from "@/lib/public-api/json-body";
import { keysLink } from "./console-keys";

// What the guides say about errors, from the codes themselves (lib/public-api/api-errors.ts): the errors guide's
// table and example bodies, and the creating-products guide's write errors.

// The codes the guides document: those of V1 (the write preview's are not offered here yet).
type ReadErrorCode = Exclude<ErrorCode, (typeof WRITE_ERROR_CODES)[number]>;

const ERROR_CONDITIONS: Record<ReadErrorCode, string> = {
  PUBLIC_API_INVALID_QUERY:
    "A query parameter is unknown, repeated or invalid; the message names it and what is allowed.",
  PUBLIC_API_INVALID_PATH:
    "The path is not valid percent-encoding (`%ZZ`, a cut UTF-8 sequence), under `/public/` or `/media/`.",
  PUBLIC_API_KEY_MISSING:
    "No `Authorization` header, or `Bearer` without a key. A key sent in the query (`?api_key=`, `?key=`, `?access_token=`…) is never read: the message says to send it in the header instead. URLs end up in logs and browser histories, so roll a key that was sent in one.",
  PUBLIC_API_KEY_INVALID:
    "The key is malformed or unknown, or the request has two `Authorization` headers (neither is used).",
  PUBLIC_API_INVALID_HEADER: `A request header is invalid; the message names it: \`If-None-Match\` longer than ${IF_NONE_MATCH_MAX} characters.`,
  PUBLIC_API_KEY_EXPIRED: "The key has passed its expiry date.",
  PUBLIC_API_KEY_REVOKED: `The key was revoked in ${keysLink()}.`,
  PUBLIC_API_INSUFFICIENT_SCOPE: "The key is valid but lacks the endpoint's scope; the message names it.",
  PUBLIC_API_NOT_FOUND: "No such path, including the planned ones (`/products/{id}`, `/channels`).",
  PUBLIC_API_METHOD_NOT_ALLOWED: "A method other than GET, HEAD or OPTIONS (the `Allow` header lists them).",
  PUBLIC_API_CURSOR_EXPIRED:
    "Change feed only (preview `changes`): the events after the cursor `after` are no longer kept; export the resources again and follow the feed from the export's cursor.",
  PUBLIC_API_RANGE_NOT_SATISFIABLE: "Media files only: the `Range` header lies outside the file.",
  PUBLIC_API_REQUEST_TIMEOUT:
    "The request line and headers took longer than 10 seconds to arrive, or the whole request longer than 30; the connection is closed.",
  PUBLIC_API_HEADERS_TOO_LARGE:
    "The request line and headers together exceed 16 KB (a very long query string counts); the connection is closed.",
  PUBLIC_API_RATE_LIMIT_EXCEEDED: "Too many requests in the window; wait `retryAfter` seconds.",
  PUBLIC_API_INTERNAL_ERROR:
    "An unexpected error; nothing internal is disclosed. Quote the `requestId` to support.",
  PUBLIC_API_UNAVAILABLE:
    "The database or the rate limiter cannot be reached; retry after `Retry-After` seconds.",
};

const EXAMPLE_MESSAGES: Partial<Record<ErrorCode, string>> = {
  PUBLIC_API_INVALID_QUERY: "Paramètre « perPage » invalide : entier de 1 à 100 attendu (reçu « 1000 »).",
  PUBLIC_API_INSUFFICIENT_SCOPE: "La clé API n'a pas le scope « products:read » requis pour cette ressource.",
};

// The body of an error as the API sends it, with an example message and request id.
export function errorExample(code: ErrorCode): string {
  const e = ERRORS[code];
  const body: Record<string, unknown> = {
    statusCode: e.status,
    message: EXAMPLE_MESSAGES[code] ?? e.message,
    error: e.error,
    code,
    requestId: "4f7c1a9e-2b7d-4c1e-9a53-0f3d2e6b8c11",
  };
  if (code === "PUBLIC_API_RATE_LIMIT_EXCEEDED") body.retryAfter = 12;
  return JSON.stringify(body, null, 2);
}

const READ_CODES = (Object.keys(ERRORS) as ErrorCode[]).filter(
  (c): c is ReadErrorCode => !(WRITE_ERROR_CODES as readonly string[]).includes(c),
);

// The codes of the errors guide: V1's, and the change feed's while it is on.
function errorCodes(): ReadErrorCode[] {
  const changes = previewOn("changes", getConfig());
  return READ_CODES.filter((c) => changes || !(CHANGES_ERROR_CODES as readonly string[]).includes(c));
}

// Rows of the errors table (errors guide): one per error code.
export function errorRows(): string {
  return errorCodes()
    .map((c) => `| ${ERRORS[c].status} | \`${c}\` | ${ERRORS[c].error} | ${ERROR_CONDITIONS[c]} |`)
    .join("\n");
}

// One section per error code with its example body (errors guide).
export function errorExamples(): string {
  return errorCodes()
    .map(
      (c) =>
        `### ${ERRORS[c].status} ${ERRORS[c].error} — \`${c}\`\n\n${ERROR_CONDITIONS[c]}\n\n\`\`\`json\n${errorExample(c)}\n\`\`\``,
    )
    .join("\n\n");
}

// The codes the creating-products guide lists: the write preview's own, and the invalid header (its Idempotency-Key).
const WRITE_GUIDE_CODES = [...WRITE_ERROR_CODES, "PUBLIC_API_INVALID_HEADER"] as const;
type WriteGuideCode = (typeof WRITE_GUIDE_CODES)[number];

// When each code only the write preview answers is given (creating-products guide).
const WRITE_ERROR_CONDITIONS: Record<WriteGuideCode, string> = {
  PUBLIC_API_INVALID_BODY:
    "the body is not JSON or not an object, has an unknown field or an `organizationId`, names an unknown attribute, channel, option or media, or gives a value of the wrong type.",
  PUBLIC_API_INVALID_HEADER: "the `Idempotency-Key` header is empty, too long or not visible ASCII.",
  PUBLIC_API_FAMILY_NOT_FOUND:
    "the family is not one of your organization (whether it exists elsewhere or nowhere).",
  PUBLIC_API_CATEGORY_NOT_FOUND: "the category is not one of your organization.",
  PUBLIC_API_CONFLICT:
    "the `sku`, or the value of a `uniqueValue` attribute, is used by another product of your organization.",
  PUBLIC_API_IDEMPOTENCY_KEY_IN_USE:
    "a request with the same `Idempotency-Key` is still running; retry after `Retry-After` with the same key.",
  PUBLIC_API_PAYLOAD_TOO_LARGE: `the body is larger than ${WRITE_BODY_LIMIT / 1024} KB.`,
  PUBLIC_API_UNSUPPORTED_MEDIA_TYPE: "no `Content-Type`, or not `application/json`.",
  PUBLIC_API_UNPROCESSABLE:
    "an attribute the family requires is missing, or an attribute is not the family's.",
  PUBLIC_API_IDEMPOTENCY_KEY_REUSED:
    "the `Idempotency-Key` was used with another body in the last 24 hours; a new product needs a new key.",
};

// Rows of the write errors table (creating-products guide): one per write-preview code.
export function writeErrorRows(): string {
  return [...WRITE_GUIDE_CODES]
    .sort((a, b) => ERRORS[a].status - ERRORS[b].status)
    .map((c) => {
      const when = WRITE_ERROR_CONDITIONS[c];
      return `| ${ERRORS[c].status} | \`${c}\` | ${when.charAt(0).toUpperCase()}${when.slice(1)} |`;
    })
    .join("\n");
}

// A write refusal with its details (creating-products guide), in the validator's words (WRITE_ISSUES).
export function writeErrorExample(): string {
  const e = ERRORS.PUBLIC_API_INVALID_BODY;
  const body = {
    statusCode: e.status,
    message: e.message,
    error: e.error,
    code: "PUBLIC_API_INVALID_BODY",
    requestId: "4f7c1a9e-2b7d-4c1e-9a53-0f3d2e6b8c11",
    details: [
      writeIssue("values.colour", "UNKNOWN_ATTRIBUTE", "attribute", "colour"),
      writeIssue("values.price.EUR", "INVALID_PRECISION", "amount", "EUR", currencies().get("EUR")!),
    ],
  };
  return JSON.stringify(body, null, 2);
}
