// The public API's router: the one table of its operations (path, method, preview feature) and the one place that
// matches a request to an operation, answers 404, 405 and the CORS preflight, and hands the rest to the pipeline.
// A Web-standard `(Request) => Promise<Response>`: `npm start` hosts it on node:http (lib/server/api-host.ts), the
// one-line route files under app/public hand it what Next.js routed to them, the tests call it in-process.
import { randomUUID } from "node:crypto";
import { getConfig } from "@/lib/config";
import { getRuntime } from "@/lib/runtime";
import { CHANGES_ENDPOINT } from "./changes-endpoint";
import { createProductRoute } from "./create-product-route";
import { CHANNELS_ENDPOINT, ITEM_ENDPOINTS, type ItemEndpoint } from "./detail-endpoints";
import { ENDPOINTS, type ListEndpoint } from "./endpoints";
import { plainError } from "./error-response";
import { EXPORT_ENDPOINT } from "./export-endpoint";
import { baseHeaders, preflightResponse } from "./headers";
import { overloadedResponse, type Admission } from "./admission";
import { buildOpenApiDocument } from "./openapi";
import { withPublicApi } from "./pipeline";
import { apiState } from "./state";
import { previewOn, type PreviewFeature } from "@/lib/preview";

// The methods an operation may have (HEAD is GET's; OPTIONS, the preflight, is the router's).
type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

// The parameters of a resource's path (`{id}` of /public/v1/products/{id}), decoded.
export type PathParams = Readonly<Record<string, string>>;

// One operation: what answers it, and the preview feature it belongs to (absent: V1, always on). `handle` gets the
// admission whose place the request holds (undefined for an operation that needs none).
interface Operation {
  handle: (request: Request, params: PathParams, admission?: Admission) => Promise<Response>;
  preview?: PreviewFeature;
  /** Answered from memory, never admitted (the OpenAPI document): shedding it would free nothing. */
  free?: true;
}

// One resource: its path (a last segment `{id}` is a parameter) and its operations by method. A resource whose
// every operation belongs to a preview feature that is off does not exist: 404, as any unknown path.
interface Resource {
  path: `/public/${string}`;
  operations: Partial<Record<Method, Operation>>;
  /** The only values its parameter takes (an export's resource names): any other is no path of the API, 404. */
  values?: readonly string[];
}

