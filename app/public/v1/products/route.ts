import { ENDPOINTS } from "@/lib/public-api/endpoints";
import { createProductRoute } from "@/lib/public-api/create-product";
import { WRITE_ALLOW, plainError } from "@/lib/public-api/error-response";
import { preflightResponse } from "@/lib/public-api/headers";
import { publicRoute } from "@/lib/public-api/with-public-api";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

const read = publicRoute(ENDPOINTS.products.handler, ENDPOINTS.products);

// GET /public/v1/products (scope products:read); POST creates a product while the write preview is switched on
// (PUBLIC_API_WRITE_PREVIEW) and answers 405 like the other methods while it is off (V1).
export const { GET, HEAD } = read;
const preview = () => getRuntime().config.PUBLIC_API_WRITE_PREVIEW;
export const POST = (request: Request): Promise<Response> =>
  preview() ? createProductRoute(request) : read.POST(request);
// The other methods' 405 and the preflight list POST only while the write preview is on, in one Allow value.
const notAllowed = async (request: Request): Promise<Response> =>
  preview() ? plainError("PUBLIC_API_METHOD_NOT_ALLOWED", request.method, WRITE_ALLOW) : read.PUT(request);
export const PUT = notAllowed;
export const PATCH = notAllowed;
export const DELETE = notAllowed;
export const OPTIONS = async (): Promise<Response> =>
  preview() ? preflightResponse(WRITE_ALLOW) : read.OPTIONS();
