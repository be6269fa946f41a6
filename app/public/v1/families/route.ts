import { ENDPOINTS } from "@/lib/public-api/endpoints";
import { publicRoute } from "@/lib/public-api/with-public-api";

export const dynamic = "force-dynamic";

// GET /public/v1/families (scope families:read); other methods answer 405.
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = publicRoute(
  ENDPOINTS.families.handler,
  ENDPOINTS.families,
);
