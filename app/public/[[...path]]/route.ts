import { publicApi } from "@/lib/public-api/router";

export const dynamic = "force-dynamic";

// Anything under /public/ outside /public/v1 (/public, /public/v1 itself, /public/v2/…): 404 in the error shape.
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = publicApi.notFound();
