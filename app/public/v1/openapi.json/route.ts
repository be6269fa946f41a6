import { getConfig } from "@/lib/config";
import { buildOpenApiDocument } from "@/lib/public-api/openapi";
import { publicDocumentRoute } from "@/lib/public-api/with-public-api";

export const dynamic = "force-dynamic";

let cached: string | undefined;

// GET /public/v1/openapi.json: the OpenAPI 3.1 document, public (no key), for the portal and code generators.
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = publicDocumentRoute(() => {
  cached ??= JSON.stringify(buildOpenApiDocument(getConfig().baseUrl));
  return cached;
}, "public, max-age=300");
