// Every operation of the public API, in the order the OpenAPI document lists their paths. Adding an endpoint is one
// operation file and its line here (a list: one listOperation call over its catalog module).
import { createProductOperation } from "./create-product";
import { exportResourceOperation } from "./export-resource";
import { getAttributeOperation } from "./get-attribute";
import { getFamilyOperation } from "./get-family";
import { getOpenApiOperation } from "./get-openapi";
import { getProductOperation } from "./get-product";
import { listAttributesOperation } from "./list-attributes";
import { listCategoriesOperation } from "./list-categories";
import { listChangesOperation } from "./list-changes";
import { listChannelsOperation } from "./list-channels";
import { listFamiliesOperation } from "./list-families";
import { listMediaOperation } from "./list-media";
import { listProductsOperation } from "./list-products";

export const OPERATIONS = [
  listProductsOperation,
  createProductOperation,
  listFamiliesOperation,
  listAttributesOperation,
  listCategoriesOperation,
  listMediaOperation,
  getProductOperation,
  getFamilyOperation,
  getAttributeOperation,
  listChannelsOperation,
  listChangesOperation,
  exportResourceOperation,
  getOpenApiOperation,
] as const;

// A path of the API, as a route file names the one Next.js routed to it.
export type OperationPath = (typeof OPERATIONS)[number]["path"];

// The five lists of V1, by the resource they list.
export const LIST_OPERATIONS = {
  products: listProductsOperation,
  families: listFamiliesOperation,
  attributes: listAttributesOperation,
  categories: listCategoriesOperation,
  media: listMediaOperation,
};

// The resources read whole by their id (preview `details`), by the resource's name.
export const ITEM_OPERATIONS = {
  product: getProductOperation,
  family: getFamilyOperation,
  attribute: getAttributeOperation,
};
