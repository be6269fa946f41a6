// GET /public/v1/families/{id} (preview `details`): one family of the key's organization with its attributes.
import { familyDetailQuery, getFamilyDetail } from "@/lib/catalog/resources/families";
import { itemOperation } from "./item";

export const getFamilyOperation = itemOperation({
  name: "family",
  path: "/public/v1/families/{id}",
  scope: "families:read",
  summary: "Get a family",
  description:
    "Returns one family of the key's organization with its attributes, each saying whether a product of the family needs a value (`required`).",
  query: familyDetailQuery,
  // Its row (families), its attributes and their links to it (attributes: family_attributes move them).
  shows: ["families", "attributes"],
  notFound: "Famille introuvable : aucune famille de l'organisation de la clé API n'a cet identifiant.",
  read: ({ catalog, org, params }) => getFamilyDetail(catalog, org.id, params.id!),
});
