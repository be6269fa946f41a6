import { publicApi } from "@/lib/public-api/router";

export const dynamic = "force-dynamic";

// /public/v1/products: GET lists (products:read); POST creates while the write preview is on.
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = publicApi.route("/public/v1/products");
