import type { z } from "zod";
import { listAttributes } from "@/lib/catalog/attributes";
import { listCategories } from "@/lib/catalog/categories";
import { listFamilies } from "@/lib/catalog/families";
import { listMedia } from "@/lib/catalog/media";
import { listProducts } from "@/lib/catalog/products";
import type { ReadScope } from "@/lib/keys/scopes";
import type { QueryDef } from "./params";
import {
  attributeSchema,
  categorySchema,
  familySchema,
  listAttributesQuery,
  listCategoriesQuery,
  listFamiliesQuery,
  listMediaQuery,
  listProductsQuery,
  mediaSchema,
  productSchema,
  type AttributesQuery,
  type CategoriesQuery,
  type FamiliesQuery,
  type MediaQuery,
  type ProductsQuery,
} from "./schemas";
import type { ApiHandler } from "./with-public-api";

// One list endpoint of V1: path, scope, query and item schemas, handler; routes and the OpenAPI document read this table.
export interface ListEndpoint<Q = unknown> {
  name: string;
  path: `/public/v1/${string}`;
  scope: ReadScope;
  summary: string;
  description: string;
  query: QueryDef<Q>;
  item: z.ZodType;
  handler: ApiHandler<Q>;
}

function endpoint<Q>(e: ListEndpoint<Q>): ListEndpoint<Q> {
  return e;
}

// The five list endpoints of V1.
export const ENDPOINTS = {
  products: endpoint<ProductsQuery>({
    name: "products",
    path: "/public/v1/products",
    scope: "products:read",
    summary: "List products",
    description:
      "Returns the products of the key's organization. Filter by family or category; read channel-specific names with `channelId`.",
    query: listProductsQuery as unknown as QueryDef<ProductsQuery>,
    item: productSchema,
    handler: ({ db, org, query }) => listProducts(db, org.id, query),
  }),
  families: endpoint<FamiliesQuery>({
    name: "families",
    path: "/public/v1/families",
    scope: "families:read",
    summary: "List families",
    description: "Returns the product families of the key's organization.",
    query: listFamiliesQuery as unknown as QueryDef<FamiliesQuery>,
    item: familySchema,
    handler: ({ db, org, query }) => listFamilies(db, org.id, query),
  }),
  attributes: endpoint<AttributesQuery>({
    name: "attributes",
    path: "/public/v1/attributes",
    scope: "attributes:read",
    summary: "List attributes",
    description: "Returns the configurable attributes of the key's organization.",
    query: listAttributesQuery as unknown as QueryDef<AttributesQuery>,
    item: attributeSchema,
    handler: ({ db, org, query }) => listAttributes(db, org.id, query),
  }),
  categories: endpoint<CategoriesQuery>({
    name: "categories",
    path: "/public/v1/categories",
    scope: "categories:read",
    summary: "List categories",
    description: "Returns the categories (master and secondary trees) of the key's organization.",
    query: listCategoriesQuery as unknown as QueryDef<CategoriesQuery>,
    item: categorySchema,
    handler: ({ db, org, query }) => listCategories(db, org.id, query),
  }),
  media: endpoint<MediaQuery>({
    name: "media",
    path: "/public/v1/media",
    scope: "media:read",
    summary: "List media",
    description: "Returns the public media of the key's organization, with absolute file and thumbnail URLs.",
    query: listMediaQuery as unknown as QueryDef<MediaQuery>,
    item: mediaSchema,
    handler: ({ db, org, query, config }) => listMedia(db, org, query, config.baseUrl),
  }),
};
