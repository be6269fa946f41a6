import { getConfig } from "@/lib/config";
import { buildOpenApiDocument } from "@/lib/public-api/openapi";

export const dynamic = "force-dynamic";

let cached: string | undefined;

// GET /public/v1/openapi.json: the OpenAPI 3.1 document, public (no key), for the portal and code generators.
export async function GET(): Promise<Response> {
  cached ??= JSON.stringify(buildOpenApiDocument(getConfig().baseUrl));
  return new Response(cached, {
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Cache-Control": "public, max-age=300",
      "Access-Control-Allow-Origin": "*",
    },
  });
}
