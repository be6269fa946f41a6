import type { WriteIssue } from "@/lib/catalog/catalog-errors";
import { ERRORS, type ErrorCode, type PublicApiError } from "./api-errors";
import type { Json } from "./openapi-json-schema";

const EXAMPLE_REQUEST_ID = "4f7c1a9e-2b7d-4c1e-9a53-0f3d2e6b8c11";

// An example error body of the document: the code's status, message and error, and an example request id.
export function errorExample(code: ErrorCode, message?: string, extra: Json = {}): Json {
  const e = ERRORS[code];
  return {
    statusCode: e.status,
    message: message ?? e.message,
    error: e.error,
    code,
    requestId: EXAMPLE_REQUEST_ID,
    ...extra,
  };
}

// An error response of an operation: its description, the request id header and the named example bodies.
export function errorResponseDoc(
  description: string,
  examples: Record<string, Json>,
  headers: Json = {},
  schema = "ApiError",
): Json {
  return {
    description,
    headers: { "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" }, ...headers },
    content: {
      "application/json": {
        schema: { $ref: `#/components/schemas/${schema}` },
        examples: Object.fromEntries(Object.entries(examples).map(([k, v]) => [k, { value: v }])),
      },
    },
  };
}

// The example body of an error the API throws (its code, message and details, as its answer carries them).
export function exampleOf(err: PublicApiError): Json {
  return errorExample(err.code, err.message, err.extra.details ? { details: err.extra.details } : {});
}

// A write-preview error example: the error with its `details` (built by writeIssue: the messages of the answers).
export function writeErrorExample(code: ErrorCode, message: string | undefined, details: WriteIssue[]): Json {
  return errorExample(code, message, { details });
}

// An error response of a write operation: its body is a WriteError (an error with `details`).
export const writeError = (description: string, examples: Record<string, Json>, headers: Json = {}): Json =>
  errorResponseDoc(description, examples, headers, "WriteError");
