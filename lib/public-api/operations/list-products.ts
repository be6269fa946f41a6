// GET /public/v1/products: the products of the key's organization, one page at a time.
import { listProducts, productsQuery } from "@/lib/catalog/resources/products";
import { EXAMPLES } from "../openapi/examples";
import { listOperation } from "./list";

export const listProductsOperation = listOperation({
  name: "products",
  path: "/public/v1/products",
  scope: "products:read",
  summary: "List products",
  description:
    "Returns the products of the key's organization. Filter by family or category; read channel-specific names with `channelId`.",
  query: productsQuery,
  tag: { name: "Products", description: "Products of the catalog." },
  item: "Product",
  example: EXAMPLES.products,
  handler: ({ catalog, org, query, seen }) => listProducts(catalog, org.id, query, seen),
});
