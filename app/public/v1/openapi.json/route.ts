import { getConfig } from "@/lib/config";
import { buildOpenApiDocument } from "@/lib/public-api/openapi";
import { publicDocumentRoute } from "@/lib/public-api/with-public-api";

export const dynamic = "force-dynamic";

let cached: { key: string; json: string } | undefined;

// GET /public/v1/openapi.json: the OpenAPI 3.1 document, public (no key), for the portal and code generators; with
// the write preview on (PUBLIC_API_WRITE_PREVIEW), it includes POST /public/v1/products, marked preview.
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = publicDocumentRoute(() => {
  const { baseUrl, PUBLIC_API_WRITE_PREVIEW: writePreview } = getConfig();
  const key = `${writePreview} ${baseUrl}`;
  if (cached?.key !== key) {
    cached = { key, json: JSON.stringify(buildOpenApiDocument(baseUrl, { writePreview })) };
  }
  return cached.json;
}, "public, max-age=300");
