import { publicApi } from "@/lib/public-api/router";

export const dynamic = "force-dynamic";

// /public/v1/categories: GET lists (categories:read); other methods answer 405.
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = publicApi.route("/public/v1/categories");
