import { ENDPOINTS } from "@/lib/public-api/endpoints";
import { publicRoute } from "@/lib/public-api/with-public-api";

export const dynamic = "force-dynamic";

// GET /public/v1/categories (scope categories:read); other methods answer 405.
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = publicRoute(
  ENDPOINTS.categories.handler,
  ENDPOINTS.categories,
);
