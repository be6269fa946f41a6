// GET /public/v1/attributes/{id} (preview `details`): one attribute of the key's organization, with its options.
import { attributeDetailQuery, getAttributeDetail } from "@/lib/catalog/resources/attributes";
import { itemOperation } from "./item";

export const getAttributeOperation = itemOperation({
  name: "attribute",
  path: "/public/v1/attributes/{id}",
  scope: "attributes:read",
  summary: "Get an attribute",
  description:
    "Returns one attribute of the key's organization; a SELECT or MULTI_SELECT attribute with its `options` (the codes a value may take).",
  query: attributeDetailQuery,
  // Its row (attributes), its options (details).
  shows: ["attributes", "details"],
  notFound: "Attribut introuvable : aucun attribut de l'organisation de la clé API n'a cet identifiant.",
  read: ({ catalog, org, params }) => getAttributeDetail(catalog, org.id, params.id!),
});
