import { createProductSchemaRegistry } from "@/lib/catalog/create-product-schema";
import { exportEndSchema } from "@/lib/catalog/export";
import {
  attributeDetailSchema,
  attributeSchema,
  categorySchema,
  channelSchema,
  createdProductSchema,
  familyDetailSchema,
  familySchema,
  mediaSchema,
  paginationSchema,
  productDetailSchema,
  productDraftSchema,
  productSchema,
} from "@/lib/catalog/schemas";
import { READ_SCOPES, WRITE_SCOPE } from "@/lib/keys/scopes";
import type { PreviewFeature } from "@/lib/preview";
import { ENDPOINTS } from "./endpoints";
import { errorBodySchema, readErrorBodySchema } from "./api-errors";
import { changeEventComponent, changesPaths } from "./openapi-changes";
import { createProductOperation } from "./openapi-create-product";
import { detailPaths } from "./openapi-details";
import { exportPaths } from "./openapi-export";
import { headerComponents } from "./openapi-headers";
import { componentSchemas, jsonSchema, type Json } from "./openapi-json-schema";
import { listOperation } from "./openapi-list-operation";
import { webhooksSection } from "./openapi-webhooks";

// What the document describes besides V1: the preview features switched on (none by default).
export interface OpenApiOptions {
  preview?: readonly PreviewFeature[];
}

// The OpenAPI 3.1 document of the public API, generated from the zod schemas that validate requests. With the
// write preview off it describes V1 only (the five reads); on, it adds POST /public/v1/products, marked preview.
export function buildOpenApiDocument(baseUrl: string, options: OpenApiOptions = {}): Json {
  const writes = options.preview?.includes("writes") === true;
  const paths: Json = {};
  for (const name of Object.keys(ENDPOINTS) as (keyof typeof ENDPOINTS)[]) {
    paths[ENDPOINTS[name].path] = { get: listOperation(name) };
  }
  if (writes) (paths[ENDPOINTS.products.path] as Json).post = createProductOperation();
  const details = options.preview?.includes("details") === true;
  if (details) Object.assign(paths, detailPaths());
  const changes = options.preview?.includes("changes") === true;
  if (changes) Object.assign(paths, changesPaths());
  const exporting = options.preview?.includes("export") === true;
  if (exporting) Object.assign(paths, exportPaths());
  // The deliveries' body is the feed's event: its schema is in the document while either is on.
  const webhooks = options.preview?.includes("webhooks") === true;
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
    tags: [
      { name: "Products", description: "Products of the catalog." },
      { name: "Families", description: "Product families and the attributes they expect." },
      { name: "Attributes", description: "Configurable attributes." },
      { name: "Categories", description: "Catalog classification: master and secondary trees." },
      { name: "Media", description: "Publicly exposed images, videos and documents." },
      ...(details
        ? [{ name: "Channels", description: "Channels: how scopable values differ (preview)." }]
        : []),
      ...(changes
        ? [
            {
              name: "Changes",
              description: "The change feed: every change of the catalog, in order (preview).",
            },
          ]
        : []),
      ...(exporting
        ? [{ name: "Export", description: "Whole resources as NDJSON from one snapshot (preview)." }]
        : []),
      ...(webhooks
        ? [
            {
              name: "Webhooks",
              description: "The change feed pushed to your endpoints, signed (Standard Webhooks; preview).",
            },
          ]
        : []),
    ],
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
      schemas: {
        Product: jsonSchema(productSchema, "output"),
        Family: jsonSchema(familySchema, "output"),
        Attribute: jsonSchema(attributeSchema, "output"),
        Category: jsonSchema(categorySchema, "output"),
        Media: jsonSchema(mediaSchema, "output"),
        Pagination: jsonSchema(paginationSchema, "output"),
        // Not "Error": generated clients (openapi-typescript, openapi-generator) export a type of each schema's name,
        // and one named Error shadows JavaScript's global Error class in the code that imports it.
        ApiError: jsonSchema(readErrorBodySchema(changes), "output"),
        // The resources read whole: the details' answers, the items of the feed's events and an export's lines.
        ...(details || events || exporting
          ? {
              ProductDetail: jsonSchema(productDetailSchema, "output"),
              FamilyDetail: jsonSchema(familyDetailSchema, "output"),
              AttributeDetail: jsonSchema(attributeDetailSchema, "output"),
              Channel: jsonSchema(channelSchema, "output"),
            }
          : {}),
        ...(events ? { ChangeEvent: changeEventComponent() } : {}),
        ...(exporting ? { ExportEnd: jsonSchema(exportEndSchema, "output") } : {}),
        ...(writes
          ? {
              ...componentSchemas(createProductSchemaRegistry),
              CreatedProduct: jsonSchema(createdProductSchema, "output"),
              ProductDraft: jsonSchema(productDraftSchema, "output"),
              WriteError: jsonSchema(errorBodySchema, "output"),
            }
          : {}),
      },
      headers: headerComponents(),
    },
  };
}
