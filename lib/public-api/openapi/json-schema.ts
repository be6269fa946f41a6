import { z } from "zod";

// A JSON object of the OpenAPI document (a schema, a parameter, a response…).
export type Json = Record<string, unknown>;

// The JSON Schema of a zod schema, as the document embeds it: without the $schema and id keywords.
export function jsonSchema(schema: z.ZodType, io: "input" | "output"): Json {
  const {
    $schema: _s,
    $id: _i,
    id: _id,
    ...rest
  } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Json;
  return rest;
}

// The schemas of a registry, each named by its id and referring to the others as #/components/schemas/<id>.
export function componentSchemas(registry: z.core.$ZodRegistry<{ id: string }>): Record<string, Json> {
  const { schemas } = z.toJSONSchema(registry, {
    io: "input",
    unrepresentable: "any",
    uri: (id) => `#/components/schemas/${id}`,
  });
  return Object.fromEntries(
    Object.entries(schemas).map(([name, { $schema: _s, $id: _i, ...rest }]) => [name, rest as Json]),
  );
}
