import { notFoundRoute } from "@/lib/public-api/with-public-api";

export const dynamic = "force-dynamic";

// Any other path under /public/v1 (planned ones such as /products/{id} or /channels included): 404 in the error shape.
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = notFoundRoute();