// The methods in the order an Allow header lists them: GET, HEAD, then the others.
const METHOD_ORDER: readonly Method[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

// A list endpoint's GET: the pipeline with its scope and query, conditional (ETag, 304, page cache).
function list<Q>(e: ListEndpoint<Q>, preview?: PreviewFeature): Operation {
  return {
    handle: withPublicApi(e.handler, { scope: e.scope, query: e.query, conditional: [e.name] }),
    preview,
  };
}

// An item endpoint's GET (preview `details`): the pipeline with its scope and query, conditional on the versions of
// what it shows (ETag, 304, page cache).
function item<Q>(e: ItemEndpoint<Q>): Operation {
  return {
    handle: withPublicApi(e.handler, { scope: e.scope, query: e.query, conditional: e.shows }),
    preview: "details",
  };
}

// GET /public/v1/changes (preview `changes`): the pipeline with any read scope (each type's events are those the
// key's scopes allow) and its query; never conditional (an answer may wait for the next event).
const changes: Operation = {
  handle: withPublicApi(CHANGES_ENDPOINT.handler, {
    scope: CHANGES_ENDPOINT.scope,
    query: CHANGES_ENDPOINT.query,
  }),
  preview: "changes",
};

// GET /public/v1/openapi.json: the OpenAPI 3.1 document, public (no key), for the portal and code generators; with
// the write preview on, it includes POST /public/v1/products, marked preview. Built once per (preview, base URL)
// and kept in the runtime (DESIGN §1: one object holds the process's state).
async function openApiDocument(request: Request): Promise<Response> {
  const { baseUrl, preview } = getConfig();
  const documents = getRuntime().part(apiState).openApiDocuments;
  const key = `${preview.join(",")} ${baseUrl}`;
  let json = documents.get(key);
  if (json === undefined) {
    json = JSON.stringify(buildOpenApiDocument(baseUrl, { preview }));
    documents.set(key, json);
  }
  return new Response(request.method === "HEAD" ? null : json, {
    headers: baseHeaders(randomUUID(), "public, max-age=300"),
  });
}

// Every resource of the public API, by the name its route file gives.
const RESOURCES = {
  products: {
    path: ENDPOINTS.products.path,
    operations: { GET: list(ENDPOINTS.products), POST: { handle: createProductRoute, preview: "writes" } },
  },
  families: { path: ENDPOINTS.families.path, operations: { GET: list(ENDPOINTS.families) } },
  attributes: { path: ENDPOINTS.attributes.path, operations: { GET: list(ENDPOINTS.attributes) } },
  categories: { path: ENDPOINTS.categories.path, operations: { GET: list(ENDPOINTS.categories) } },
  media: { path: ENDPOINTS.media.path, operations: { GET: list(ENDPOINTS.media) } },
  product: { path: ITEM_ENDPOINTS.product.path, operations: { GET: item(ITEM_ENDPOINTS.product) } },
  family: { path: ITEM_ENDPOINTS.family.path, operations: { GET: item(ITEM_ENDPOINTS.family) } },
  attribute: { path: ITEM_ENDPOINTS.attribute.path, operations: { GET: item(ITEM_ENDPOINTS.attribute) } },
  channels: { path: CHANNELS_ENDPOINT.path, operations: { GET: list(CHANNELS_ENDPOINT, "details") } },
  changes: { path: CHANGES_ENDPOINT.path, operations: { GET: changes } },
  export: {
    path: EXPORT_ENDPOINT.path,
    values: EXPORT_ENDPOINT.resources,
    operations: {
      // Not conditional: an export is a snapshot of its moment, never stored (Cache-Control: private, no-store).
      GET: {
        handle: withPublicApi(EXPORT_ENDPOINT.handler, {
          scope: EXPORT_ENDPOINT.scope,
          query: EXPORT_ENDPOINT.query,
        }),
        preview: "export",
      },
    },
  },
  "openapi.json": {
    path: "/public/v1/openapi.json",
    operations: { GET: { handle: openApiDocument, free: true } },
  },
} satisfies Record<string, Resource>;

// A resource's name, as a route file passes it to publicApi.route.
export type ResourceName = keyof typeof RESOURCES;

const ALL: readonly Resource[] = Object.values(RESOURCES);
const BY_PATH = new Map<string, Resource>(ALL.filter((r) => !r.path.endsWith("}")).map((r) => [r.path, r]));
// Resources whose last segment is a parameter, by the path before it ("/public/v1/products" for its {id}).
const BY_PARENT = new Map<string, { resource: Resource; param: string }>(
  ALL.filter((r) => r.path.endsWith("}")).map((r) => {
    const cut = r.path.lastIndexOf("/");
    return [r.path.slice(0, cut), { resource: r, param: r.path.slice(cut + 2, -1) }];
  }),
);

// The resource a path names and its parameters: a fixed path, or a parameter's parent and one segment (not empty,
// decoded; a segment that does not decode names nothing).
function match(pathname: string): { resource: Resource; params: PathParams } | undefined {
  const fixed = BY_PATH.get(pathname);
  if (fixed) return { resource: fixed, params: {} };
  const cut = pathname.lastIndexOf("/");
  const parent = BY_PARENT.get(pathname.slice(0, cut));
  const segment = pathname.slice(cut + 1);
  if (!parent || segment === "") return undefined;
  try {
    return { resource: parent.resource, params: { [parent.param]: decodeURIComponent(segment) } };
  } catch {
    return undefined;
  }
}

// The handlers a route file exports, one per method Next.js may call.
export interface RouteHandlers {
  GET: (request: Request) => Promise<Response>;
  HEAD: (request: Request) => Promise<Response>;
  /** The preflight (the request is not needed: Next.js passes it, a test may not). */
  OPTIONS: (request?: Request) => Promise<Response>;
  POST: (request: Request) => Promise<Response>;
  PUT: (request: Request) => Promise<Response>;
  PATCH: (request: Request) => Promise<Response>;
  DELETE: (request: Request) => Promise<Response>;
}

// Whether any operation of a resource is switched on now, and its path's parameter is one it takes.
function exists(resource: Resource, params: PathParams = {}): boolean {
  if (resource.values) {
    const [value] = Object.values(params);
    if (value === undefined || !resource.values.includes(value)) return false;
  }
  return METHOD_ORDER.some((m) => operation(resource, m));
}

// The operation of a resource's method that is switched on now (HEAD is answered by GET's), else undefined.
function operation(resource: Resource, method: string): Operation | undefined {
  const op = resource.operations[(method === "HEAD" ? "GET" : method) as Method];
  if (op?.preview === undefined) return op;
  return previewOn(op.preview, getRuntime().config) ? op : undefined;
}

// A resource's Allow header: the methods of its operations switched on now (`GET, HEAD` on V1, `GET, HEAD, POST` on
// products with the write preview on); its 405 and its preflight send the same value.
function allowed(resource: Resource): string {
  return METHOD_ORDER.filter((m) => operation(resource, m))
    .flatMap((m) => (m === "GET" ? ["GET", "HEAD"] : [m]))
    .join(", ");
}

// The CORS preflight of a resource.
const preflight = (resource: Resource): Promise<Response> =>
  Promise.resolve(preflightResponse(allowed(resource)));

// Answers a request for a resource: its operation (admitted), the preflight, or a 405 naming the methods allowed (a
// resource of preview features that are all off: 404).
function dispatch(resource: Resource, request: Request, params: PathParams): Promise<Response> {
  if (!exists(resource, params)) return notFound(request.method);
  const op = operation(resource, request.method);
  if (op) return op.free ? op.handle(request, params) : admitted(op, request, params);
  if (request.method === "OPTIONS") return preflight(resource);
  return Promise.resolve(plainError("PUBLIC_API_METHOD_NOT_ALLOWED", request.method, allowed(resource)));
}

// An operation run in a place of the runtime's admission (lib/public-api/admission.ts), given back when its handler has
// answered or thrown; refused (the queue full or its wait too long), a 503 at once. The request's signal is read only
// by a request that waits (building it costs; lib/server/api-host.ts): a client gone leaves the queue.
async function admitted(op: Operation, request: Request, params: PathParams): Promise<Response> {
  const admission = getRuntime().part(apiState).admission;
  if (!admission.tryEnter() && !(await admission.enter(request.signal)))
    return overloadedResponse(request.method);
  try {
    return await op.handle(request, params, admission);
  } finally {
    admission.leave();
  }
}

// Anything under /public/ that is not a resource: 404 in the error shape, whatever the method.
const notFound = (method: string): Promise<Response> =>
  Promise.resolve(plainError("PUBLIC_API_NOT_FOUND", method));

// The handlers of every method but OPTIONS, all answered by `answer`.
function methods(answer: (request: Request) => Promise<Response>): Omit<RouteHandlers, "OPTIONS"> {
  return { GET: answer, HEAD: answer, POST: answer, PUT: answer, PATCH: answer, DELETE: answer };
}

// The public API: `fetch` answers any request under /public/ by its path (npm start's server, the tests); `route`
// gives a route file the handlers of the resource Next.js routed to it; `notFound` those of a catch-all route.
export const publicApi = {
  fetch(request: Request): Promise<Response> {
    const found = match(new URL(request.url).pathname);
    return found ? dispatch(found.resource, request, found.params) : notFound(request.method);
  },
  route(name: ResourceName): RouteHandlers {
    const resource: Resource = RESOURCES[name];
    // The path's parameters read again from the URL (one rule for both hosts; Next.js matched the same path).
    const paramsOf = (request: Request) => match(new URL(request.url).pathname)?.params ?? {};
    const answer = (request: Request) => dispatch(resource, request, paramsOf(request));
    return {
      ...methods(answer),
      OPTIONS: (request) =>
        exists(resource, request && paramsOf(request)) ? preflight(resource) : notFound("OPTIONS"),
    };
  },
  /**
   * Whether a request of `method` on `pathname` (not decoded) is refused for overload before it is built: an
   * operation that takes a place, while the admission refuses newcomers at once (lib/public-api/admission.ts,
   * refuseNow; counted there). npm start's host asks before building the Web Request, and answers overloadedAnswer
   * itself: refused that way a request costs a tenth of one that `fetch` refuses. Every place free: one comparison.
   */
  refusesNow(method: string, pathname: string): boolean {
    const admission = getRuntime().part(apiState).admission;
    if (!admission.wouldRefuse()) return false;
    const found = match(pathname);
    const op = found && exists(found.resource, found.params) ? operation(found.resource, method) : undefined;
    return op !== undefined && !op.free && admission.refuseNow();
  },
  notFound(): RouteHandlers {
    return { ...methods((request) => notFound(request.method)), OPTIONS: () => notFound("OPTIONS") };
  },
};
