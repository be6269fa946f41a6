// The examples of the OpenAPI document: an item of each list, each resource read whole (with the name of its
// schema component), a channel and an answer of the change feed. Several operations show the same ones (an export's
// lines, the feed's items, a webhook's body).
import type { Json } from "./json-schema";

const UPDATED_AT = "2026-06-07T09:30:12.345Z";
const MEDIA_URL = "https://api.example.com/media/acme/chaise-oslo-packshot-1.png";
const THUMB_URL = "https://api.example.com/media/acme/thumbs/chaise-oslo-packshot-1.png";

// An example item of each list, shown in its 200 example.
export const EXAMPLES: Record<"products" | "families" | "attributes" | "categories" | "media", Json> = {
  products: {
    id: "prd_7Yq2nC4kP0sLx9Ta",
    identifier: "ACM-CHA-000123",
    label: "Chaise Oslo en chêne",
    status: "draft",
    family: { id: "fam_1b2C3d4E5f6G7h8I", label: "Chaises" },
    category: { id: "cat_9a8B7c6D5e4F3g2H", label: "Salle à manger" },
    updatedAt: "2026-06-07T09:30:12.345Z",
  },
  families: {
    id: "fam_1b2C3d4E5f6G7h8I",
    slug: "chaises",
    code: "chairs",
    label: "Chaises",
    updatedAt: "2026-06-07T09:30:12.345Z",
  },
  attributes: {
    id: "att_4K5l6M7n8O9p0Q1r",
    slug: "nom",
    code: "name",
    label: "Nom",
    type: "TEXT",
    uniqueValue: false,
    isScopable: true,
    updatedAt: "2026-06-07T09:30:12.345Z",
  },
  categories: {
    id: "cat_9a8B7c6D5e4F3g2H",
    slug: "salle-a-manger",
    label: "Salle à manger",
    parentId: null,
    isMaster: true,
    updatedAt: "2026-06-07T09:30:12.345Z",
  },
  media: {
    id: "med_2S3t4U5v6W7x8Y9z",
    slug: "chaise-oslo-packshot-1",
    originalName: "chaise-oslo-chêne.png",
    type: "IMAGE",
    category: "Packshot",
    mediaUrl: "https://api.example.com/media/acme/chaise-oslo-packshot-1.png",
    thumbnailUrl: "https://api.example.com/media/acme/thumbs/chaise-oslo-packshot-1.png",
    updatedAt: "2026-06-07T09:30:12.345Z",
  },
};

// An example answer of each item endpoint, and the name of its schema in the document's components (the change
// feed's example shows one too; an export's lines have these shapes).
export const ITEMS: Record<"product" | "family" | "attribute", { schema: string; example: Json }> = {
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

// An answer of the feed: an upsert (a family, whole) and a delete (a product gone). Its first event is the example
// of a webhook's payload too (webhooks.ts).
export const CHANGES_EXAMPLE = {
  data: [
    {
      cursor: "1233",
      type: "families",
      id: ITEMS.family.example.id,
      op: "upsert",
      at: "2026-06-07T09:30:12.345Z",
      item: ITEMS.family.example,
    },
    {
      cursor: "1234",
      type: "products",
      id: "prd_3Hk8mQ2rT6vW9xYz",
      op: "delete",
      at: "2026-06-07T09:30:13.002Z",
      item: null,
    },
  ],
  cursor: "1234",
  hasMore: false,
};
