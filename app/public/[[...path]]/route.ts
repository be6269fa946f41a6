import { notFoundRoute } from "@/lib/public-api/with-public-api";

export const dynamic = "force-dynamic";

// Anything under /public/ outside /public/v1 (/public, /public/v1 itself, /public/v2/…): 404 in the error shape.
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = notFoundRoute();
