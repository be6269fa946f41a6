// GET /public/v1/categories: the categories (master and secondary trees) of the key's organization.
import { categoriesQuery, listCategories } from "@/lib/catalog/resources/categories";
import { EXAMPLES } from "../openapi/examples";
import { listOperation } from "./list";

export const listCategoriesOperation = listOperation({
  name: "categories",
  path: "/public/v1/categories",
  scope: "categories:read",
  summary: "List categories",
  description: "Returns the categories (master and secondary trees) of the key's organization.",
  query: categoriesQuery,
  tag: { name: "Categories", description: "Catalog classification: master and secondary trees." },
  item: "Category",
  example: EXAMPLES.categories,
  handler: ({ catalog, org, query }) => listCategories(catalog, org.id, query),
});
