// The public API's router: the one table of its operations (path, method, preview feature) and the one place that
// matches a request to an operation, answers 404, 405 and the CORS preflight, and hands the rest to the pipeline.
// A Web-standard `(Request) => Promise<Response>`: `npm start` hosts it on node:http (lib/server/api-host.ts), the
// one-line route files under app/public hand it what Next.js routed to them, the tests call it in-process.
import { randomUUID } from "node:crypto";
import { getConfig } from "@/lib/config";
import { getRuntime } from "@/lib/runtime";
import { createProductRoute } from "./create-product-route";
import { ENDPOINTS, type ListEndpoint } from "./endpoints";
import { plainError } from "./error-response";
import { baseHeaders, preflightResponse } from "./headers";
import { buildOpenApiDocument } from "./openapi";
import { withPublicApi } from "./pipeline";
import { previewOn, type PreviewFeature } from "./preview";

// The methods an operation may have (HEAD is GET's; OPTIONS, the preflight, is the router's).
type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

// One operation: what answers it, and the preview feature it belongs to (absent: V1, always on).
interface Operation {
  handle: (request: Request) => Promise<Response>;
  preview?: PreviewFeature;
}

// One resource: its path and its operations by method.
interface Resource {
  path: `/public/${string}`;
  operations: Partial<Record<Method, Operation>>;
}

// The methods in the order an Allow header lists them: GET, HEAD, then the others.
const METHOD_ORDER: readonly Method[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

// A list endpoint's GET: the pipeline with its scope and query, conditional (ETag, 304, page cache).
function list<Q>(e: ListEndpoint<Q>): Operation {
  return { handle: withPublicApi(e.handler, { scope: e.scope, query: e.query, conditional: e.name }) };
}

// GET /public/v1/openapi.json: the OpenAPI 3.1 document, public (no key), for the portal and code generators; with
// the write preview on, it includes POST /public/v1/products, marked preview. Built once per (preview, base URL)
// and kept in the runtime (DESIGN §1: one object holds the process's state).
async function openApiDocument(request: Request): Promise<Response> {
  const { baseUrl, PUBLIC_API_WRITE_PREVIEW: writePreview } = getConfig();
  const documents = getRuntime().openApiDocuments;
  const key = `${writePreview} ${baseUrl}`;
  let json = documents.get(key);
  if (json === undefined) {
    json = JSON.stringify(buildOpenApiDocument(baseUrl, { writePreview }));
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
  "openapi.json": { path: "/public/v1/openapi.json", operations: { GET: { handle: openApiDocument } } },
} satisfies Record<string, Resource>;

// A resource's name, as a route file passes it to publicApi.route.
export type ResourceName = keyof typeof RESOURCES;

const BY_PATH = new Map<string, Resource>(Object.values(RESOURCES).map((r) => [r.path, r]));

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

// Answers a request for a resource: its operation, the preflight, or a 405 naming the methods allowed.
function dispatch(resource: Resource, request: Request): Promise<Response> {
  const op = operation(resource, request.method);
  if (op) return op.handle(request);
  if (request.method === "OPTIONS") return preflight(resource);
  return Promise.resolve(plainError("PUBLIC_API_METHOD_NOT_ALLOWED", request.method, allowed(resource)));
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
    const resource = BY_PATH.get(new URL(request.url).pathname);
    return resource ? dispatch(resource, request) : notFound(request.method);
  },
  route(name: ResourceName): RouteHandlers {
    const resource: Resource = RESOURCES[name];
    const answer = (request: Request) => dispatch(resource, request);
    return { ...methods(answer), OPTIONS: () => preflight(resource) };
  },
  notFound(): RouteHandlers {
    return { ...methods((request) => notFound(request.method)), OPTIONS: () => notFound("OPTIONS") };
  },
};
