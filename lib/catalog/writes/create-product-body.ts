import "server-only";
import type { AttributeType } from "@/db/schema";
import type { z } from "zod";
import {
  attributeValueSchemas,
  createProductBodySchema,
  CREATE_TOP_LEVEL,
  currencies,
  PRECISION_ISSUE,
  TEXT_MAX,
  TEXTAREA_MAX,
  type CreateProductBody,
} from "./create-product-schema";
import { CatalogWriteError, type WriteIssue, type WriteRefusal } from "@/lib/catalog/catalog-errors";
import { QUOTE_MAX, writeIssue } from "./write-issues";

// The checks of a creation request that need no database: the body's shape and each value against its attribute's
// type (the attributes read by prepareProduct, lib/catalog/writes/create-product.ts).

// An attribute of the request's values, as the checks read it.
export interface AttributeRow {
  id: string;
  code: string;
  type: string;
  unique_value: boolean;
  is_scopable: boolean;
}

// One value to insert: attribute, channel (null: every channel), JSON value.
export interface ValueRow {
  attribute: AttributeRow;
  channelId: string | null;
  value: unknown;
}

// Throws the refusal with its issues (the answer's details).
export const refuse = (refusal: WriteRefusal, issues: WriteIssue[]): never => {
  throw new CatalogWriteError(refusal, issues);
};

// Whether a value is a JSON object (not an array, not null).
export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

// The bound of each text type, quoted by INVALID_LENGTH.
const TEXT_MAXES: Partial<Record<string, number>> = { TEXT: TEXT_MAX, TEXTAREA: TEXTAREA_MAX };

// The option and media references of the values, checked against the database once every value is read.
export interface References {
  options: { attribute: AttributeRow; code: string; field: string }[];
  media: { id: string; field: string }[];
}

// Checks one (unscoped) value with its attribute type's schema (attributeValueSchemas) and pushes what is wrong, in
// the answer's words: one detail for the value, or one per currency of a PRICE. Option and media references of a
// valid value are collected for a check against the database.
export function checkValue(
  a: AttributeRow,
  v: unknown,
  field: string,
  issues: WriteIssue[],
  refs: References,
): void {
  const schema = attributeValueSchemas[a.type as AttributeType] as z.ZodType | undefined;
  const parsed = schema?.safeParse(v);
  if (!parsed) return void issues.push(writeIssue(field, "INVALID_TYPE", "value", a.code, a.type));
  if (parsed.success) {
    if (a.type === "SELECT") refs.options.push({ attribute: a, code: v as string, field });
    if (a.type === "MULTI_SELECT")
      (v as string[]).forEach((code, i) => refs.options.push({ attribute: a, code, field: `${field}.${i}` }));
    if (a.type === "MEDIA")
      for (const [i, id] of (typeof v === "string" ? [v] : (v as string[])).entries())
        refs.media.push({ id, field: typeof v === "string" ? field : `${field}.${i}` });
    return;
  }
  const perCurrency = new Map<string, WriteIssue>();
  for (const i of parsed.error.issues) {
    const cur = a.type === "PRICE" && i.path.length > 0 ? String(i.path[0]) : undefined;
    if (cur === undefined) {
      // The value itself: a text of the wrong length is its own code, anything else a value of the wrong type.
      const max = TEXT_MAXES[a.type];
      return void issues.push(
        max !== undefined && i.code !== "invalid_type"
          ? writeIssue(field, "INVALID_LENGTH", "text", a.code, max)
          : writeIssue(field, "INVALID_TYPE", "value", a.code, a.type),
      );
    }
    // One detail per currency: an unknown currency (its amount is not read), else a wrong amount, else its decimals.
    const f = `${field}.${cur}`;
    if (i.code === "invalid_key") perCurrency.set(cur, writeIssue(f, "UNKNOWN_CURRENCY", "currency", cur));
    else if (i.code === "custom" && i.params?.code === PRECISION_ISSUE) {
      if (!perCurrency.has(cur))
        perCurrency.set(cur, writeIssue(f, "INVALID_PRECISION", "amount", cur, currencies().get(cur)!));
    } else perCurrency.set(cur, writeIssue(f, "INVALID_TYPE", "amount"));
  }
  // In the value's key order, as the body gave them.
  for (const cur of Object.keys(v as object)) if (perCurrency.has(cur)) issues.push(perCurrency.get(cur)!);
}

