import { publicApi } from "@/lib/public-api/router";

export const dynamic = "force-dynamic";

// /public/v1/attributes/[id]: an attribute with its options (preview feature `details`: 404 while it is off).
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = publicApi.route("/public/v1/attributes/{id}");
