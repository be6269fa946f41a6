// Reading the parts of the OpenAPI document an endpoint is made of: schemas flattened into fields, parameters,
// error responses, headers and value types.
import type { Json, RefError, RefField, RefHeader, RefParam, RefValueType } from "./types";

// The node a local `$ref` (`#/components/schemas/Product`) points to.
export function resolveRef(doc: Json, ref: string): Json {
  let node: unknown = doc;
  for (const part of ref.replace(/^#\//, "").split("/")) node = (node as Json)[part];
  return node as Json;
}

// The type of a schema as the reference prints it ("integer", "array of string", "string or null").
export function typeOf(schema: Json): string {
  // A component by reference (an event's item): its name.
  if (typeof schema.$ref === "string") return schema.$ref.split("/").pop()!;
  if (schema.type === "array") return `array of ${typeOf((schema.items as Json) ?? {})}`;
  if (Array.isArray(schema.type)) return (schema.type as string[]).join(" or ");
  if (schema.anyOf) return (schema.anyOf as Json[]).map(typeOf).join(" or ");
  return typeof schema.type === "string" ? schema.type : "any";
}

// The fields of an object schema, flattened: nested objects' fields follow their parent as `parent.child`.
export function fields(doc: Json, schema: Json, prefix = ""): RefField[] {
  const s = typeof schema.$ref === "string" ? resolveRef(doc, schema.$ref) : schema;
  const required = new Set((s.required as string[] | undefined) ?? []);
  const out: RefField[] = [];
  for (const [name, raw] of Object.entries((s.properties as Record<string, Json> | undefined) ?? {})) {
    const p = typeof raw.$ref === "string" ? resolveRef(doc, raw.$ref) : raw;
    const full = `${prefix}${name}`;
    out.push({
      name: full,
      type: typeOf(p),
      required: required.has(name),
      description: typeof p.description === "string" ? p.description : undefined,
      allowed: Array.isArray(p.enum) ? (p.enum as unknown[]).map(String) : undefined,
    });
    if (p.type === "object" && p.properties) out.push(...fields(doc, p, `${full}.`));
  }
  return out;
}

// One parameter of an operation, as the reference shows it.
export function param(raw: Json): RefParam {
  const schema = (raw.schema as Json) ?? {};
  const items = (schema.items as Json | undefined) ?? {};
  const array = schema.type === "array";
  const example = raw.example;
  const enumSource = array ? items.enum : schema.enum;
  return {
    name: String(raw.name),
    description: String(raw.description ?? ""),
    type: typeOf(schema),
    format: typeof schema.format === "string" ? schema.format : undefined,
    defaultValue: schema.default === undefined ? undefined : String(schema.default),
    minimum: typeof schema.minimum === "number" ? schema.minimum : undefined,
    maximum: typeof schema.maximum === "number" ? schema.maximum : undefined,
    minLength: typeof schema.minLength === "number" ? schema.minLength : undefined,
    maxLength: typeof schema.maxLength === "number" ? schema.maxLength : undefined,
    allowed: Array.isArray(enumSource) ? (enumSource as unknown[]).map(String) : undefined,
    array,
    boolean: schema.type === "boolean",
    example: example === undefined ? undefined : Array.isArray(example) ? example.join(",") : String(example),
    ...(raw["x-preview"] === true ? { preview: true } : {}),
  };
}

// The responses of an operation that are not `success`, with their example bodies.
export function errorsOf(responses: Record<string, Json>, success: (status: string) => boolean): RefError[] {
  return Object.entries(responses)
    .filter(([status]) => !success(status))
    .map(([status, r]) => {
      const content = (r.content as Record<string, Json> | undefined)?.["application/json"];
      const examples = Object.entries((content?.examples as Record<string, Json> | undefined) ?? {}).map(
        ([name, ex]) => ({ name, body: ex.value as Json }),
      );
      return { status, description: String(r.description ?? ""), examples };
    });
}

// The headers of a response, each described by its own description or its component's.
export function headerDocs(doc: Json, headers: Json | undefined): RefHeader[] {
  return Object.entries((headers ?? {}) as Record<string, Json>).map(([name, raw]) => {
    const h = typeof raw.$ref === "string" ? resolveRef(doc, raw.$ref) : raw;
    return { name, description: String(h.description ?? "") };
  });
}

// An operation's description without its closing "Required scope" sentence (the page shows the scope apart).
export const stripScope = (description: unknown) =>
  String(description ?? "")
    .replace(/\n\nRequired scope: `[^`]+`\.$/, "")
    .trim();

// The alternatives of a value schema (anyOf), each by its title.
export function valueTypes(doc: Json, schema: Json): RefValueType[] {
  const s = typeof schema.$ref === "string" ? resolveRef(doc, schema.$ref) : schema;
  return ((s.anyOf as Json[] | undefined) ?? []).map((raw) => {
    const a = typeof raw.$ref === "string" ? resolveRef(doc, raw.$ref) : raw;
    return {
      name: String(a.title ?? typeOf(a)),
      type: typeOf(a),
      description: String(a.description ?? ""),
      example: a.example,
    };
  });
}
