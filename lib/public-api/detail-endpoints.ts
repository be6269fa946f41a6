// The endpoints of the preview feature `details` (DESIGN §5): a product, a family or an attribute read whole by its
// id, and the channels listed. The router serves them only while the feature is on; the OpenAPI document and the
// reference read this table.
import type { z } from "zod";
import { attributeDetailQuery, getAttributeDetail } from "@/lib/catalog/attributes";
import { channelsQuery, listChannels } from "@/lib/catalog/channels";
import { familyDetailQuery, getFamilyDetail } from "@/lib/catalog/families";
import { getProductDetail, productDetailQuery } from "@/lib/catalog/product-detail";
import type { CatalogResource } from "@/lib/catalog/count-cache";
import { isPossibleId, type QueryDef } from "@/lib/catalog/list-query-grammar";
import {
  attributeDetailSchema,
  channelSchema,
  familyDetailSchema,
  productDetailSchema,
} from "@/lib/catalog/schemas";
import { READ_SCOPES, type ReadScope } from "@/lib/keys/scopes";
import { PublicApiError } from "./api-errors";
import type { ListEndpoint } from "./endpoints";
import type { ApiContext, ApiHandler } from "./pipeline";

// One item endpoint: a resource of the key's organization by its id.
export interface ItemEndpoint<Q = unknown> {
  name: "product" | "family" | "attribute";
  path: `/public/v1/${string}/{id}`;
  scope: ReadScope;
  summary: string;
  description: string;
  query: QueryDef<Q>;
  item: z.ZodType;
  /** The resources whose versions move with anything the answer shows: its page-cache entry is keyed by them (a
   * change elsewhere leaves it in use). */
  shows: readonly CatalogResource[];
  /** The 404's message: the same for an id of another organization as for one that exists nowhere. */
  notFound: string;
  /** The item, or undefined when the key's organization has none of this id. */
  read: (ctx: ApiContext<Q>) => Promise<unknown>;
  /** The item, or the 404 (built by item()). */
  handler: ApiHandler<Q>;
}

// An item endpoint whose handler answers its read, or the 404 with its message.
function item<Q>(e: Omit<ItemEndpoint<Q>, "handler">): ItemEndpoint<Q> {
  return {
    ...e,
    handler: async (ctx) => {
      // An id that no row can have (a NUL, a control character, too long) is not found, like any other.
      const value = isPossibleId(ctx.params.id ?? "") ? await e.read(ctx) : undefined;
      if (value === undefined) throw new PublicApiError("PUBLIC_API_NOT_FOUND", e.notFound);
      return value;
    },
  };
}

// The item endpoints, by the name the router gives their resource.
export const ITEM_ENDPOINTS = {
  product: item({
    name: "product",
    path: "/public/v1/products/{id}",
    scope: "products:read",
    summary: "Get a product",
    description:
      "Returns one product of the key's organization whole: the list item's fields, `createdAt`, its values by attribute code and its media. With `channelId`, a scopable attribute's value is the channel's, else the unscoped one.",
    query: productDetailQuery,
    item: productDetailSchema,
    // Its row, family and category labels (products), its values' attributes (attributes), its media and media
    // values (media), its values and media links (details).
    shows: ["products", "attributes", "media", "details"],
    notFound: "Produit introuvable : aucun produit de l'organisation de la clé API n'a cet identifiant.",
    read: ({ catalog, org, query, params, config }) =>
      getProductDetail(catalog, org, params.id!, query, config.baseUrl),
  }),
  family: item({
    name: "family",
    path: "/public/v1/families/{id}",
    scope: "families:read",
    summary: "Get a family",
    description:
      "Returns one family of the key's organization with its attributes, each saying whether a product of the family needs a value (`required`).",
    query: familyDetailQuery,
    item: familyDetailSchema,
    // Its row (families), its attributes and their links to it (attributes: family_attributes move them).
    shows: ["families", "attributes"],
    notFound: "Famille introuvable : aucune famille de l'organisation de la clé API n'a cet identifiant.",
    read: ({ catalog, org, params }) => getFamilyDetail(catalog, org.id, params.id!),
  }),
  attribute: item({
    name: "attribute",
    path: "/public/v1/attributes/{id}",
    scope: "attributes:read",
    summary: "Get an attribute",
    description:
      "Returns one attribute of the key's organization; a SELECT or MULTI_SELECT attribute with its `options` (the codes a value may take).",
    query: attributeDetailQuery,
    item: attributeDetailSchema,
    // Its row (attributes), its options (details).
    shows: ["attributes", "details"],
    notFound: "Attribut introuvable : aucun attribut de l'organisation de la clé API n'a cet identifiant.",
    read: ({ catalog, org, params }) => getAttributeDetail(catalog, org.id, params.id!),
  }),
};

// GET /public/v1/channels: the organization's channels (the ids `channelId` takes), readable with any read scope: a
// channel is how every resource's values are read, not a resource of its own, and a key made before the preview
// (five read scopes, or one) reads them without a new scope.
export const CHANNELS_ENDPOINT: ListEndpoint<z.infer<typeof channelsQuery.schema>> = {
  name: "channels",
  path: "/public/v1/channels",
  scope: READ_SCOPES,
  summary: "List channels",
  description:
    "Returns the channels of the key's organization: the ids `channelId` takes. Readable with any read scope.",
  query: channelsQuery,
  item: channelSchema,
  handler: ({ catalog, org, query }) => listChannels(catalog, org.id, query),
};
