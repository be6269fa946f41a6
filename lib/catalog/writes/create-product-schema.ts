// The request body of a product creation (write preview) as zod schemas, one per thing: they validate the request
// (lib/catalog/writes/create-product.ts parses the body with createProductBodySchema, then each value with its attribute
// type's schema once the attribute is read) and they document it (the OpenAPI document's request schema, the
// creating-products guide, the property test's generator). Only the checks against the organization's catalog
// (attribute codes, channels, options, media, the family's rules, unique values) stay in create-product.ts.
import { z } from "zod";
import type { AttributeType } from "@/db/schema";

// Longest familyId and categoryId accepted, in characters (UTF-16 code units, as zod and String#length count).
export const CREATE_ID_MAX = 128;
// Longest TEXT and TEXTAREA values, in characters.
export const TEXT_MAX = 255;
export const TEXTAREA_MAX = 10_000;
// The fields of the body, in the order its answers name them.
export const CREATE_TOP_LEVEL = ["familyId", "categoryId", "values"] as const;

// Minor-unit digits of each ISO 4217 currency the runtime knows (EUR 2, JPY 0, KWD 3…): the currencies a PRICE
// takes. Read once, on first use.
let currencyDigits: Map<string, number> | undefined;
export function currencies(): Map<string, number> {
  if (!currencyDigits) {
    currencyDigits = new Map();
    for (const c of Intl.supportedValuesOf("currency")) {
      const digits = new Intl.NumberFormat("en", { style: "currency", currency: c }).resolvedOptions()
        .maximumFractionDigits;
      currencyDigits.set(c, digits ?? 2);
    }
  }
  return currencyDigits;
}

const hasAtMostDecimals = (n: number, digits: number): boolean => Number(n.toFixed(digits)) === n;

// The code a PRICE amount with more decimals than its currency has is refused with (a custom zod issue's params).
export const PRECISION_ISSUE = "INVALID_PRECISION";

const notBlank = (max: number, what: string) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/\S/)
    .meta({ description: `${what}: 1 to ${max} characters, not only spaces.` });

// The value each attribute type takes (unscoped), in the attribute list's type order.
export const attributeValueSchemas = {
  TEXT: notBlank(TEXT_MAX, "A TEXT attribute").meta({ title: "TEXT", example: "Chaise Oslo en noyer" }),
  TEXTAREA: notBlank(TEXTAREA_MAX, "A TEXTAREA attribute").meta({
    title: "TEXTAREA",
    example: "Assise en noyer massif, pieds fuselés.",
  }),
  NUMBER: z
    .number()
    .meta({ title: "NUMBER", description: "A NUMBER attribute: a finite number.", example: 4.5 }),
  // One rule: a currency is a code of the runtime's ISO 4217 list (the pattern documents its form) and an
  // amount has at most that currency's decimals; the object is not empty. The precision check also runs when another
  // currency of the object is refused, so that one answer names every wrong amount.
  PRICE: z
    .record(
      z
        .string()
        .regex(/^[A-Z]{3}$/)
        .refine((c) => currencies().has(c)),
      z.number().min(0),
    )
    .refine((v) => Object.keys(v).length > 0)
    .superRefine(
      (v, ctx) => {
        for (const [cur, amount] of Object.entries(v as Record<string, unknown>)) {
          const digits = currencies().get(cur);
          if (
            digits !== undefined &&
            typeof amount === "number" &&
            amount >= 0 &&
            !hasAtMostDecimals(amount, digits)
          )
            ctx.addIssue({ code: "custom", path: [cur], input: amount, params: { code: PRECISION_ISSUE } });
        }
      },
      {
        when: (payload) =>
          typeof payload.value === "object" && payload.value !== null && !Array.isArray(payload.value),
      },
    )
    .meta({
      title: "PRICE",
      description:
        "A PRICE attribute: an object of ISO 4217 currency code to a non-negative amount with at most the currency's decimals (EUR 2, JPY 0, KWD 3).",
      minProperties: 1,
      example: { EUR: 149.9, USD: 164 },
    }),
  BOOLEAN: z
    .boolean()
    .meta({ title: "BOOLEAN", description: "A BOOLEAN attribute: `true` or `false`.", example: true }),
  DATE: z.iso.date().meta({
    title: "DATE",
    description: "A DATE attribute: a calendar date `YYYY-MM-DD`.",
    example: "2026-09-01",
  }),
  SELECT: z.string().min(1).meta({
    title: "SELECT",
    description: "A SELECT attribute: the code of one of its options.",
    example: "walnut",
  }),
  MULTI_SELECT: z
    .array(z.string().min(1))
    .refine((codes) => new Set(codes).size === codes.length)
    .meta({
      title: "MULTI_SELECT",
      description: "A MULTI_SELECT attribute: distinct codes of its options.",
      uniqueItems: true,
      example: ["indoor", "dining"],
    }),
  MEDIA: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).meta({
    title: "MEDIA",
    description: "A MEDIA attribute: the id of a media of the organization, or a non-empty list of ids.",
    example: ["med_2S3t4U5v6W7x8Y9z"],
  }),
} satisfies Record<AttributeType, z.ZodType>;

