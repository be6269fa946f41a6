// The grammar of query strings (page, perPage, q, sort, filters, updatedSince…): each parameter's zod schema
// (validation and documentation at once) and what it accepts, so that every refusal names the parameter and what it
// expects. Each catalog resource defines its query from these builders, beside its sort table; lib/public-api parses
// URLs with it, documents it, and words its refusals (in French, lib/public-api/query-messages.ts).
import { z } from "zod";
import type { SortKey } from "@/lib/catalog/sql";
import type { PreviewFeature } from "@/lib/preview";

// What a valid value of a parameter looks like: the 400 message that names the parameter says it.
export type Accepts =
  | { kind: "integer"; min: number; max: number }
  /** Any text up to `max` characters, the empty one included. */
  | { kind: "text"; max: number }
  | { kind: "nonEmptyText"; max: number }
  | { kind: "id"; max: number }
  | { kind: "boolean" }
  | { kind: "valueList"; values: readonly string[] }
  | { kind: "sort"; fields: readonly string[] }
  | { kind: "instant"; example: string }
  /** A change-feed cursor: decimal digits. */
  | { kind: "cursor"; maxDigits: number }
  /** Reads by ids: comma-separated ids, or identifiers (SKU values) of products. */
  | { kind: "namedList"; names: "ids" | "identifiers"; max: number };

// Why a value that has the parameter's form was refused (the `params` of the zod issue the schema raises).
export type Refusal =
  /** A sort key that is not `field.asc` or `field.desc`. */
  | { refusal: "sortFormat"; token: string; fields: readonly string[] }
  | { refusal: "sortFieldUnknown"; field: string; fields: readonly string[] }
  | { refusal: "sortFieldRepeated"; field: string }
  /** Not an ISO 8601 date and time with a time zone, or one that does not exist. */
  | { refusal: "instantFormat"; example: string }
  | { refusal: "instantRange"; from: string; to: string; example: string }
  /** More values than a list of names takes. */
  | { refusal: "tooManyValues"; max: number; count: number };

// Raises a refusal as a zod issue of the value being parsed.
export function refuse(ctx: z.RefinementCtx, refusal: Refusal): typeof z.NEVER {
  ctx.addIssue({ code: "custom", message: refusal.refusal, params: refusal });
  return z.NEVER;
}

// One query parameter: its zod schema (validation and documentation at once) and what it accepts.
export interface ParamDef<S extends z.ZodType = z.ZodType> {
  schema: S;
  /** What the parameter does (OpenAPI description). */
  description: string;
  /** What a valid value looks like, said by the 400 message that names the parameter. */
  accepts: Accepts;
  /** Comma-separated list; repeated parameters are merged. */
  array?: boolean;
  /** Boolean carried as the strings true/false. */
  boolean?: boolean;
  example?: string;
  /** The preview feature it belongs to: while that is off, the parameter is unknown (refused, undocumented). */
  preview?: PreviewFeature;
}

// The query parameters of one endpoint, as definitions and as one zod object schema.
export interface QueryDef<T> {
  params: Record<string, ParamDef>;
  schema: z.ZodType<T>;
}

// The parameters of a query that the preview features switched on take, in their order: every V1 parameter, and a
// preview feature's only while it is on.
export function paramsOn<T>(def: QueryDef<T>, preview: readonly PreviewFeature[]): [string, ParamDef][] {
  return Object.entries(def.params).filter(([, p]) => p.preview === undefined || preview.includes(p.preview));
}

// The parsed query of a QueryDef, as its handler receives it.
export type QueryOf<D> = D extends QueryDef<infer T> ? T : never;

// The zod shape of parameter definitions.
type ShapeOf<P extends Record<string, ParamDef>> = { [K in keyof P]: P[K]["schema"] };

// Builds a QueryDef from parameter definitions; its parsed type is zod's output of their object (optional
// parameters are optional keys).
export function defineQuery<P extends Record<string, ParamDef>>(
  params: P,
): QueryDef<z.output<z.ZodObject<ShapeOf<P>>>> {
  const shape = {} as ShapeOf<P>;
  for (const k of Object.keys(params) as (keyof P)[]) shape[k] = params[k]!.schema;
  return { params, schema: z.object(shape) };
}

const ID_MAX = 128;
const NO_CONTROL = /^[^\u0000-\u001f\u007f]*$/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

// A whole number written as plain decimal digits ("0x10", "1e1", "1.0", " 1" are refused, not read as numbers);
// documented as the integer it stands for.
function intSchema(min: number, max: number, fallback: number) {
  return z
    .string()
    .regex(/^[0-9]{1,10}$/)
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .prefault(String(fallback))
    .meta({ type: "integer", minimum: min, maximum: max });
}

