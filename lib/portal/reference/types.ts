// The model of the API reference pages: endpoints, write operations and webhooks, each read out of the OpenAPI
// document (lib/portal/reference/endpoints.ts reads them).

// A node of the OpenAPI document, as JSON.
export type Json = Record<string, unknown>;

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
  /** Marked `x-preview` in the document (a preview feature's parameter of a V1 operation): may still change. */
  preview?: boolean;
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
