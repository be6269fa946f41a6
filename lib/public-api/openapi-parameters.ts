import type { ParamDef } from "@/lib/catalog/list-query-grammar";
import { IF_NONE_MATCH_MAX } from "./conditional";
import { EXAMPLE_ETAG } from "./openapi-headers";
import { jsonSchema, type Json } from "./openapi-json-schema";

// A query parameter of an operation, documented from its definition (lib/catalog/list-query-grammar.ts).
export function parameter(name: string, p: ParamDef): Json {
  let schema = jsonSchema(p.schema, "input");
  if (p.boolean) schema = { type: "boolean" };
  if (schema.type === "integer") {
    // Integers arrive as digits (the schema's pattern and default are the query string's): document the number.
    const { pattern: _p, default: fallback, ...rest } = schema;
    schema = fallback === undefined ? rest : { ...rest, default: Number(fallback) };
  }
  const out: Json = {
    name,
    in: "query",
    required: false,
    description: p.description,
    schema,
  };
  if (p.array) {
    out.style = "form";
    out.explode = false;
  }
  if (p.example !== undefined) {
    out.example = p.boolean
      ? p.example === "true"
      : p.array
        ? p.example.split(",")
        : schema.type === "integer"
          ? Number(p.example)
          : p.example;
  }
  return out;
}

// If-None-Match on a list: the ETags of earlier answers; a match answers 304 (lib/public-api/conditional.ts).
export const IF_NONE_MATCH: Json = {
  name: "If-None-Match",
  in: "header",
  required: false,
  description:
    "The `ETag` of an earlier answer to this same request (or several, comma-separated, or `*`): while that answer " +
    "is unchanged, the answer is **304 Not Modified** with no body: keep your copy. Checked after the key, the rate " +
    "limit and the scope, so a 304 counts against the quota like any request, and a revoked key still gets 401. " +
    "A `W/` prefix is ignored (weak comparison).",
  schema: { type: "string", maxLength: IF_NONE_MATCH_MAX },
  example: EXAMPLE_ETAG,
};
