// The catalog's list items and pagination as zod schemas: their types, the OpenAPI document's schemas and the
// tests' checks all come from here.
import { z } from "zod";
import { ATTRIBUTE_TYPES, ID_PREFIX, MEDIA_TYPES, PRODUCT_STATUSES, type IdPrefix } from "@/db/schema";

// An opaque identifier of one resource, its example spelled with that resource's prefix (db/schema.ts ID_PREFIX), so
// that a family id never looks like a product's in the document. The same examples as the document's item examples.
const idOf = (prefix: IdPrefix, example: string) =>
  z.string().meta({ description: "Opaque identifier.", example: `${prefix}_${example}` });
const productId = idOf(ID_PREFIX.product, "7Yq2nC4kP0sLx9Ta");
const familyId = idOf(ID_PREFIX.family, "1b2C3d4E5f6G7h8I");
const categoryId = idOf(ID_PREFIX.category, "9a8B7c6D5e4F3g2H");
const attributeId = idOf(ID_PREFIX.attribute, "4K5l6M7n8O9p0Q1r");
const mediaId = idOf(ID_PREFIX.media, "2S3t4U5v6W7x8Y9z");
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
    id: productId,
    identifier: z
      .string()
      .meta({ description: "Business identifier (the SKU value).", example: "ACM-CHA-000123" }),
    label: z.string().meta({
      description:
        "Display name. With `channelId`: the channel's value of the name attribute, else the unscoped value, else the identifier.",
      example: "Chaise Oslo en chêne",
    }),
    status: z.enum(PRODUCT_STATUSES).meta({ description: "`draft` for new products.", example: "draft" }),
    family: z.object({ id: familyId, label: z.string().meta({ example: "Chaises" }) }).strict(),
    category: z.object({ id: categoryId, label: z.string().meta({ example: "Salle à manger" }) }).strict(),
    updatedAt: timestamp,
  })
  .strict();

// Family list item.
export const familySchema = z
  .object({
    id: familyId,
    slug: z.string().meta({ example: "chaises" }),
    code: z.string().meta({ example: "chairs" }),
    label: z.string().meta({ example: "Chaises" }),
    updatedAt: timestamp,
  })
  .strict();

// Attribute list item.
export const attributeSchema = z
  .object({
    id: attributeId,
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
    id: categoryId,
    slug: z.string().meta({ example: "salle-a-manger" }),
    label: z.string().meta({ example: "Salle à manger" }),
    parentId: z
      .string()
      .nullable()
      .meta({
        description: "Id of the parent category; null for a category without a parent.",
        example: `${ID_PREFIX.category}_5c6D7e8F9g0H1i2J`,
      }),
    isMaster: z.boolean().meta({ description: "Master category flag.", example: true }),
    updatedAt: timestamp,
  })
  .strict();

