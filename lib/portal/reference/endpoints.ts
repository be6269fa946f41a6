// Reads the reference's endpoints (with the write operations of their paths) and webhooks out of an OpenAPI document.
import { errorsOf, fields, headerDocs, param, resolveRef, stripScope, typeOf, valueTypes } from "./schema";
import type { Json, RefEndpoint, RefStream, RefWebhook, RefWriteOperation } from "./types";

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
