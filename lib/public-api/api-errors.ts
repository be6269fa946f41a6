import { z } from "zod";
import { WRITE_ISSUES } from "@/lib/catalog/writes/write-issues";

// Every error the public API can answer, one table: status, stable code, HTTP reason phrase, default French message.
export const ERRORS = {
  PUBLIC_API_INVALID_QUERY: {
    status: 400,
    error: "Bad Request",
    message: "Paramètres de requête invalides.",
  },
  PUBLIC_API_INVALID_PATH: {
    status: 400,
    error: "Bad Request",
    message: "Chemin de requête invalide : encodage en pourcentage incorrect.",
  },
  PUBLIC_API_INVALID_BODY: {
    status: 400,
    error: "Bad Request",
    message: "Corps de requête invalide.",
  },
  PUBLIC_API_INVALID_HEADER: {
    status: 400,
    error: "Bad Request",
    message: "En-tête de requête invalide.",
  },
  PUBLIC_API_KEY_MISSING: { status: 401, error: "Unauthorized", message: "Clé API manquante." },
  PUBLIC_API_KEY_INVALID: { status: 401, error: "Unauthorized", message: "Clé API invalide." },
  PUBLIC_API_KEY_EXPIRED: { status: 401, error: "Unauthorized", message: "Clé API expirée." },
  PUBLIC_API_KEY_REVOKED: { status: 401, error: "Unauthorized", message: "Clé API révoquée." },
  PUBLIC_API_INSUFFICIENT_SCOPE: {
    status: 403,
    error: "Forbidden",
    message: "La clé API n'a pas le scope requis pour cette ressource.",
  },
  PUBLIC_API_NOT_FOUND: { status: 404, error: "Not Found", message: "Ressource introuvable." },
  PUBLIC_API_FAMILY_NOT_FOUND: {
    status: 404,
    error: "Not Found",
    message: WRITE_ISSUES.NOT_FOUND.family(),
  },
  PUBLIC_API_CATEGORY_NOT_FOUND: {
    status: 404,
    error: "Not Found",
    message: WRITE_ISSUES.NOT_FOUND.category(),
  },
  PUBLIC_API_METHOD_NOT_ALLOWED: {
    status: 405,
    error: "Method Not Allowed",
    message: "Méthode non autorisée sur cette ressource.",
  },
  PUBLIC_API_CONFLICT: {
    status: 409,
    error: "Conflict",
    message: "Une valeur unique est déjà utilisée dans l'organisation.",
  },
  PUBLIC_API_IDEMPOTENCY_KEY_IN_USE: {
    status: 409,
    error: "Conflict",
    message:
      "Une requête avec cette clé d'idempotence est encore en cours : réessayez dans quelques secondes avec la même clé.",
  },
  PUBLIC_API_PAYLOAD_TOO_LARGE: {
    status: 413,
    error: "Payload Too Large",
    message: "Corps de requête trop volumineux.",
  },
  PUBLIC_API_UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    error: "Unsupported Media Type",
    message: "Type de contenu non pris en charge : envoyez Content-Type: application/json.",
  },
  PUBLIC_API_CURSOR_EXPIRED: {
    status: 410,
    error: "Gone",
    message:
      "Les événements qui suivent ce curseur ne sont plus conservés : réexportez la ressource (GET /public/v1/export/{resource}) puis suivez le flux à partir du curseur de l'export.",
  },
  PUBLIC_API_RANGE_NOT_SATISFIABLE: {
    status: 416,
    error: "Range Not Satisfiable",
    message: "Plage d'octets invalide.",
  },
  PUBLIC_API_UNPROCESSABLE: {
    status: 422,
    error: "Unprocessable Entity",
    message: "Les données ne respectent pas les règles du catalogue.",
  },
  PUBLIC_API_IDEMPOTENCY_KEY_REUSED: {
    status: 422,
    error: "Unprocessable Entity",
    message:
      "Cette clé d'idempotence a déjà servi pour une autre requête : utilisez une nouvelle clé pour un nouveau corps.",
  },
  PUBLIC_API_REQUEST_TIMEOUT: {
    status: 408,
    error: "Request Timeout",
    message: "Requête reçue trop lentement.",
  },
  PUBLIC_API_HEADERS_TOO_LARGE: {
    status: 431,
    error: "Request Header Fields Too Large",
    message: "En-têtes de requête trop volumineux (ligne de requête comprise).",
  },
  PUBLIC_API_RATE_LIMIT_EXCEEDED: {
    status: 429,
    error: "Too Many Requests",
    message: "Limite de requêtes dépassée.",
  },
  PUBLIC_API_INTERNAL_ERROR: {
    status: 500,
    error: "Internal Server Error",
    message: "Erreur interne du serveur.",
  },
  PUBLIC_API_UNAVAILABLE: {
    status: 503,
    error: "Service Unavailable",
    message: "Service momentanément indisponible, réessayez plus tard.",
  },
} as const satisfies Record<string, { status: number; error: string; message: string }>;

// A stable error code of the public API.
export type ErrorCode = keyof typeof ERRORS;

