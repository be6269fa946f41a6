// An operation of the public API, declared in one place: its method and path, the scope it requires, its query and
// body, what its conditional answers are keyed by, the preview feature it belongs to, its OpenAPI fragment and its
// handler. The router matches and dispatches over the list of them (operations/index.ts); the OpenAPI document is
// assembled from their fragments (openapi/document.ts).
import type { CatalogResource } from "@/lib/catalog/list/count-cache";
import type { QueryDef } from "@/lib/catalog/list/query-grammar";
import type { Config } from "@/lib/config";
import type { PreviewFeature } from "@/lib/preview";
import type { Admission } from "./admission";
import type { ApiRequest } from "./api-request";
import type { Json } from "./openapi/json-schema";
import { withPublicApi, type ApiHandler, type PathParams, type ScopeRequirement } from "./pipeline";
import type { Reply } from "./reply";
import type { ApiState } from "./state";

// The methods an operation may have (HEAD is GET's; OPTIONS, the preflight, is the router's).
export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

// What the OpenAPI document describes besides V1: the preview features switched on (none by default).
export interface OpenApiOptions {
  preview?: readonly PreviewFeature[];
}

// A tag of the OpenAPI document: the group the portal's reference shows an operation in.
export interface OpenApiTag {
  name: string;
  description: string;
}

// An operation's part of the OpenAPI document: its operation object (under its path and method), the tag it
// introduces (listed in the document in the order operations first name it), and the schema components it alone
// refers to.
export interface OpenApiFragment {
  operation: Json;
  tag?: OpenApiTag;
  components?: Record<string, Json>;
}

// What every operation declares.
interface Declared<P extends string> {
  method: Method;
  /** `/public/v1/...`; a last segment `{name}` is a parameter (decoded; one that does not decode names nothing). */
  path: P;
  /** The only values the path's parameter takes (an export's resources): any other is no path of the API, 404. */
  values?: readonly string[];
  /** The preview feature it belongs to; absent, V1 (always on). Off, the operation does not exist. */
  preview?: PreviewFeature;
  /** Its part of the OpenAPI document (absent: not in the document, as the document itself). */
  openapi?: (options: OpenApiOptions) => OpenApiFragment;
}

// An operation that a key calls: the pipeline's stages around its handler.
export interface KeyedOperationDef<Q, P extends string> extends Declared<P> {
  /** The scope required (several: any one of them; a function: the scope of the resource the path names). */
  scope: ScopeRequirement | ((params: PathParams) => ScopeRequirement);
  query: QueryDef<Q>;
  /** A write: its JSON body is read (415, 413, 400) and handed to the handler as ctx.body. */
  jsonBody?: true;
  /** Conditional answers (ETag, 304, page cache), keyed by the organization's versions of these resources. */
  conditional?: readonly CatalogResource[];
  handler: ApiHandler<Q>;
}

// What an operation answered from memory receives: its request, the configuration, the API's state, and the
// OpenAPI document's builder.
export interface FreeContext {
  request: ApiRequest;
  config: Config;
  state: ApiState;
  document: (baseUrl: string, options: OpenApiOptions) => Json;
}

// An operation answered from memory, public and never admitted (the OpenAPI document): shedding it frees nothing.
export interface FreeOperationDef<P extends string> extends Declared<P> {
  free: true;
  handler: (ctx: FreeContext) => Promise<Reply>;
}

// An operation with a key, as the router holds it: what it declares, and how a request is answered (the pipeline's
// stages, then the handler; `admission`: the one whose place the request holds). Q, the query's parsed type, is
// inferred from its query definition.
export type KeyedOperation<Q = unknown, P extends string = string> = KeyedOperationDef<Q, P> & {
  free?: undefined;
  handle: (request: ApiRequest, params: PathParams, admission?: Admission) => Promise<Reply>;
};

// An operation as the router holds it, whatever its query.
export type Operation =
  (Declared<string> & { free?: undefined; handle: KeyedOperation["handle"] }) | FreeOperationDef<string>;

// Declares an operation (one file each under operations/).
export function defineOperation<Q, const P extends `/public/${string}`>(
  def: KeyedOperationDef<Q, P>,
): KeyedOperation<Q, P>;
export function defineOperation<const P extends `/public/${string}`>(
  def: FreeOperationDef<P>,
): FreeOperationDef<P>;
export function defineOperation<Q, const P extends `/public/${string}`>(
  def: KeyedOperationDef<Q, P> | FreeOperationDef<P>,
): KeyedOperation<Q, P> | FreeOperationDef<P> {
  if ("free" in def) return def;
  const handle = withPublicApi(def.handler, {
    scope: def.scope,
    query: def.query,
    jsonBody: def.jsonBody,
    conditional: def.conditional,
  });
  return { ...def, handle };
}