// A value given once for every channel: any attribute type's value (the union's order is the document's).
const unscopedValueSchema = z.union([
  attributeValueSchemas.TEXT,
  attributeValueSchemas.TEXTAREA,
  attributeValueSchemas.NUMBER,
  attributeValueSchemas.PRICE,
  attributeValueSchemas.BOOLEAN,
  attributeValueSchemas.DATE,
  attributeValueSchemas.SELECT,
  attributeValueSchemas.MULTI_SELECT,
  attributeValueSchemas.MEDIA,
]);

// A value of a scopable attribute given per channel: channel id → the attribute type's value.
export const scopedValueSchema = z.record(z.string().min(1), unscopedValueSchema).meta({
  title: "Per channel",
  description:
    "A scopable attribute only (`isScopable`): an object of channel id to the value for that channel, instead of one value for every channel.",
  minProperties: 1,
  example: { chn_5Tq8wE2rY7uI3oP1: "Chaise Oslo en noyer" },
});

// One entry of `values`: the value its attribute's type takes, or per channel for a scopable attribute.
export const attributeValueSchema = z
  .union([...Object.values(attributeValueSchemas), scopedValueSchema])
  .meta({
    description:
      "The value of one attribute, by the attribute's `type` (see GET /public/v1/attributes); a scopable attribute also takes an object of channel id to value.",
  });

const reference = (what: string, example: string) =>
  z
    .string()
    .min(1)
    .max(CREATE_ID_MAX)
    .meta({ description: `Id of a ${what} of the key's organization.`, example });

// The body of POST /public/v1/products: nothing but these three fields (no organizationId: it is the key's).
export const createProductBodySchema = z
  .object({
    familyId: reference("family", "fam_1b2C3d4E5f6G7h8I"),
    categoryId: reference("category", "cat_9a8B7c6D5e4F3g2H"),
    values: z.record(z.string().min(1), attributeValueSchema).meta({
      description:
        "Public attribute code → value. `sku` is required (the product's identifier), `name` gives its label; every attribute the family requires must be there, and only attributes of the family.",
    }),
  })
  .strict()
  .meta({
    description:
      "A product to create as a draft. The organization is the API key's: the body carries no `organizationId`.",
    example: {
      familyId: "fam_1b2C3d4E5f6G7h8I",
      categoryId: "cat_9a8B7c6D5e4F3g2H",
      values: {
        sku: "ACM-CHA-000124",
        name: "Chaise Oslo en noyer",
        description: "Assise en noyer massif, pieds fuselés.",
        price: { EUR: 149.9 },
      },
    },
  });
export type CreateProductBody = z.infer<typeof createProductBodySchema>;

const COMPONENT_NAMES: Record<AttributeType, string> = {
  TEXT: "TextValue",
  TEXTAREA: "TextareaValue",
  NUMBER: "NumberValue",
  PRICE: "PriceValue",
  BOOLEAN: "BooleanValue",
  DATE: "DateValue",
  SELECT: "SelectValue",
  MULTI_SELECT: "MultiSelectValue",
  MEDIA: "MediaValue",
};

// The request's schemas under the names the OpenAPI document gives them (each value type once, referenced).
export const createProductSchemaRegistry = z.registry<{ id: string }>();
createProductSchemaRegistry.add(createProductBodySchema, { id: "CreateProductRequest" });
createProductSchemaRegistry.add(attributeValueSchema, { id: "AttributeValue" });
for (const [type, schema] of Object.entries(attributeValueSchemas))
  createProductSchemaRegistry.add(schema, { id: COMPONENT_NAMES[type as AttributeType] });
