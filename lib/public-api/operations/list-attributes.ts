// GET /public/v1/attributes: the configurable attributes of the key's organization, one page at a time.
import { attributesQuery, listAttributes } from "@/lib/catalog/resources/attributes";
import { EXAMPLES } from "../openapi/examples";
import { listOperation } from "./list";

export const listAttributesOperation = listOperation({
  name: "attributes",
  path: "/public/v1/attributes",
  scope: "attributes:read",
  summary: "List attributes",
  description: "Returns the configurable attributes of the key's organization.",
  query: attributesQuery,
  tag: { name: "Attributes", description: "Configurable attributes." },
  item: "Attribute",
  example: EXAMPLES.attributes,
  handler: ({ catalog, org, query }) => listAttributes(catalog, org.id, query),
});
