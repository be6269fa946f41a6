// The OpenAPI 3.1 document of the public API, assembled from the fragments of the operations switched on
// (operations/index.ts) and the shared components, generated from the zod schemas that validate requests. With no
// preview feature on it describes V1 only (the five lists); each feature adds its operations, marked preview.
import { READ_SCOPES, WRITE_SCOPE } from "@/lib/keys/scopes";
import type { OpenApiOptions, OpenApiTag } from "../operation";
import { OPERATIONS } from "../operations";
import { schemaComponents } from "./components";
import type { Json } from "./json-schema";
import { headerComponents } from "./shared";
import { webhooksSection } from "./webhooks";

export type { OpenApiOptions } from "../operation";

const WEBHOOKS_TAG: OpenApiTag = {
  name: "Webhooks",
  description: "The change feed pushed to your endpoints, signed (Standard Webhooks; preview).",
};

// The document for a base URL and the preview features switched on: each operation's fragment under its path and
// method, in the order of OPERATIONS, and the components they add after the shared ones.
export function buildOpenApiDocument(baseUrl: string, options: OpenApiOptions = {}): Json {
  const on = (feature: string) => options.preview?.some((f) => f === feature) === true;
  const paths: Record<string, Json> = {};
  const added: Record<string, Json> = {};
  const tags: OpenApiTag[] = [];
  for (const op of OPERATIONS) {
    if (!op.openapi || (op.preview !== undefined && !on(op.preview))) continue;
    const { operation, tag, components } = op.openapi(options);
    (paths[op.path] ??= {})[op.method.toLowerCase()] = operation;
    if (tag && !tags.some((t) => t.name === tag.name)) tags.push(tag);
    Object.assign(added, components);
  }
  const writes = on("writes");
  const details = on("details");
  const changes = on("changes");
  const exporting = on("export");
  // The deliveries' body is the feed's event: its schema is in the document while either is on.
  const webhooks = on("webhooks");
  const events = changes || webhooks;
  const readScopes = READ_SCOPES.join(", ");
  return {
    openapi: "3.1.0",
    info: {
      title: "Public Catalog API",
      version: "1.0.0",
      summary: writes
        ? "Access to one organization's product catalog: reads, and product creation in preview."
        : "Read-only access to one organization's product catalog.",
      description:
        "Read-only HTTP/JSON API over the product catalog of the organization that owns the API key. " +
        "Every call sends `Authorization: Bearer <API_KEY>`; the key carries scopes and belongs to exactly one organization. " +
        "Lists page with `page`/`perPage`, search with `q`, sort with `sort=field.asc|desc`, and keep a copy in sync " +
        "with `updatedSince` and conditional requests (`ETag`, `If-None-Match`, 304). Errors have the shape " +
        "`{ statusCode, message, error, code, requestId }`; messages are in French." +
        (writes
          ? " Write preview (switched on on this server): `POST /public/v1/products` creates draft products with the " +
            "`products:write` scope; its errors add `details`, one entry per offending field. It may still change."
          : ""),
      // The portal of this server: its guides say how to reach support (quote the requestId).
      contact: { name: "Public Catalog API portal", url: `${baseUrl}/docs` },
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    servers: [{ url: baseUrl, description: "This server" }],
    security: [{ bearerAuth: [] }],
    // The operations' tags, then the webhooks' (a section of the document, not an operation).
    tags: [...tags, ...(webhooks ? [WEBHOOKS_TAG] : [])],
    paths,
    ...(webhooks ? { webhooks: webhooksSection() } : {}),
    components: {
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "pca_…",
          description: writes
            ? `An API key created in the console. Scopes: ${readScopes}; ${WRITE_SCOPE} (write preview: creates products; never granted by default).`
            : `An API key created in the console. Scopes: ${readScopes}.`,
        },
      },
      schemas: schemaComponents({ details, changes, exporting, events }, added),
      headers: headerComponents(),
    },
  };
}
