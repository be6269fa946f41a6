import "server-only";
import { getConfig } from "@/lib/config";
import { buildOpenApiDocument } from "@/lib/public-api/openapi/document";
import { getRuntime } from "@/lib/runtime";
import { endpointsFromDocument, webhooksFromDocument } from "./reference/endpoints";
import { portalState, type ReferenceDocument } from "./state";
import type { Json, RefEndpoint, RefWebhook } from "./reference/types";

export { endpointsFromDocument, webhooksFromDocument } from "./reference/endpoints";
export { writeSamples } from "./reference/write-samples";
export type {
  RefEndpoint,
  RefError,
  RefField,
  RefHeader,
  RefNotModified,
  RefParam,
  RefResponse,
  RefStream,
  RefValueType,
  RefWebhook,
  RefWriteOperation,
} from "./reference/types";

// The reference of the current configuration: the portal's, rebuilt when the base URL or the write-preview switch
// has changed.
function referenceDocument(): ReferenceDocument {
  const { baseUrl, preview } = getConfig();
  const key = `${preview.join(",")} ${baseUrl}`;
  const cache = getRuntime().part(portalState).reference;
  if (cache.value?.key !== key) {
    const doc = buildOpenApiDocument(baseUrl, { preview });
    cache.value = { key, doc, endpoints: endpointsFromDocument(doc) };
  }
  return cache.value;
}

// The OpenAPI document this server publishes at /public/v1/openapi.json (built once per base URL and write-preview
// switch).
export function getOpenApiDocument(): Json {
  return referenceDocument().doc;
}

// The webhooks of the reference (preview `webhooks`), in the document's order.
export function getReferenceWebhooks(): RefWebhook[] {
  return webhooksFromDocument(referenceDocument().doc);
}

// Every endpoint of the reference, in the document's order.
export function getReferenceEndpoints(): RefEndpoint[] {
  return referenceDocument().endpoints;
}

// One endpoint of the reference by its page slug, or undefined.
export function getReferenceEndpoint(slug: string): RefEndpoint | undefined {
  return getReferenceEndpoints().find((e) => e.slug === slug);
}
