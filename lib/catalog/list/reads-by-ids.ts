// Reads by ids (preview `details`): `ids=<id>,<id>,…` on every list and `identifiers=<sku>,…` on products restrict
// the list's ordinary answer to the items they name. The parameters' grammar and the condition they add; the list
// engine reads such a list in one statement (lib/catalog/list/engine.ts, `named`).
import { z } from "zod";
import type { Where } from "@/lib/catalog/sql";
import { isPossibleId, isStorableText, refuse, type ParamDef } from "./query-grammar";

// The most values one request names (per parameter): a page's worth, so that a list restricted to them is read whole
// in one statement, its page sliced from it and its total counted from it.
export const MAX_NAMED = 100;

// A comma-separated list of names: repeated parameters merged, empty values skipped (the parser's), at least one and
// at most MAX_NAMED values as sent, then the values that can name something (`possible`), without duplicates, in
// one fixed order: the canonical set, so that one set in any order or with repetitions is one query (and one ETag).
function namedSchema(possible: (value: string) => boolean) {
  return z
    .array(z.string())
    .min(1)
    .meta({ maxItems: MAX_NAMED })
    .transform((values, ctx) => {
      if (values.length > MAX_NAMED)
        return refuse(ctx, { refusal: "tooManyValues", max: MAX_NAMED, count: values.length });
      return [...new Set(values.filter(possible))].sort();
    })
    .optional();
}

// ids: only the items of these ids; `example` is a list of ids of the resource (its prefix).
export function idsParam(example: string) {
  return {
    schema: namedSchema(isPossibleId),
    description: `**Preview** (feature \`details\`): only the items of these ids, at most ${MAX_NAMED}, comma-separated (repeated parameters are merged; duplicates and empty values are ignored). The answer is the list's ordinary answer restricted to them, its \`total\` how many of them match: an id of another organization, one that exists nowhere or a malformed one is simply absent. Combines with every other parameter.`,
    accepts: { kind: "namedList", names: "ids", max: MAX_NAMED },
    array: true,
    example,
    preview: "details",
  } satisfies ParamDef;
}

// identifiers: only the products of these identifiers (SKU values), compared exactly.
export const identifiersParam = {
  schema: namedSchema(isStorableText),
  description: `**Preview** (feature \`details\`): only the products of these identifiers (SKU values, compared exactly), at most ${MAX_NAMED}, comma-separated (repeated parameters are merged; duplicates and empty values are ignored; spaces around a value are trimmed, and an identifier holding a comma cannot be named here: use \`ids\`). An identifier no product of the key's organization has is simply absent. With \`ids\`: only the products named by both.`,
  accepts: { kind: "namedList", names: "identifiers", max: MAX_NAMED },
  array: true,
  example: "ACM-CHA-000123,ACM-CHA-000124",
  preview: "details",
} satisfies ParamDef;

// Restricts a list to the rows whose `column` is one of the values (none given: no restriction). Returns whether it
// did: a list so restricted has at most MAX_NAMED rows per parameter (ids and identifiers are unique in an
// organization), and is read whole (ListSpec `named`).
export function addNamed(where: Where, column: string, values: readonly string[] | undefined): boolean {
  if (values === undefined) return false;
  where.and(`${column} = any(?::text[])`, values);
  return true;
}
