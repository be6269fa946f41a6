import "server-only";
import { getConfig } from "@/lib/config";
import { buildOpenApiDocument } from "@/lib/public-api/openapi";

type Json = Record<string, unknown>;

// One query parameter of an endpoint, as the reference shows it (read from the OpenAPI document).
export interface RefParam {
  name: string;
  description: string;
  /** Display type: integer, string, boolean, array of string. */
  type: string;
  defaultValue?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  /** Allowed values (for arrays: of each item). */
  allowed?: string[];
  array: boolean;
  boolean: boolean;
  /** The example as it goes in a query string (arrays comma-separated). */
  example?: string;
}

// One error response of an endpoint: status, description and its named example bodies.
export interface RefError {
  status: string;
  description: string;
  examples: { name: string; body: Json }[];
}

// One response field of the item schema, flattened (nested objects as `family.id`).
export interface RefField {
  name: string;
  type: string;
  required: boolean;
  description?: string;
  allowed?: string[];
}

// One endpoint of the reference, entirely derived from the OpenAPI document.
export interface RefEndpoint {
  /** URL segment of its reference page: /reference/<slug>. */
  slug: string;
  method: "GET";
  path: string;
  operationId: string;
  summary: string;
  description: string;
  tag: string;
  scope: string;
  params: RefParam[];
  itemSchemaName: string;
  itemFields: RefField[];
  paginationFields: RefField[];
  exampleResponse: Json;
  errors: RefError[];
  /** Headers of the 200 answer. */
  successHeaders: string[];
}

function resolveRef(doc: Json, ref: string): Json {
  let node: unknown = doc;
  for (const part of ref.replace(/^#\//, "").split("/")) node = (node as Json)[part];
  return node as Json;
}

function typeOf(schema: Json): string {
  if (schema.type === "array") return `array of ${typeOf((schema.items as Json) ?? {})}`;
  if (Array.isArray(schema.type)) return (schema.type as string[]).join(" or ");
  if (schema.anyOf) return (schema.anyOf as Json[]).map(typeOf).join(" or ");
  return typeof schema.type === "string" ? schema.type : "any";
}

function fields(doc: Json, schema: Json, prefix = ""): RefField[] {
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

function param(raw: Json): RefParam {
  const schema = (raw.schema as Json) ?? {};
  const items = (schema.items as Json | undefined) ?? {};
  const array = schema.type === "array";
  const example = raw.example;
  const enumSource = array ? items.enum : schema.enum;
  return {
    name: String(raw.name),
    description: String(raw.description ?? ""),
    type: typeOf(schema),
    defaultValue: schema.default === undefined ? undefined : String(schema.default),
    minimum: typeof schema.minimum === "number" ? schema.minimum : undefined,
    maximum: typeof schema.maximum === "number" ? schema.maximum : undefined,
    minLength: typeof schema.minLength === "number" ? schema.minLength : undefined,
    maxLength: typeof schema.maxLength === "number" ? schema.maxLength : undefined,
    allowed: Array.isArray(enumSource) ? (enumSource as unknown[]).map(String) : undefined,
    array,
    boolean: schema.type === "boolean",
    example: example === undefined ? undefined : Array.isArray(example) ? example.join(",") : String(example),
  };
}

// Reads the reference endpoints out of an OpenAPI document (every GET operation under /public/v1).
export function endpointsFromDocument(doc: Json): RefEndpoint[] {
  const out: RefEndpoint[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    const op = item.get as Json | undefined;
    if (!op) continue;
    const responses = op.responses as Record<string, Json>;
    const ok = responses["200"]!;
    const okContent = (ok.content as Record<string, Json>)["application/json"]!;
    const okSchema = okContent.schema as Json;
    const dataItems = ((okSchema.properties as Record<string, Json>).data!.items as Json) ?? {};
    const itemRef = String(dataItems.$ref ?? "");
    const errors: RefError[] = Object.entries(responses)
      .filter(([status]) => status !== "200")
      .map(([status, r]) => {
        const content = (r.content as Record<string, Json> | undefined)?.["application/json"];
        const examples = Object.entries((content?.examples as Record<string, Json> | undefined) ?? {}).map(
          ([name, ex]) => ({ name, body: ex.value as Json }),
        );
        return { status, description: String(r.description ?? ""), examples };
      });
    out.push({
      slug: path.replace(/^\/public\/v1\//, "").replace(/[^a-z0-9-]+/gi, "-"),
      method: "GET",
      path,
      operationId: String(op.operationId),
      summary: String(op.summary ?? ""),
      description: String(op.description ?? "")
        .replace(/\n\nRequired scope: `[^`]+`\.$/, "")
        .trim(),
      tag: String((op.tags as string[] | undefined)?.[0] ?? ""),
      scope: String(op["x-required-scope"] ?? ""),
      params: ((op.parameters as Json[] | undefined) ?? []).map(param),
      itemSchemaName: itemRef.split("/").pop() ?? "",
      itemFields: itemRef ? fields(doc, { $ref: itemRef }) : [],
      paginationFields: fields(doc, (okSchema.properties as Record<string, Json>).pagination!),
      exampleResponse: okContent.example as Json,
      errors,
      successHeaders: Object.keys((ok.headers as Json | undefined) ?? {}),
    });
  }
  return out;
}

let cache: { baseUrl: string; doc: Json; endpoints: RefEndpoint[] } | undefined;

// The OpenAPI document this server publishes at /public/v1/openapi.json (built once per base URL).
export function getOpenApiDocument(): Json {
  const { baseUrl } = getConfig();
  if (!cache || cache.baseUrl !== baseUrl) {
    const doc = buildOpenApiDocument(baseUrl);
    cache = { baseUrl, doc, endpoints: endpointsFromDocument(doc) };
  }
  return cache.doc;
}

// Every endpoint of the reference, in the document's order.
export function getReferenceEndpoints(): RefEndpoint[] {
  getOpenApiDocument();
  return cache!.endpoints;
}

// One endpoint of the reference by its page slug, or undefined.
export function getReferenceEndpoint(slug: string): RefEndpoint | undefined {
  return getReferenceEndpoints().find((e) => e.slug === slug);
}
