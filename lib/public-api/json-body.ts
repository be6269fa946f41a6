import { BodyTooLargeError, readBoundedBody } from "@/lib/bounded-body";
import { writeIssue } from "@/lib/catalog/writes/write-issues";
import { PublicApiError } from "./api-errors";
import type { ApiRequest } from "./api-request";

// Largest JSON body a write accepts, in bytes.
export const WRITE_BODY_LIMIT = 64 * 1024;

// Deepest nesting of objects and arrays a write's JSON body may have (the body itself is level 1). The deepest valid
// creation has 4 levels (body, values, a channel's object, a price); 32 leaves room for any future field. V8's
// JSON.parse reads the 32,768 levels a 64 KB body can hold, but recursive code after it does not: the value checks
// overflowed the call stack near 3,000 levels and JSON.stringify near 10,000 (Node 20, measured), a 500.
export const JSON_DEPTH_LIMIT = 32;

// The refusals of a write's body, each the error its answer carries (the OpenAPI examples are built from them).
export const BODY_ERRORS = {
  unsupportedType: (type: string) =>
    new PublicApiError("PUBLIC_API_UNSUPPORTED_MEDIA_TYPE", undefined, {
      details: [writeIssue("Content-Type", "UNSUPPORTED_MEDIA_TYPE", "contentType", type)],
    }),
  tooLarge: () =>
    new PublicApiError(
      "PUBLIC_API_PAYLOAD_TOO_LARGE",
      `Corps de requête trop volumineux : ${WRITE_BODY_LIMIT / 1024} Ko au plus.`,
      { details: [writeIssue("body", "TOO_LARGE", "body", WRITE_BODY_LIMIT)] },
    ),
  malformed: () =>
    new PublicApiError("PUBLIC_API_INVALID_BODY", "Corps de requête invalide : JSON mal formé.", {
      details: [writeIssue("body", "INVALID_JSON", "body")],
    }),
  /** `path`: where the nesting goes too deep (quoted up to 100 characters). */
  tooDeep: (path: string) =>
    new PublicApiError(
      "PUBLIC_API_INVALID_BODY",
      `Corps de requête invalide : JSON imbriqué sur plus de ${JSON_DEPTH_LIMIT} niveaux.`,
      { details: [writeIssue(path.slice(0, 100), "TOO_DEEP", "value", JSON_DEPTH_LIMIT)] },
    ),
};

// A write's body: JSON by its content type (415), at most WRITE_BODY_LIMIT bytes (413), parsed (400).
export async function readJsonBody(request: ApiRequest): Promise<unknown> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json") throw BODY_ERRORS.unsupportedType(type);
  let text: string;
  try {
    text = (await readBoundedBody(request, WRITE_BODY_LIMIT)).toString("utf8");
  } catch (err) {
    if (err instanceof BodyTooLargeError) throw BODY_ERRORS.tooLarge();
    throw err;
  }
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw BODY_ERRORS.malformed();
  }
  const deep = tooDeep(value, JSON_DEPTH_LIMIT);
  if (deep !== undefined) throw BODY_ERRORS.tooDeep(deep);
  return value;
}

// The path (as the write errors name fields: "values.color.0") of the first object or array nested deeper than
// `limit` levels, or undefined. Walked with a stack of its own, in document order: no depth overflows it.
function tooDeep(root: unknown, limit: number): string | undefined {
  const stack: [value: unknown, path: string, depth: number][] = [[root, "", 1]];
  while (stack.length > 0) {
    const [v, path, depth] = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    if (depth > limit) return path || "body";
    const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x] as const) : Object.entries(v);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, x] = entries[i]!;
      stack.push([x, path ? `${path}.${k}` : k, depth + 1]);
    }
  }
  return undefined;
}