// Text Postgres cannot store (in text or jsonb): NUL, and a UTF-16 surrogate without its pair (both arrive as JSON
// escapes, "\u0000", "\ud800").
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

// Where a value of the body is: its key under its parent's place (the body itself has none). A path is spelled out
// only for an issue, so that a deep body costs no string per level.
interface Place {
  parent: Place | undefined;
  key: string;
}
const pathOf = (place: Place | undefined): string => {
  const keys: string[] = [];
  for (let p = place; p; p = p.parent) keys.push(p.key);
  return keys.reverse().join(".");
};

// The places of a body (keys and strings, at any depth) holding text that cannot be stored: at most 20, in document
// order. Walked with a stack of its own: a body nested deeper than the call stack (3,000 levels overflowed the
// recursive walk this replaces) cannot make it throw; the API refuses bodies deeper than 32 levels before this anyway.
function unstorableText(body: unknown): WriteIssue[] {
  const issues: WriteIssue[] = [];
  const stack: [value: unknown, place: Place | undefined][] = [[body, undefined]];
  while (stack.length > 0 && issues.length < 20) {
    const [v, place] = stack.pop()!;
    if (typeof v === "string") {
      if (UNSTORABLE.test(v))
        issues.push(
          writeIssue(
            pathOf(place).replace(UNSTORABLE, "?").slice(0, QUOTE_MAX) || "body",
            "INVALID_TEXT",
            "text",
          ),
        );
      continue;
    }
    const children: [unknown, Place][] = [];
    if (Array.isArray(v)) v.forEach((x, i) => children.push([x, { parent: place, key: String(i) }]));
    else if (isPlainObject(v)) {
      // A key that cannot be stored is the issue at its place (the key, a string, is what is checked there); its
      // value is not looked into.
      for (const [k, x] of Object.entries(v))
        children.push([UNSTORABLE.test(k) ? k : x, { parent: place, key: k }]);
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return issues;
}

// Parses the request with createProductBodySchema: a JSON object with familyId, categoryId and values, nothing else,
// and no text Postgres cannot store. The zod issues become the answer's details; those about one entry of `values`
// are left to its attribute's schema (checkValue), which prepareProduct applies once the attribute is read: the type
// decides what the value must be, and an unknown code is UNKNOWN_ATTRIBUTE whatever its value.
export function checkShape(body: unknown): CreateProductBody {
  const parsed = createProductBodySchema.safeParse(body);
  const zodIssues = parsed.error?.issues ?? [];
  if (zodIssues.some((i) => i.path.length === 0 && i.code === "invalid_type"))
    refuse("invalid", [writeIssue("body", "INVALID_TYPE", "body")]);
  const b = body as Record<string, unknown>;
  const unstorable = unstorableText(b);
  if (unstorable.length > 0) refuse("invalid", unstorable);
  const unknown: WriteIssue[] = [];
  const byField = new Map<string, WriteIssue>();
  for (const i of zodIssues) {
    if (i.code === "unrecognized_keys") {
      for (const k of i.keys)
        unknown.push(
          k === "organizationId"
            ? writeIssue(k, "FORBIDDEN_FIELD", "organizationId")
            : writeIssue(k.slice(0, QUOTE_MAX), "UNKNOWN_FIELD", "field", k),
        );
      continue;
    }
    const [name, code] = i.path.map(String);
    if (name === undefined || code !== undefined) continue; // an entry of values: checkValue's
    byField.set(
      name,
      b[name] === undefined
        ? writeIssue(name, "REQUIRED", "field", name)
        : name === "values"
          ? writeIssue(name, "INVALID_TYPE", "values")
          : writeIssue(name, "INVALID_TYPE", "id", name),
    );
  }
  const issues = [...unknown, ...CREATE_TOP_LEVEL.flatMap((k) => byField.get(k) ?? [])];
  if (issues.length > 0) refuse("invalid", issues);
  return b as CreateProductBody;
}
