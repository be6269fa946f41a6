// GET /public/v1/products/{id} (preview `details`): one product of the key's organization, whole.
import { getProductDetail, productDetailQuery } from "@/lib/catalog/resources/product-detail";
import { itemOperation } from "./item";

export const getProductOperation = itemOperation({
  name: "product",
  path: "/public/v1/products/{id}",
  scope: "products:read",
  summary: "Get a product",
  description:
    "Returns one product of the key's organization whole: the list item's fields, `createdAt`, its values by attribute code and its media. With `channelId`, a scopable attribute's value is the channel's, else the unscoped one.",
  query: productDetailQuery,
  // Its row, family and category labels (products), its values' attributes (attributes), its media and media
  // values (media), its values and media links (details).
  shows: ["products", "attributes", "media", "details"],
  notFound: "Produit introuvable : aucun produit de l'organisation de la clé API n'a cet identifiant.",
  read: ({ catalog, org, query, params, config }) =>
    getProductDetail(catalog, org, params.id!, query, config.baseUrl),
});