// A whole number from min to max, `fallback` when absent.
export function integerParam(min: number, max: number, fallback: number, description: string) {
  return {
    schema: intSchema(min, max, fallback),
    description,
    accepts: { kind: "integer", min, max },
    example: String(fallback),
  } satisfies ParamDef;
}

// page: integer ≥ 1, default 1.
export const pageParam = integerParam(
  1,
  10_000_000,
  1,
  "Page of results, from 1. Past the last page the answer is an empty `data` with the true totals.",
);

// perPage: integer 1..100, default 20.
export const perPageParam = integerParam(1, 100, 20, "Maximum number of items per page (1 to 100).");

// The most digits of a change-feed cursor: 15 stay below 2^53, so that a client may hold one as a JSON number.
export const CURSOR_MAX_DIGITS = 15;

// A change-feed cursor: decimal digits (at most CURSOR_MAX_DIGITS), parsed to its canonical form ("007" is "7"),
// `fallback` when absent. A string in the document: cursors are compared as numbers by the server only.
export function cursorParam(fallback: string, description: string) {
  return {
    schema: z
      .string()
      .regex(new RegExp(`^[0-9]{1,${CURSOR_MAX_DIGITS}}$`))
      .transform((v) => BigInt(v).toString())
      .prefault(fallback),
    description,
    accepts: { kind: "cursor", maxDigits: CURSOR_MAX_DIGITS },
    example: "1234",
  } satisfies ParamDef;
}

// q: free-text search, case- and accent-insensitive substring.
export function qParam(fields: string[]) {
  return {
    schema: z
      .string()
      .max(200)
      .transform((v) => v.replace(/[\u0000-\u001f\u007f]/g, " ").trim())
      .optional(),
    description: `Free-text search, case- and accent-insensitive substring ("creme" finds "Crème"), in: ${fields.join(", ")}. At most 200 characters.`,
    accepts: { kind: "text", max: 200 },
    example: "chaise",
  } satisfies ParamDef;
}

// The sort values the server takes, as a regular expression for the OpenAPI document (JSON Schema's `pattern`, the
// ECMA-262 dialect): sortable fields with .asc or .desc, comma-separated, spaces around each (the transform trims
// them: \s and String.prototype.trim strip the same characters). A field given twice also matches; the server
// refuses it.
export function sortPattern(fields: readonly string[]): string {
  const key = `\\s*(?:${fields.join("|")})\\.(?:asc|desc)\\s*`;
  return `^${key}(?:,${key})*$`;
}

// sort: `field.asc|desc`, comma-separated; default updatedAt.desc; id is always the last tie-breaker.
export function sortParam<F extends string>(fields: readonly F[]) {
  const isField = (name: string): name is F => (fields as readonly string[]).includes(name);
  return {
    schema: z
      .string()
      .max(500)
      .meta({ pattern: sortPattern(fields) })
      .default("updatedAt.desc")
      .transform((value, ctx): SortKey<F>[] => {
        const keys: SortKey<F>[] = [];
        for (const part of value.split(",")) {
          const token = part.trim();
          const m = /^(?<field>[A-Za-z]+)\.(?<order>asc|desc)$/.exec(token);
          if (!m?.groups) return refuse(ctx, { refusal: "sortFormat", token, fields });
          const field = m.groups.field!;
          const order = m.groups.order === "asc" ? "asc" : "desc";
          if (!isField(field)) return refuse(ctx, { refusal: "sortFieldUnknown", field, fields });
          if (keys.some((k) => k.field === field))
            return refuse(ctx, { refusal: "sortFieldRepeated", field });
          keys.push({ field, order });
        }
        return keys;
      }),
    description: `Sort order: \`field.asc\` or \`field.desc\`, several separated by commas. Sortable fields: ${fields.join(", ")}. Default \`updatedAt.desc\`; \`id\` is always the last tie-breaker, so pages never overlap.`,
    accepts: { kind: "sort", fields },
    example: `${fields[0]}.asc`,
  } satisfies ParamDef;
}

// An opaque identifier used as a filter.
// Whether text can be an id of ours at all (at most ID_MAX characters, no control character): one that cannot
// matches nothing, without a database read (Postgres refuses a NUL in text).
export function isPossibleId(id: string): boolean {
  return id.length > 0 && id.length <= ID_MAX && NO_CONTROL.test(id) && !LONE_SURROGATE.test(id);
}

// Whether text can be a stored value at all (Postgres refuses a NUL in text; a lone surrogate is no Unicode text):
// one that cannot matches nothing, without a database read.
export function isStorableText(text: string): boolean {
  return !text.includes("\u0000") && !LONE_SURROGATE.test(text);
}

export function idParam(description: string) {
  return {
    schema: z.string().min(1).max(ID_MAX).regex(NO_CONTROL).optional(),
    description,
    accepts: { kind: "id", max: ID_MAX },
  } satisfies ParamDef;
}

