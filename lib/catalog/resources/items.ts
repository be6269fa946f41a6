import "server-only";
import { readAttributeDetails } from "./attributes";
import { readCategories } from "./categories";
import { readChannels } from "./channels";
import type { CatalogContext } from "@/lib/catalog/context";
import { readFamilyDetails } from "./families";
import { readMedia } from "./media";
import { readProductDetails } from "./product-detail";
import type { Mirrored } from "./schemas";
import type { Selection } from "@/lib/catalog/sql";

// The resources a copy of the catalog holds (defined beside their shapes, lib/catalog/resources/schemas.ts).
export { MIRRORED, type Mirrored } from "./schemas";

// An object in its public shape (every shape has its id).
export interface Item {
  id: string;
}

// Reads the objects of a selection in id order, in their resource's public shape: an id the organization has not
// (or no longer: deleted, a media made private) is absent from the answer.
export type ItemReader = (
  ctx: CatalogContext,
  org: { id: string; slug: string },
  sel: Selection,
  baseUrl: string,
) => Promise<Item[]>;

export const ITEM_READERS: Record<Mirrored, ItemReader> = {
  products: (ctx, org, sel, baseUrl) => readProductDetails(ctx, org, sel, baseUrl),
  families: (ctx, org, sel) => readFamilyDetails(ctx, org.id, sel),
  attributes: (ctx, org, sel) => readAttributeDetails(ctx, org.id, sel),
  categories: (ctx, org, sel) => readCategories(ctx, org.id, sel),
  media: (ctx, org, sel, baseUrl) => readMedia(ctx, org, sel, baseUrl),
  channels: (ctx, org, sel) => readChannels(ctx, org.id, sel),
};
