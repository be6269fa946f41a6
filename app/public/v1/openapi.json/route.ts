import { publicApi } from "@/lib/public-api/router";

export const dynamic = "force-dynamic";

// /public/v1/openapi.json: the OpenAPI document, public (lib/public-api/router.ts).
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = publicApi.route("openapi.json");