// A boolean carried as true/false.
export function boolParam(description: string) {
  return {
    schema: z
      .enum(["true", "false"])
      .transform((v) => v === "true")
      .optional(),
    description,
    accepts: { kind: "boolean" },
    boolean: true,
    example: "true",
  } satisfies ParamDef;
}

// A comma-separated list of known values; repeated parameters are merged.
export function enumListParam<const V extends readonly [string, ...string[]]>(
  values: V,
  description: string,
) {
  return {
    schema: z
      .array(z.enum(values))
      .min(1)
      .max(values.length * 4)
      .optional(),
    description: `${description} Comma-separated; repeated parameters are merged. Allowed: ${values.join(", ")}.`,
    accepts: { kind: "valueList", values },
    array: true,
    example: values.slice(0, 2).join(","),
  } satisfies ParamDef;
}

// A free string filter.
export function textParam(description: string, max = 200) {
  return {
    schema: z.string().min(1).max(max).regex(NO_CONTROL).optional(),
    description,
    accepts: { kind: "nonEmptyText", max },
  } satisfies ParamDef;
}

// An ISO 8601 date and time with a time zone (Z or ±hh:mm), seconds and up to 3 fractional digits optional.
const ISO_WITH_ZONE =
  /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?(?:Z|[+-](\d{2}):(\d{2}))$/;

// The instants updatedSince takes, in UTC: the years 0001 to 9999, the range of the API's timestamps. Postgres refuses
// year 0 and year 10000 (which a time zone can reach from 0001-01-01 or 9999-12-31, and which JavaScript writes as
// "0000-…" and "+010000-…"): outside this range a value was a 500 on every list.
const UPDATED_SINCE_FROM = "0001-01-01T00:00:00Z";
const UPDATED_SINCE_TO = "9999-12-31T23:59:59.999Z";
const UPDATED_SINCE_MIN = Date.parse(UPDATED_SINCE_FROM);
const UPDATED_SINCE_MAX = Date.parse(UPDATED_SINCE_TO);
const UPDATED_SINCE_EXAMPLE = "2026-06-07T09:30:12.345Z";

// The instant a well-formed value names, in milliseconds since the epoch, or undefined when it is not one (a day or
// hour that does not exist: 2031-02-30, 24:00, a zone offset past 23:59).
function instantOf(v: string): number | undefined {
  const m = ISO_WITH_ZONE.exec(v);
  if (!m) return undefined;
  const day = new Date(`${m[1]}T00:00:00.000Z`);
  const [h, mi, sec, zh, zm] = [m[2], m[3], m[4] ?? "0", m[5] ?? "0", m[6] ?? "0"].map(Number);
  const exists =
    !Number.isNaN(day.getTime()) &&
    day.toISOString().slice(0, 10) === m[1] &&
    h! <= 23 &&
    mi! <= 59 &&
    sec! <= 59 &&
    zh! <= 23 &&
    zm! <= 59;
  return exists ? Date.parse(v) : undefined;
}

// updatedSince: items whose updatedAt is at or after this instant (inclusive, to the millisecond). Parsed to the
// UTC form of the API's timestamps, so that one instant written in two time zones is one query (and one ETag). Every
// refusal names the expected form with an example.
export const updatedSinceParam = {
  schema: z
    .string()
    .max(40)
    .transform((v, ctx) => {
      const at = instantOf(v);
      if (at === undefined) return refuse(ctx, { refusal: "instantFormat", example: UPDATED_SINCE_EXAMPLE });
      if (at < UPDATED_SINCE_MIN || at > UPDATED_SINCE_MAX) {
        return refuse(ctx, {
          refusal: "instantRange",
          from: UPDATED_SINCE_FROM,
          to: UPDATED_SINCE_TO,
          example: UPDATED_SINCE_EXAMPLE,
        });
      }
      return new Date(at).toISOString();
    })
    .optional()
    .meta({ format: "date-time" }),
  description:
    "Only items whose `updatedAt` is at or after this instant (inclusive, to the millisecond): an ISO 8601 date and time with a time zone, e.g. `2026-06-07T09:30:12.345Z` or `2026-06-07T11:30:12.345+02:00`, within the years 0001 to 9999 in UTC. Combines with every other parameter.",
  accepts: { kind: "instant", example: UPDATED_SINCE_EXAMPLE },
  example: UPDATED_SINCE_EXAMPLE,
} satisfies ParamDef;

// The parameters every list has: page, perPage, q (over the given fields), sort (over the given fields) and
// updatedSince.
export function listParams<F extends string>(searchFields: string[], sortable: readonly F[]) {
  return {
    page: pageParam,
    perPage: perPageParam,
    q: qParam(searchFields),
    sort: sortParam(sortable),
    updatedSince: updatedSinceParam,
  };
}
