import "server-only";
import { getConfig } from "@/lib/config";
import { buildOpenApiDocument } from "@/lib/public-api/openapi";
import { getRuntime } from "@/lib/runtime";

type Json = Record<string, unknown>;

// One query parameter of an endpoint, as the reference shows it (read from the OpenAPI document).
export interface RefParam {
  name: string;
  description: string;
  /** Display type: integer, string, boolean, array of string. */
  type: string;
  /** The schema's format (date-time for updatedSince), when it has one. */
  format?: string;
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

// One response header of an operation, with its description from the document's components.
export interface RefHeader {
  name: string;
  description: string;
}

// The 304 of a list: what it means and the headers it carries (no body).
export interface RefNotModified {
  description: string;
  headers: RefHeader[];
}

// One response field of the item schema, flattened (nested objects as `family.id`).
export interface RefField {
  name: string;
  type: string;
  required: boolean;
  description?: string;
  allowed?: string[];
}

// One answer of a write operation with a body: status, description, headers, schema fields and example.
export interface RefResponse {
  status: string;
  description: string;
  headers: string[];
  schemaName: string;
  fields: RefField[];
  example: Json;
}

// One type of attribute value a write body accepts (an alternative of the document's AttributeValue).
export interface RefValueType {
  name: string;
  type: string;
  description: string;
  example?: unknown;
}

// A write operation on an endpoint's path (the write preview's POST), entirely derived from the OpenAPI document.
export interface RefWriteOperation {
  method: "POST";
  path: string;
  /** Anchor of its section on the endpoint's reference page. */
  anchor: string;
  operationId: string;
  summary: string;
  description: string;
  scope: string;
  /** Marked `x-preview` in the document: may still change. */
  preview: boolean;
  headerParams: RefParam[];
  queryParams: RefParam[];
  bodyDescription: string;
  bodySchemaName: string;
  bodyFields: RefField[];
  valueTypes: RefValueType[];
  bodyExample: Json;
  responses: RefResponse[];
  errors: RefError[];
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
  /** Marked `x-preview` in the document (a preview feature's operation): may still change. */
  preview: boolean;
  /** Whether the 200 is one item (an item endpoint of preview `details`) rather than a page of items. */
  item: boolean;
  /** The fields of a page besides its items and its pagination: the change feed's `cursor` and `hasMore`. */
  pageFields: RefField[];
  /** Path parameters (`{id}`), all required. */
  pathParams: RefParam[];
  /** Query parameters. */
  params: RefParam[];
  /** Request headers besides Authorization (If-None-Match). */
  headerParams: RefParam[];
  itemSchemaName: string;
  itemFields: RefField[];
  paginationFields: RefField[];
  exampleResponse: Json;
  errors: RefError[];
  /** Headers of the 200 answer. */
  successHeaders: string[];
  /** The same, with their descriptions. */
  successHeaderDocs: RefHeader[];
  /** The 304 answer to If-None-Match, when the document has one. */
  notModified?: RefNotModified;
  /** Write operations on the same path (none unless the write preview is on). */
  writes: RefWriteOperation[];
  /** The 200 is a stream of JSON lines (preview `export`), not one JSON body. */
  stream?: RefStream;
}

// The 200 of an NDJSON stream: what its lines are (its description names their schemas), the last line's schema
// and fields, and example lines.
export interface RefStream {
  mediaType: string;
  description: string;
  endSchemaName: string;
  endFields: RefField[];
  exampleLines: Json[];
}

function resolveRef(doc: Json, ref: string): Json {
  let node: unknown = doc;
  for (const part of ref.replace(/^#\//, "").split("/")) node = (node as Json)[part];
  return node as Json;
}

function typeOf(schema: Json): string {
  // A component by reference (an event's item): its name.
  if (typeof schema.$ref === "string") return schema.$ref.split("/").pop()!;
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
  };
}

function errorsOf(responses: Record<string, Json>, success: (status: string) => boolean): RefError[] {
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
function headerDocs(doc: Json, headers: Json | undefined): RefHeader[] {
  return Object.entries((headers ?? {}) as Record<string, Json>).map(([name, raw]) => {
    const h = typeof raw.$ref === "string" ? resolveRef(doc, raw.$ref) : raw;
    return { name, description: String(h.description ?? "") };
  });
}

const stripScope = (description: unknown) =>
  String(description ?? "")
    .replace(/\n\nRequired scope: `[^`]+`\.$/, "")
    .trim();

// The alternatives of a value schema (anyOf), each by its title.
function valueTypes(doc: Json, schema: Json): RefValueType[] {
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

// A write operation (POST) of a path, read out of the document.
function writeOperation(doc: Json, path: string, op: Json): RefWriteOperation {
  const responses = op.responses as Record<string, Json>;
  const params = (op.parameters as Json[] | undefined) ?? [];
  const body = (op.requestBody as Json | undefined) ?? {};
  const bodySchema = ((body.content as Record<string, Json> | undefined)?.["application/json"]?.schema ??
    {}) as Json;
  const bodyRef = String(bodySchema.$ref ?? "");
  const resolvedBody = bodyRef ? resolveRef(doc, bodyRef) : bodySchema;
  const valuesSchema = ((resolvedBody.properties as Record<string, Json> | undefined)?.values ?? {}) as Json;
  const success = (status: string) => status.startsWith("2");
  return {
    method: "POST",
    path,
    anchor: String(op.operationId)
      .replace(/([a-z])([A-Z])/g, "$1-$2")
      .toLowerCase(),
    operationId: String(op.operationId),
    summary: String(op.summary ?? ""),
    description: stripScope(op.description),
    scope: String(op["x-required-scope"] ?? ""),
    preview: op["x-preview"] === true,
    headerParams: params.filter((p) => p.in === "header").map(param),
    queryParams: params.filter((p) => p.in === "query").map(param),
    bodyDescription: String(body.description ?? ""),
    bodySchemaName: bodyRef.split("/").pop() ?? "",
    bodyFields: fields(doc, resolvedBody),
    valueTypes: valueTypes(doc, (valuesSchema.additionalProperties as Json | undefined) ?? {}),
    bodyExample: (resolvedBody.example as Json | undefined) ?? {},
    responses: Object.entries(responses)
      .filter(([status]) => success(status))
      .map(([status, r]) => {
        const content = (r.content as Record<string, Json>)["application/json"]!;
        const ref = String((content.schema as Json).$ref ?? "");
        return {
          status,
          description: String(r.description ?? ""),
          headers: Object.keys((r.headers as Json | undefined) ?? {}),
          schemaName: ref.split("/").pop() ?? "",
          fields: ref ? fields(doc, { $ref: ref }) : [],
          example: content.example as Json,
        };
      }),
    errors: errorsOf(responses, success),
  };
}

// Reads the reference endpoints out of an OpenAPI document (every GET operation under /public/v1, with the write
// operations of its path).
export function endpointsFromDocument(doc: Json): RefEndpoint[] {
  const out: RefEndpoint[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    const op = item.get as Json | undefined;
    if (!op) continue;
    const responses = op.responses as Record<string, Json>;
    const ok = responses["200"]!;
    const [mediaType, okContent] = Object.entries(ok.content as Record<string, Json>)[0]!;
    const okSchema = okContent.schema as Json;
    // An export's answer (preview `export`) is a stream of lines, each one of the schemas it names.
    const stream = mediaType === "application/json" ? undefined : streamOf(doc, mediaType, ok, okContent);
    // A list's answer is a page of items; an item's (preview `details`) is the item itself.
    const envelope = (stream ? undefined : (okSchema.properties as Record<string, Json> | undefined)) ?? {};
    const page = envelope.data !== undefined;
    // A page's own fields besides data and pagination (the change feed's cursor and hasMore).
    const { data: _data, pagination, ...own } = page ? envelope : {};
    const itemRef = stream
      ? ""
      : String((page ? (envelope.data!.items as Json | undefined) : okSchema)?.$ref ?? "");
    // 2xx and 3xx (the 304 to If-None-Match) are answers, not errors.
    const errors = errorsOf(responses, (status) => Number(status) < 400);
    const notModified = responses["304"];
    const params = (op.parameters as Json[] | undefined) ?? [];
    out.push({
      slug: path
        .replace(/^\/public\/v1\//, "")
        .replace(/\{([^}]+)\}/g, "$1")
        .replace(/[^a-z0-9-]+/gi, "-"),
      method: "GET",
      path,
      operationId: String(op.operationId),
      summary: String(op.summary ?? ""),
      description: stripScope(op.description),
      tag: String((op.tags as string[] | undefined)?.[0] ?? ""),
      scope: String(op["x-required-scope"] ?? ""),
      preview: op["x-preview"] === true,
      item: !page && !stream,
      pathParams: params.filter((p) => p.in === "path").map(param),
      params: params.filter((p) => p.in === "query").map(param),
      headerParams: params.filter((p) => p.in === "header").map(param),
      itemSchemaName: itemRef.split("/").pop() ?? "",
      itemFields: itemRef ? fields(doc, { $ref: itemRef }) : [],
      paginationFields: pagination ? fields(doc, pagination) : [],
      pageFields: fields(doc, { properties: own, required: okSchema.required }),
      exampleResponse: (okContent.example as Json | undefined) ?? {},
      errors,
      successHeaders: Object.keys((ok.headers as Json | undefined) ?? {}),
      successHeaderDocs: headerDocs(doc, ok.headers as Json | undefined),
      notModified: notModified
        ? {
            description: String(notModified.description ?? ""),
            headers: headerDocs(doc, notModified.headers as Json | undefined),
          }
        : undefined,
      writes: item.post ? [writeOperation(doc, path, item.post as Json)] : [],
      ...(stream ? { stream } : {}),
    });
  }
  return out;
}

// The 200 of a stream of JSON lines, read out of the document: its schema names the shapes a line may have (anyOf),
// the last of them the end line's, whose fields the page shows; its examples are example lines.
function streamOf(doc: Json, mediaType: string, ok: Json, content: Json): RefStream {
  const names = (((content.schema as Json).anyOf as Json[] | undefined) ?? []).map((s) =>
    String(s.$ref ?? "")
      .split("/")
      .pop(),
  ) as string[];
  const endSchemaName = names.at(-1) ?? "";
  return {
    mediaType,
    description: String(ok.description ?? ""),
    endSchemaName,
    endFields: endSchemaName ? fields(doc, { $ref: `#/components/schemas/${endSchemaName}` }) : [],
    exampleLines: Object.values((content.examples as Record<string, Json> | undefined) ?? {}).map(
      (e) => e.value as Json,
    ),
  };
}

// A webhook of the document (preview `webhooks`): the request this server sends to an integrator's endpoint, read
// out of the document's top-level `webhooks`.
export interface RefWebhook {
  name: string;
  operationId: string;
  summary: string;
  description: string;
  /** Marked `x-preview` in the document: may still change. */
  preview: boolean;
  /** The headers every delivery carries. */
  headers: RefParam[];
  bodySchemaName: string;
  bodyFields: RefField[];
  example: Json;
}

// Reads the webhooks out of an OpenAPI document (none unless the preview `webhooks` is on).
export function webhooksFromDocument(doc: Json): RefWebhook[] {
  return Object.entries((doc.webhooks as Record<string, Json> | undefined) ?? {}).flatMap(([name, item]) => {
    const op = item.post as Json | undefined;
    if (!op) return [];
    const body = ((op.requestBody as Json).content as Record<string, Json>)["application/json"]!;
    const schema = body.schema as Json;
    return [
      {
        name,
        operationId: String(op.operationId ?? name),
        summary: String(op.summary ?? ""),
        description: String(op.description ?? ""),
        preview: op["x-preview"] === true,
        headers: ((op.parameters as Json[] | undefined) ?? []).filter((p) => p.in === "header").map(param),
        bodySchemaName: typeOf(schema),
        bodyFields: fields(doc, schema),
        example: body.example as Json,
      },
    ];
  });
}

// The reference as built for one configuration (`key`: write preview and base URL): the OpenAPI document and the
// endpoints read from it. The runtime keeps the last one built (Runtime.reference).
export interface ReferenceDocument {
  key: string;
  doc: Json;
  endpoints: RefEndpoint[];
}

// The reference of the current configuration: the runtime's, rebuilt when the base URL or the write-preview switch
// has changed.
function referenceDocument(): ReferenceDocument {
  const { baseUrl, preview } = getConfig();
  const key = `${preview.join(",")} ${baseUrl}`;
  const cache = getRuntime().reference;
  if (cache.value?.key !== key) {
    const doc = buildOpenApiDocument(baseUrl, { preview });
    cache.value = { key, doc, endpoints: endpointsFromDocument(doc) };
  }
  return cache.value;
}

// The OpenAPI document this server publishes at /public/v1/openapi.json (built once per base URL and write-preview
// switch).
export function getOpenApiDocument(): Json {
  return referenceDocument().doc;
}

// The webhooks of the reference (preview `webhooks`), in the document's order.
export function getReferenceWebhooks(): RefWebhook[] {
  return webhooksFromDocument(referenceDocument().doc);
}

// Every endpoint of the reference, in the document's order.
export function getReferenceEndpoints(): RefEndpoint[] {
  return referenceDocument().endpoints;
}

// One endpoint of the reference by its page slug, or undefined.
export function getReferenceEndpoint(slug: string): RefEndpoint | undefined {
  return getReferenceEndpoints().find((e) => e.slug === slug);
}

// Code samples of one write (the body sent as JSON with a fresh Idempotency-Key) in the reference's languages.
export function writeSamples(r: {
  baseUrl: string;
  path: string;
  body: Json;
  key: string;
}): Record<"curl" | "javascript" | "python", string> {
  const url = `${r.baseUrl}${r.path}`;
  const json = JSON.stringify(r.body, null, 2);
  const env = r.key.replace(/^\$/, "");
  const indent = (text: string, by: string) => text.replace(/\n/g, `\n${by}`);
  return {
    curl: [
      `curl -sS -X POST '${url}' \\`,
      `  -H "Authorization: Bearer ${r.key}" \\`,
      "  -H 'Content-Type: application/json' \\",
      '  -H "Idempotency-Key: $(openssl rand -hex 16)" \\',
      "  --data-binary @- <<'JSON'",
      json,
      "JSON",
    ].join("\n"),
    javascript: [
      `const product = ${indent(json, "")};`,
      "",
      `const response = await fetch(${JSON.stringify(url)}, {`,
      '  method: "POST",',
      "  headers: {",
      `    Authorization: \`Bearer \${process.env.${env}}\`,`,
      '    "Content-Type": "application/json",',
      '    "Idempotency-Key": crypto.randomUUID(), // reuse it when you retry this same request',
      "  },",
      "  body: JSON.stringify(product),",
      "});",
      "const body = await response.json();",
      "if (!response.ok) throw new Error(`${body.statusCode} ${body.code}: ${JSON.stringify(body.details)}`);",
      'console.log(body.id, response.headers.get("Location"));',
    ].join("\n"),
    python: [
      "import os",
      "import uuid",
      "",
      "import requests",
      "",
      `product = ${indent(
        json
          .replace(/\btrue\b/g, "True")
          .replace(/\bfalse\b/g, "False")
          .replace(/\bnull\b/g, "None"),
        "",
      )}`,
      "response = requests.post(",
      `    ${JSON.stringify(url)},`,
      "    json=product,",
      "    headers={",
      `        "Authorization": f"Bearer {os.environ['${env}']}",`,
      '        "Idempotency-Key": str(uuid.uuid4()),  # reuse it when you retry this same request',
      "    },",
      "    timeout=10,",
      ")",
      "body = response.json()",
      "if not response.ok:",
      "    raise RuntimeError(f\"{body['statusCode']} {body['code']}: {body.get('details')}\")",
      'print(body["id"], response.headers["Location"])',
    ].join("\n"),
  };
}