// Media list item.
export const mediaSchema = z
  .object({
    id: mediaId,
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

// The answer to a product creation (write preview): the contract's target creation response.
export const createdProductSchema = z
  .object({
    id: productId,
    familyId,
    categoryId,
    status: z.literal("draft").meta({ description: "A new product is a draft." }),
    createdAt: timestamp,
  })
  .strict();

// The answer to a dry run of a creation (write preview, `?dryRun=true`): what would be created, nothing written.
export const productDraftSchema = z
  .object({
    dryRun: z.literal(true),
    familyId,
    categoryId,
    status: z.literal("draft"),
    identifier: z
      .string()
      .meta({ description: "The SKU value: the identifier the product would be listed with." }),
    label: z
      .string()
      .meta({ description: "The name value (or the SKU): the label it would be listed with." }),
    values: z
      .record(z.string(), z.unknown())
      .meta({ description: "The values as they would be stored, by attribute code." }),
  })
  .strict();

// --- Preview feature `details` (docs/design.md, Preview features): one resource read whole, and the channels. ---

const channelId = idOf(ID_PREFIX.channel, "6h7J8k9L0m1N2o3P");

// A media as a value or a product's media refer to it: its id and absolute URLs.
export const mediaRefSchema = z
  .object({
    id: mediaId,
    mediaUrl: z.url().meta({ example: "https://api.example.com/media/acme/x.png" }),
    thumbnailUrl: z.url().meta({ example: "https://api.example.com/media/acme/thumbs/x.png" }),
  })
  .strict();

// One value of a product, in the shape its attribute's type defines.
export const productValueSchema = z
  .union([
    z.string().meta({ title: "TEXT, TEXTAREA, DATE (YYYY-MM-DD) or SELECT (an option code)" }),
    z.number().meta({ title: "NUMBER" }),
    z.boolean().meta({ title: "BOOLEAN" }),
    z
      .record(z.string(), z.number())
      .meta({ title: "PRICE: amount by ISO 4217 currency", example: { EUR: 12.5 } }),
    z.array(z.string()).meta({ title: "MULTI_SELECT: option codes" }),
    mediaRefSchema,
    z.array(mediaRefSchema).meta({ title: "MEDIA: several media" }),
  ])
  .meta({ description: "A value, in the shape its attribute's type defines." });

// A product read whole: the list item's fields, when it was created, its values by public attribute code (a
// scopable value in the channel asked, else the unscoped one) and its public media.
export const productDetailSchema = productSchema
  .extend({
    createdAt: timestamp,
    values: z.record(z.string(), productValueSchema).meta({
      description:
        "Values by attribute code. A scopable attribute's value is the channel's (with `channelId`), else the unscoped one.",
      example: { sku: "ACM-CHA-000123", name: "Chaise Oslo en chêne", price: { EUR: 129 }, color: "oak" },
    }),
    media: z.array(mediaSchema).meta({ description: "The product's public media, in their order." }),
  })
  .strict();

// A family read whole: the list item's fields and its attributes, each with whether a product of the family must
// have a value for it.
export const familyDetailSchema = familySchema
  .extend({
    attributes: z.array(
      z
        .object({
          id: attributeId,
          code: z.string().meta({ example: "color" }),
          label: z.string().meta({ example: "Couleur" }),
          type: z.enum(ATTRIBUTE_TYPES).meta({ example: "SELECT" }),
          required: z.boolean().meta({ description: "True when a product of this family needs a value." }),
        })
        .strict(),
    ),
  })
  .strict();

// One option of a SELECT or MULTI_SELECT attribute: the code a value gives, and its label.
export const attributeOptionSchema = z
  .object({
    code: z.string().meta({ example: "oak" }),
    label: z.string().meta({ example: "Chêne" }),
  })
  .strict();

// An attribute read whole: the list item's fields and, for SELECT and MULTI_SELECT, its options.
export const attributeDetailSchema = attributeSchema
  .extend({
    options: z
      .array(attributeOptionSchema)
      .optional()
      .meta({ description: "SELECT and MULTI_SELECT only: the codes a value may take, in their order." }),
  })
  .strict();

// Channel list item.
export const channelSchema = z
  .object({
    id: channelId,
    code: z.string().meta({ example: "ecommerce" }),
    label: z.string().meta({ example: "E-commerce" }),
    locale: z.string().meta({ example: "fr_FR" }),
    updatedAt: timestamp,
  })
  .strict();

// --- Preview feature `changes` (docs/design.md, Preview features): the organization's change feed. ---

// The resources a copy of the catalog holds: what the export streams and the change feed follows, each in one public
// shape (products, families and attributes read whole, as their details show them; categories, media and channels
// as their lists do). Here, beside the shapes, so that this module stays a leaf; lib/catalog/resources/items.ts reads them.
export const MIRRORED = ["products", "families", "attributes", "categories", "media", "channels"] as const;
export type Mirrored = (typeof MIRRORED)[number];

// A change-feed cursor: decimal digits, compared as numbers.
const cursor = z
  .string()
  .regex(/^[0-9]{1,15}$/)
  .meta({
    description: "A position in the organization's feed: continue with `after=<cursor>`.",
    example: "1234",
  });

// One event of the change feed: an object of the organization that changed, as it is when read (an upsert with its
// public shape), or a delete when it no longer is (deleted, a media made private).
export const changeEventSchema = z
  .object({
    cursor,
    type: z.enum(MIRRORED).meta({ description: "The object's resource.", example: "products" }),
    id: z.string().meta({ description: "The object's id.", example: "prd_7Yq2nC4kP0sLx9Ta" }),
    op: z.enum(["upsert", "delete"]).meta({
      description: "`upsert`: the object as it is now, in `item`; `delete`: it is gone, `item` is null.",
      example: "upsert",
    }),
    at: timestamp.meta({
      description: "When the change committed (ISO 8601 in UTC with milliseconds).",
      example: "2026-06-07T09:30:12.345Z",
    }),
    item: z
      .union([
        productDetailSchema,
        familyDetailSchema,
        attributeDetailSchema,
        categorySchema,
        mediaSchema,
        channelSchema,
      ])
      .nullable()
      .meta({
        description:
          "The object now, in its public shape (products, families and attributes read whole, as their `{id}` reads answer; categories, media and channels as their lists show them); null for a delete.",
      }),
  })
  .strict();

// A page of the change feed: its events in cursor order, where to continue from, and whether more are there already.
export const changesPageSchema = z
  .object({
    data: z.array(changeEventSchema),
    cursor: cursor.meta({
      description:
        "Where to continue from (`after=<cursor>`): the last event's, or further when events of types not asked were passed over; the cursor sent when nothing happened.",
      example: "1234",
    }),
    hasMore: z.boolean().meta({
      description: "True when more events are already there: ask again at once, without `wait`.",
      example: false,
    }),
  })
  .strict();

export type Product = z.infer<typeof productSchema>;
export type CreatedProduct = z.infer<typeof createdProductSchema>;
export type ProductDraft = z.infer<typeof productDraftSchema>;
export type Family = z.infer<typeof familySchema>;
export type Attribute = z.infer<typeof attributeSchema>;
export type Category = z.infer<typeof categorySchema>;
export type Media = z.infer<typeof mediaSchema>;
export type Pagination = z.infer<typeof paginationSchema>;
export type MediaRef = z.infer<typeof mediaRefSchema>;
export type ProductValue = z.infer<typeof productValueSchema>;
export type ProductDetail = z.infer<typeof productDetailSchema>;
export type FamilyDetail = z.infer<typeof familyDetailSchema>;
export type AttributeOption = z.infer<typeof attributeOptionSchema>;
export type AttributeDetail = z.infer<typeof attributeDetailSchema>;
export type Channel = z.infer<typeof channelSchema>;
