// Closed value sets of the catalog, shared by the schema checks, query validation and the OpenAPI document.

// The read scopes of V1, in the order the portal lists them.
export const READ_SCOPES = [
  "products:read",
  "families:read",
  "attributes:read",
  "categories:read",
  "media:read",
] as const;
// The write scope, which exists only when the write preview is switched on.
export const WRITE_SCOPE = "products:write" as const;
export type ReadScope = (typeof READ_SCOPES)[number];
export type Scope = ReadScope | typeof WRITE_SCOPE;

// Attribute types (TEXT and NUMBER are the contract's known values).
export const ATTRIBUTE_TYPES = [
  "TEXT",
  "TEXTAREA",
  "NUMBER",
  "PRICE",
  "BOOLEAN",
  "DATE",
  "SELECT",
  "MULTI_SELECT",
  "MEDIA",
] as const;
export type AttributeType = (typeof ATTRIBUTE_TYPES)[number];

// Media types (IMAGE and VIDEO are the contract's known values).
export const MEDIA_TYPES = ["IMAGE", "VIDEO", "DOCUMENT"] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

// Product statuses; `draft` is the status of new products.
export const PRODUCT_STATUSES = ["draft", "published", "archived"] as const;
export type ProductStatus = (typeof PRODUCT_STATUSES)[number];
