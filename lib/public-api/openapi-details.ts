// The operations of the preview feature `details` in the OpenAPI document: each marked `x-preview`, present only
// while the feature is on.
import { CHANNELS_ENDPOINT, ITEM_ENDPOINTS, type ItemEndpoint } from "./detail-endpoints";
import { errorExample, errorResponseDoc } from "./openapi-errors";
import { CONDITIONAL_HEADERS, RATE_LIMIT_HEADERS, withRateLimitHeaders } from "./openapi-headers";
import type { Json } from "./openapi-json-schema";
import { listEndpointOperation, readErrorResponses, scopeText } from "./openapi-list-operation";
import { IF_NONE_MATCH, parameter } from "./openapi-parameters";

const PREVIEW_NOTE =
  "**Preview** (feature `details`, also on with `writes`): available only while the operator switches it on (`PUBLIC_API_PREVIEW=details`); it may still change.";

const UPDATED_AT = "2026-06-07T09:30:12.345Z";
const MEDIA_URL = "https://api.example.com/media/acme/chaise-oslo-packshot-1.png";
const THUMB_URL = "https://api.example.com/media/acme/thumbs/chaise-oslo-packshot-1.png";

// An example answer of each item endpoint, and the name of its schema in the document's components (the change
// feed's example shows one too; an export's lines have these shapes).
export const ITEMS: Record<keyof typeof ITEM_ENDPOINTS, { schema: string; example: Json }> = {
  product: {
    schema: "ProductDetail",
    example: {
      id: "prd_7Yq2nC4kP0sLx9Ta",
      identifier: "ACM-CHA-000123",
      label: "Chaise Oslo en chêne",
      status: "draft",
      family: { id: "fam_1b2C3d4E5f6G7h8I", label: "Chaises" },
      category: { id: "cat_9a8B7c6D5e4F3g2H", label: "Salle à manger" },
      updatedAt: UPDATED_AT,
      createdAt: "2026-06-01T08:00:00.000Z",
      values: {
        sku: "ACM-CHA-000123",
        name: "Chaise Oslo en chêne",
        price: { EUR: 129 },
        color: "oak",
        packshot: { id: "med_2S3t4U5v6W7x8Y9z", mediaUrl: MEDIA_URL, thumbnailUrl: THUMB_URL },
      },
      media: [
        {
          id: "med_2S3t4U5v6W7x8Y9z",
          slug: "chaise-oslo-packshot-1",
          originalName: "chaise-oslo-chêne.png",
          type: "IMAGE",
          category: "Packshot",
          mediaUrl: MEDIA_URL,
          thumbnailUrl: THUMB_URL,
          updatedAt: UPDATED_AT,
        },
      ],
    },
  },
  family: {
    schema: "FamilyDetail",
    example: {
      id: "fam_1b2C3d4E5f6G7h8I",
      slug: "chaises",
      code: "chairs",
      label: "Chaises",
      updatedAt: UPDATED_AT,
      attributes: [
        { id: "att_4K5l6M7n8O9p0Q1r", code: "sku", label: "SKU", type: "TEXT", required: true },
        { id: "att_5L6m7N8o9P0q1R2s", code: "color", label: "Couleur", type: "SELECT", required: true },
      ],
    },
  },
  attribute: {
    schema: "AttributeDetail",
    example: {
      id: "att_5L6m7N8o9P0q1R2s",
      slug: "couleur",
      code: "color",
      label: "Couleur",
      type: "SELECT",
      uniqueValue: false,
      isScopable: false,
      updatedAt: UPDATED_AT,
      options: [
        { code: "oak", label: "Chêne" },
        { code: "walnut", label: "Noyer" },
      ],
    },
  },
};

// An example channel: an item of the channels list (and a line of their export).
export const CHANNEL_EXAMPLE: Json = {
  id: "chn_6h7J8k9L0m1N2o3P",
  code: "ecommerce",
  label: "E-commerce",
  locale: "fr_FR",
  updatedAt: UPDATED_AT,
};

// The GET operation of an item endpoint: its id, its query, the item, the 304, the 404 and the errors of a read.
function itemOperation(name: keyof typeof ITEM_ENDPOINTS): Json {
  const e: Omit<ItemEndpoint, "handler" | "read" | "query"> & {
    query: { params: ItemEndpoint["query"]["params"] };
  } = ITEM_ENDPOINTS[name];
  const { schema, example } = ITEMS[name];
  return {
    operationId: `get${name[0]!.toUpperCase()}${name.slice(1)}`,
    summary: `${e.summary} (preview)`,
    description: `${e.description}\n\n${PREVIEW_NOTE}\n\nRequired scope: ${scopeText(e.scope)}.`,
    tags: [{ product: "Products", family: "Families", attribute: "Attributes" }[name]],
    security: [{ bearerAuth: [e.scope] }],
    "x-required-scope": e.scope,
    "x-preview": true,
    parameters: [
      {
        name: "id",
        in: "path",
        required: true,
        description: "The id of a resource of the key's organization (any other answers 404).",
        schema: { type: "string", minLength: 1 },
      },
      ...Object.entries(e.query.params).map(([p, def]) => parameter(p, def)),
      IF_NONE_MATCH,
    ],
    responses: withRateLimitHeaders({
      "200": {
        description: "The resource, whole.",
        headers: { ...RATE_LIMIT_HEADERS, ...CONDITIONAL_HEADERS },
        content: { "application/json": { schema: { $ref: `#/components/schemas/${schema}` }, example } },
      },
      "304": {
        description:
          "Not Modified: `If-None-Match` holds the current `ETag` of this answer (it changes with any change to what the answer shows, and only then), so nothing it shows has changed. No body.",
        headers: { ...RATE_LIMIT_HEADERS, ...CONDITIONAL_HEADERS },
      },
      "404": errorResponseDoc(
        "No resource of the key's organization has this id: one of another organization answers the same.",
        { notFound: errorExample("PUBLIC_API_NOT_FOUND", e.notFound) },
      ),
      ...readErrorResponses(e.scope, Object.keys(e.query.params), {}),
    }),
  };
}

// The paths the feature adds: each item endpoint's, and the channels list.
export function detailPaths(): Json {
  const paths: Json = {};
  for (const name of Object.keys(ITEM_ENDPOINTS) as (keyof typeof ITEM_ENDPOINTS)[]) {
    paths[ITEM_ENDPOINTS[name].path] = { get: itemOperation(name) };
  }
  const channels = listEndpointOperation(CHANNELS_ENDPOINT, "Channel", CHANNEL_EXAMPLE);
  paths[CHANNELS_ENDPOINT.path] = {
    get: {
      ...channels,
      summary: `${CHANNELS_ENDPOINT.summary} (preview)`,
      description: `${CHANNELS_ENDPOINT.description}\n\n${PREVIEW_NOTE}\n\nRequired scope: ${scopeText(CHANNELS_ENDPOINT.scope)}.`,
      "x-preview": true,
    },
  };
  return paths;
}
