// GET /public/v1/families: the product families of the key's organization, one page at a time.
import { familiesQuery, listFamilies } from "@/lib/catalog/resources/families";
import { EXAMPLES } from "../openapi/examples";
import { listOperation } from "./list";

export const listFamiliesOperation = listOperation({
  name: "families",
  path: "/public/v1/families",
  scope: "families:read",
  summary: "List families",
  description: "Returns the product families of the key's organization.",
  query: familiesQuery,
  tag: { name: "Families", description: "Product families and the attributes they expect." },
  item: "Family",
  example: EXAMPLES.families,
  handler: ({ catalog, org, query }) => listFamilies(catalog, org.id, query),
});
