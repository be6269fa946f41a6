import { ENDPOINTS } from "@/lib/public-api/endpoints";
import { createProductRoute } from "@/lib/public-api/create-product";
import { preflightResponse } from "@/lib/public-api/headers";
import { publicRoute } from "@/lib/public-api/with-public-api";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

const read = publicRoute(ENDPOINTS.products.handler, ENDPOINTS.products);

// GET /public/v1/products (scope products:read); POST creates a product while the write preview is switched on
// (PUBLIC_API_WRITE_PREVIEW) and answers 405 like the other methods while it is off (V1).
export const { GET, HEAD, PUT, PATCH, DELETE } = read;
export const POST = (request: Request): Promise<Response> =>
  getRuntime().config.PUBLIC_API_WRITE_PREVIEW ? createProductRoute(request) : read.POST(request);
// The preflight: POST is listed only while the write preview is on.
export const OPTIONS = async (): Promise<Response> =>
  getRuntime().config.PUBLIC_API_WRITE_PREVIEW
    ? preflightResponse("GET, HEAD, POST, OPTIONS")
    : read.OPTIONS();
