import { publicApi } from "@/lib/public-api/router";

export const dynamic = "force-dynamic";

// /public/v1/families/[id]: a family with its attributes (preview feature `details`: 404 while it is off).
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = publicApi.route("/public/v1/families/{id}");
