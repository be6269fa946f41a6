import type { z } from "zod";
import { attributesQuery, listAttributes } from "@/lib/catalog/attributes";
import { categoriesQuery, listCategories } from "@/lib/catalog/categories";
import { familiesQuery, listFamilies } from "@/lib/catalog/families";
import { listMedia, mediaQuery } from "@/lib/catalog/media";
import { listProducts, productsQuery } from "@/lib/catalog/products";
import type { CatalogResource } from "@/lib/catalog/count-cache";
import type { QueryDef } from "@/lib/catalog/list-query-grammar";
import {
  attributeSchema,
  categorySchema,
  familySchema,
  mediaSchema,
  productSchema,
} from "@/lib/catalog/schemas";
import type { ReadScope } from "@/lib/keys/scopes";
import type { ApiHandler } from "./pipeline";

// One list endpoint of V1: path, scope, query and item schemas, handler; routes and the OpenAPI document read this table.
export interface ListEndpoint<Q = unknown> {
  /** The resource listed (its version per organization keys the list's page-cache entries). */
  name: CatalogResource;
  path: `/public/v1/${string}`;
  /** The scope required; several: any one of them. */
  scope: ReadScope | readonly ReadScope[];
  summary: string;
  description: string;
  query: QueryDef<Q>;
  item: z.ZodType;
  handler: ApiHandler<Q>;
}

// Ties an endpoint's handler to its query's parsed type (inferred from the query definition).
function endpoint<Q>(e: ListEndpoint<Q>): ListEndpoint<Q> {
  return e;
}

// The five list endpoints of V1.
export const ENDPOINTS = {
  products: endpoint({
    name: "products",
    path: "/public/v1/products",
    scope: "products:read",
    summary: "List products",
    description:
      "Returns the products of the key's organization. Filter by family or category; read channel-specific names with `channelId`.",
    query: productsQuery,
    item: productSchema,
    handler: ({ catalog, org, query }) => listProducts(catalog, org.id, query),
  }),
  families: endpoint({
    name: "families",
    path: "/public/v1/families",
    scope: "families:read",
    summary: "List families",
    description: "Returns the product families of the key's organization.",
    query: familiesQuery,
    item: familySchema,
    handler: ({ catalog, org, query }) => listFamilies(catalog, org.id, query),
  }),
  attributes: endpoint({
    name: "attributes",
    path: "/public/v1/attributes",
    scope: "attributes:read",
    summary: "List attributes",
    description: "Returns the configurable attributes of the key's organization.",
    query: attributesQuery,
    item: attributeSchema,
    handler: ({ catalog, org, query }) => listAttributes(catalog, org.id, query),
  }),
  categories: endpoint({
    name: "categories",
    path: "/public/v1/categories",
    scope: "categories:read",
    summary: "List categories",
    description: "Returns the categories (master and secondary trees) of the key's organization.",
    query: categoriesQuery,
    item: categorySchema,
    handler: ({ catalog, org, query }) => listCategories(catalog, org.id, query),
  }),
  media: endpoint({
    name: "media",
    path: "/public/v1/media",
    scope: "media:read",
    summary: "List media",
    description: "Returns the public media of the key's organization, with absolute file and thumbnail URLs.",
    query: mediaQuery,
    item: mediaSchema,
    handler: ({ catalog, org, query, config }) => listMedia(catalog, org, query, config.baseUrl),
  }),
};
