// The public API's router: matches a request to an operation of OPERATIONS and dispatches it: 404 for a path that
// names no operation switched on, 405 with Allow, the CORS preflight, HEAD as GET, and the admission of every
// operation that is not answered from memory. Its answers are replies (lib/public-api/reply.ts): `npm start` hosts
// `answer` on node:http and writes them as they are (lib/server/api-host.ts); the one-line route files under
// app/public hand it what Next.js routed to them and get Web Responses, as the tests calling `fetch` in-process do.
import { getRuntime } from "@/lib/runtime";
import { previewOn } from "@/lib/preview";
import { overloadedReply } from "./admission";
import { plainError } from "./error-response";
import { preflightReply } from "./headers";
import type { ApiRequest } from "./api-request";
import type { Method, Operation } from "./operation";
import { buildOpenApiDocument } from "./openapi/document";
import { OPERATIONS, type OperationPath } from "./operations";
import type { PathParams } from "./pipeline";
import { toResponse, type Reply } from "./reply";
import { apiState } from "./state";

// A path of the API and its operations by method. A resource whose every operation belongs to a preview feature
// that is off does not exist: 404, as any unknown path.
interface Resource {
  path: string;
  operations: Partial<Record<Method, Operation>>;
  /** The only values its parameter takes (an export's resource names): any other is no path of the API, 404. */
  values?: readonly string[];
}

// The methods in the order an Allow header lists them: GET, HEAD, then the others.
const METHOD_ORDER: readonly Method[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

// The operations grouped by path, in the order of OPERATIONS.
const RESOURCES = new Map<string, Resource>();
for (const op of OPERATIONS as readonly Operation[]) {
  let resource = RESOURCES.get(op.path);
  if (!resource) RESOURCES.set(op.path, (resource = { path: op.path, operations: {} }));
  resource.operations[op.method] = op;
  if (op.values) resource.values = op.values;
}

const ALL = [...RESOURCES.values()];
const BY_PATH = new Map(ALL.filter((r) => !r.path.endsWith("}")).map((r) => [r.path, r]));
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

// The operation of a resource's method switched on in the runtime's configuration (HEAD is answered by GET's).
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
const preflight = (resource: Resource): Promise<Reply> => Promise.resolve(preflightReply(allowed(resource)));

// Answers a request for a resource: its operation (admitted, unless answered from memory), the preflight, or a 405
// naming the methods allowed (a resource of preview features that are all off: 404).
function dispatch(resource: Resource, request: ApiRequest, params: PathParams): Promise<Reply> {
  if (!exists(resource, params)) return notFound(request.method);
  const op = operation(resource, request.method);
  if (op?.free) {
    const rt = getRuntime();
    return op.handler({
      request,
      config: rt.config,
      state: rt.part(apiState),
      document: buildOpenApiDocument,
    });
  }
  if (op) return admitted(op, request, params);
  if (request.method === "OPTIONS") return preflight(resource);
  return Promise.resolve(plainError("PUBLIC_API_METHOD_NOT_ALLOWED", request.method, allowed(resource)));
}

// An operation run in a place of the admission (lib/public-api/admission.ts), given back when its handler has
// answered or thrown; refused (the queue full or its wait too long), a 503 at once. The request's signal is read only
// by a request that waits (building it costs; lib/server/api-host.ts): a client gone leaves the queue.
async function admitted(
  op: Extract<Operation, { handle: unknown }>,
  request: ApiRequest,
  params: PathParams,
): Promise<Reply> {
  const { admission } = getRuntime().part(apiState);
  if (!admission.tryEnter() && !(await admission.enter(request.signal)))
    return overloadedReply(request.method);
  try {
    return await op.handle(request, params, admission);
  } finally {
    admission.leave();
  }
}

// Anything under /public/ that is not a resource: 404 in the error shape, whatever the method.
const notFound = (method: string): Promise<Reply> =>
  Promise.resolve(plainError("PUBLIC_API_NOT_FOUND", method));

// The handlers of every method but OPTIONS, all answered by `answer`, as Web Responses.
function methods(answer: (request: Request) => Promise<Reply>): Omit<RouteHandlers, "OPTIONS"> {
  const respond = async (request: Request) => toResponse(await answer(request));
  return { GET: respond, HEAD: respond, POST: respond, PUT: respond, PATCH: respond, DELETE: respond };
}

// The public API: `answer` answers any request under /public/ by its path (npm start's server), `fetch` the same as
// a Web Response (the tests); `route` gives a route file the handlers of the path Next.js routed to it; `notFound`
// those of a catch-all route.
export const publicApi = {
  answer(request: ApiRequest): Promise<Reply> {
    const found = match(new URL(request.url).pathname);
    return found ? dispatch(found.resource, request, found.params) : notFound(request.method);
  },
  async fetch(request: Request): Promise<Response> {
    return toResponse(await publicApi.answer(request));
  },
  route(path: OperationPath): RouteHandlers {
    const resource = RESOURCES.get(path)!;
    // The path's parameters read again from the URL (one rule for both hosts; Next.js matched the same path).
    const paramsOf = (request: Request) => match(new URL(request.url).pathname)?.params ?? {};
    const answer = (request: Request) => dispatch(resource, request, paramsOf(request));
    return {
      ...methods(answer),
      OPTIONS: async (request) =>
        toResponse(
          await (exists(resource, request && paramsOf(request)) ? preflight(resource) : notFound("OPTIONS")),
        ),
    };
  },
  /**
   * Whether a request of `method` on `pathname` (not decoded) is refused for overload before it is built: an
   * operation that takes a place, while the admission refuses newcomers at once (lib/public-api/admission.ts,
   * refuseNow; counted there). npm start's host asks before building the Web Request, and answers overloadedAnswer
   * itself: refused that way, no Web Request is built for it. Every place free: one comparison.
   */
  refusesNow(method: string, pathname: string): boolean {
    const { admission } = getRuntime().part(apiState);
    if (!admission.wouldRefuse()) return false;
    const found = match(pathname);
    const op = found && exists(found.resource, found.params) ? operation(found.resource, method) : undefined;
    return op !== undefined && !op.free && admission.refuseNow();
  },
  notFound(): RouteHandlers {
    return {
      ...methods((request) => notFound(request.method)),
      OPTIONS: async () => toResponse(await notFound("OPTIONS")),
    };
  },
};
