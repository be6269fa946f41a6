import { ENDPOINTS } from "@/lib/public-api/endpoints";
import { publicRoute } from "@/lib/public-api/with-public-api";

export const dynamic = "force-dynamic";

// GET /public/v1/media (scope media:read); other methods answer 405.
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = publicRoute(
  ENDPOINTS.media.handler,
  ENDPOINTS.media,
);