// The codes only the write preview answers: the V1 document (switch off) does not list them.
export const WRITE_ERROR_CODES = [
  "PUBLIC_API_INVALID_BODY",
  "PUBLIC_API_IDEMPOTENCY_KEY_IN_USE",
  "PUBLIC_API_IDEMPOTENCY_KEY_REUSED",
  "PUBLIC_API_FAMILY_NOT_FOUND",
  "PUBLIC_API_CATEGORY_NOT_FOUND",
  "PUBLIC_API_CONFLICT",
  "PUBLIC_API_PAYLOAD_TOO_LARGE",
  "PUBLIC_API_UNSUPPORTED_MEDIA_TYPE",
  "PUBLIC_API_UNPROCESSABLE",
] as const satisfies readonly ErrorCode[];
// The codes only the change feed (preview `changes`) answers: the document lists them while it is on.
export const CHANGES_ERROR_CODES = ["PUBLIC_API_CURSOR_EXPIRED"] as const satisfies readonly ErrorCode[];
const READ_ERROR_CODES = (Object.keys(ERRORS) as ErrorCode[]).filter(
  (c) =>
    !(WRITE_ERROR_CODES as readonly string[]).includes(c) &&
    !(CHANGES_ERROR_CODES as readonly string[]).includes(c),
);

// One offending field of a write request: where (a JSON path such as "values.price"), a stable code, French text.
export const errorDetailSchema = z
  .object({
    field: z.string().meta({ description: "The offending field.", example: "values.price" }),
    code: z.string().meta({ description: "Stable machine-readable code.", example: "INVALID_TYPE" }),
    message: z.string().meta({ description: "Human-readable text, in French." }),
  })
  .strict();
export type ErrorDetail = z.infer<typeof errorDetailSchema>;

function errorBodyOf(codes: readonly ErrorCode[]) {
  return z
    .object({
      statusCode: z.number().int().meta({ description: "HTTP status.", example: 401 }),
      message: z
        .string()
        .meta({ description: "Human-readable text, in French.", example: "Clé API invalide." }),
      error: z.string().meta({ description: "HTTP reason phrase.", example: "Unauthorized" }),
      code: z
        .enum(codes as [ErrorCode, ...ErrorCode[]])
        .meta({ description: "Stable machine-readable code.", example: "PUBLIC_API_KEY_INVALID" }),
      requestId: z.string().meta({
        description: "Also in the X-Request-Id header.",
        example: "4f7c1a9e-2b7d-4c1e-9a53-0f3d2e6b8c11",
      }),
      retryAfter: z
        .number()
        .int()
        .min(1)
        .optional()
        .meta({ description: "On 429 only: seconds to wait, equal to the Retry-After header.", example: 12 }),
    })
    .strict();
}

// The JSON body of an error response of the reads (the contract's shape plus code and requestId): the OpenAPI
// document's ApiError schema; V1's codes, and the change feed's while it is on (`changes`).
export function readErrorBodySchema(changes: boolean) {
  return errorBodyOf(changes ? [...READ_ERROR_CODES, ...CHANGES_ERROR_CODES] : READ_ERROR_CODES);
}

// The JSON body of every error response, the write preview's included: its `details` name each offending field.
export const errorBodySchema = errorBodyOf(Object.keys(ERRORS) as ErrorCode[])
  .extend({
    details: z
      .array(errorDetailSchema)
      .optional()
      .meta({ description: "Write preview only: each offending field of the request." }),
  })
  .strict();
export type ErrorBody = z.infer<typeof errorBodySchema>;

// The one error class of the public API: thrown anywhere, turned into a response in one place.
export class PublicApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly extra: {
      retryAfter?: number;
      headers?: Record<string, string>;
      details?: ErrorDetail[];
    } = {},
  ) {
    super(message ?? ERRORS[code].message);
    this.name = "PublicApiError";
    this.status = ERRORS[code].status;
  }
}

// The body for an error, in the contract's shape.
export function errorBody(err: PublicApiError, requestId: string): ErrorBody {
  const body: ErrorBody = {
    statusCode: err.status,
    message: err.message,
    error: ERRORS[err.code].error,
    code: err.code,
    requestId,
  };
  if (err.extra.retryAfter !== undefined) body.retryAfter = err.extra.retryAfter;
  if (err.extra.details !== undefined) body.details = err.extra.details;
  return body;
}

const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now
  "57014", // query_canceled: the server's statement_timeout (DB_STATEMENT_TIMEOUT_MS) ran out
  "53300", // too_many_connections
  "08000",
  "08001",
  "08003",
  "08006",
]);

// True when an unknown error means the database (or another back end) cannot be reached right now.
export function isUnavailableError(err: unknown): boolean {
  if (!err || typeof err !== "object") return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string" && UNAVAILABLE_CODES.has(code)) return true;
  const message = (err as { message?: unknown }).message;
  return (
    typeof message === "string" &&
    // node-postgres: a connection that could not be opened in time or was lost, no free connection of the pool
    // within DB_CONNECT_TIMEOUT_MS, a statement without an answer within DB_STATEMENT_TIMEOUT_MS (query_timeout).
    /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout/i.test(
      message,
    )
  );
}
