import { z } from "zod";
import { ATTRIBUTE_TYPES, MEDIA_TYPES, PRODUCT_STATUSES } from "@/db/schema";
import {
  boolParam,
  defineQuery,
  enumListParam,
  idParam,
  pageParam,
  perPageParam,
  qParam,
  sortParam,
  textParam,
  type SortKey,
} from "./params";

const id = z.string().meta({ description: "Opaque identifier.", example: "prd_7Yq2nC4kP0sLx9Ta" });
const timestamp = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
  .meta({ description: "ISO 8601 timestamp in UTC with milliseconds.", example: "2026-06-07T09:30:12.345Z" });

// The pagination object of every list.
export const paginationSchema = z
  .object({
    page: z.number().int().min(1).meta({ example: 1 }),
    perPage: z.number().int().min(1).max(100).meta({ example: 20 }),
    total: z.number().int().min(0).meta({ description: "Total matching items.", example: 3000 }),
    totalPages: z.number().int().min(0).meta({ example: 150 }),
    hasAny: z.boolean().meta({ description: "True when total > 0.", example: true }),
  })
  .strict();

// Product list item.
export const productSchema = z
  .object({
    id,
    identifier: z
      .string()
      .meta({ description: "Business identifier (the SKU value).", example: "ACM-CHA-000123" }),
    label: z.string().meta({
      description:
        "Display name. With `channelId`: the channel's value of the name attribute, else the unscoped value, else the identifier.",
      example: "Chaise Oslo en chêne",
    }),
    status: z.enum(PRODUCT_STATUSES).meta({ description: "`draft` for new products.", example: "draft" }),
    family: z.object({ id, label: z.string().meta({ example: "Chaises" }) }).strict(),
    category: z.object({ id, label: z.string().meta({ example: "Salle à manger" }) }).strict(),
    updatedAt: timestamp,
  })
  .strict();

// Family list item.
export const familySchema = z
  .object({
    id,
    slug: z.string().meta({ example: "chaises" }),
    code: z.string().meta({ example: "chairs" }),
    label: z.string().meta({ example: "Chaises" }),
    updatedAt: timestamp,
  })
  .strict();

// Attribute list item.
export const attributeSchema = z
  .object({
    id,
    slug: z.string().meta({ example: "couleur" }),
    code: z.string().meta({ example: "color" }),
    label: z.string().meta({ example: "Couleur" }),
    type: z.enum(ATTRIBUTE_TYPES).meta({ example: "TEXT" }),
    uniqueValue: z.boolean().meta({ description: "True when the value must be unique.", example: false }),
    isScopable: z
      .boolean()
      .meta({ description: "True when the value can differ per channel.", example: true }),
    updatedAt: timestamp,
  })
  .strict();

// Category list item.
export const categorySchema = z
  .object({
    id,
    slug: z.string().meta({ example: "salle-a-manger" }),
    label: z.string().meta({ example: "Salle à manger" }),
    parentId: z
      .string()
      .nullable()
      .meta({ description: "Null for a category without a parent.", example: null }),
    isMaster: z.boolean().meta({ description: "Master category flag.", example: true }),
    updatedAt: timestamp,
  })
  .strict();

// Media list item.
export const mediaSchema = z
  .object({
    id,
    slug: z.string().meta({ example: "chaise-oslo-packshot-1" }),
    originalName: z.string().meta({ description: "Original file name.", example: "chaise-oslo-chêne.png" }),
    type: z.enum(MEDIA_TYPES).meta({ example: "IMAGE" }),
    category: z.string().meta({ description: "Media category label.", example: "Packshot" }),
    mediaUrl: z.url().meta({
      description: "Absolute URL of the file.",
      example: "https://api.example.com/media/acme/x.png",
    }),
    thumbnailUrl: z.url().meta({
      description: "Absolute URL of a thumbnail.",
      example: "https://api.example.com/media/acme/thumbs/x.png",
    }),
    updatedAt: timestamp,
  })
  .strict();

export const PRODUCT_SORTS = ["identifier", "label", "status", "updatedAt"] as const;
export const FAMILY_SORTS = ["code", "slug", "label", "updatedAt"] as const;
export const ATTRIBUTE_SORTS = ["code", "slug", "label", "type", "updatedAt"] as const;
export const CATEGORY_SORTS = ["slug", "label", "updatedAt"] as const;
export const MEDIA_SORTS = ["originalName", "slug", "type", "category", "updatedAt"] as const;

const common = (searchFields: string[], sorts: readonly string[]) => ({
  page: pageParam,
  perPage: perPageParam,
  q: qParam(searchFields),
  sort: sortParam(sorts),
});

// Query of GET /public/v1/products.
export const listProductsQuery = defineQuery({
  ...common(["identifier", "label"], PRODUCT_SORTS),
  categoryId: idParam(
    "Only products of this category (an id of the key's organization; any other gives an empty list).",
  ),
  channelId: idParam(
    "Channel used to read scoped values: `label` becomes the channel's name. Must be a channel of the key's organization (else 400).",
  ),
  familyId: idParam(
    "Only products of this family (an id of the key's organization; any other gives an empty list).",
  ),
});

// Query of GET /public/v1/families.
export const listFamiliesQuery = defineQuery(common(["code", "slug", "label"], FAMILY_SORTS));

// Query of GET /public/v1/attributes.
export const listAttributesQuery = defineQuery({
  ...common(["code", "slug", "label"], ATTRIBUTE_SORTS),
  type: enumListParam(ATTRIBUTE_TYPES, "Only attributes of these types."),
  uniqueValue: boolParam("Only attributes whose value must be unique (true) or must not (false)."),
  isScopable: boolParam("Only scopable attributes (true) or only non-scopable ones (false)."),
  familyId: idParam("Only attributes attached to this family."),
});

// Query of GET /public/v1/categories.
export const listCategoriesQuery = defineQuery({
  ...common(["slug", "label"], CATEGORY_SORTS),
  parentId: idParam("Only the children of this category; `null` lists the root categories."),
  isMaster: boolParam("Only master categories (true) or only the others (false)."),
});

// Query of GET /public/v1/media.
export const listMediaQuery = defineQuery({
  ...common(["originalName", "slug", "category"], MEDIA_SORTS),
  type: enumListParam(MEDIA_TYPES, "Only media of these types."),
  orphansOnly: boolParam("true: only media attached to nothing."),
  category: textParam("Only media of this media category (case- and accent-insensitive exact match)."),
});

type Common = { page: number; perPage: number; q?: string; sort: SortKey[] };
// Parsed queries, as the handlers receive them.
export type ProductsQuery = Common & { categoryId?: string; channelId?: string; familyId?: string };
export type FamiliesQuery = Common;
export type AttributesQuery = Common & {
  type?: string[];
  uniqueValue?: boolean;
  isScopable?: boolean;
  familyId?: string;
};
export type CategoriesQuery = Common & { parentId?: string; isMaster?: boolean };
export type MediaQuery = Common & { type?: string[]; orphansOnly?: boolean; category?: string };
export type Product = z.infer<typeof productSchema>;
export type Family = z.infer<typeof familySchema>;
export type Attribute = z.infer<typeof attributeSchema>;
export type Category = z.infer<typeof categorySchema>;
export type Media = z.infer<typeof mediaSchema>;
