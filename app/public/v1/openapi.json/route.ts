import { publicApi } from "@/lib/public-api/router";

export const dynamic = "force-dynamic";

// /public/v1/openapi.json: the OpenAPI document, public.
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = publicApi.route("/public/v1/openapi.json");
