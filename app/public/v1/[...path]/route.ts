import { publicApi } from "@/lib/public-api/router";

export const dynamic = "force-dynamic";

// Any other path under /public/v1 (planned ones such as /products/{id} or /channels included): 404 in the error shape.
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = publicApi.notFound();
