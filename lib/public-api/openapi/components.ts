// The schema components of the OpenAPI document: the resources' shapes, the pagination and the error body, those of
// the resources read whole while a feature shows them (details, the feed's events, an export's lines), the feed's
// event and an export's end line; then the components the operations switched on add (a creation's body).
import { exportEndSchema } from "@/lib/catalog/feed/export";
import {
  attributeDetailSchema,
  attributeSchema,
  categorySchema,
  changeEventSchema,
  channelSchema,
  familyDetailSchema,
  familySchema,
  mediaSchema,
  paginationSchema,
  productDetailSchema,
  productSchema,
} from "@/lib/catalog/resources/schemas";
import { readErrorBodySchema } from "../api-errors";
import { jsonSchema, type Json } from "./json-schema";

// The features whose operations or sections a component serves.
export interface Shown {
  details: boolean;
  changes: boolean;
  exporting: boolean;
  /** The feed's events: GET /public/v1/changes or the webhooks' deliveries. */
  events: boolean;
}

// The document's schema components, `added` (the operations' own) last.
export function schemaComponents(shown: Shown, added: Record<string, Json>): Record<string, Json> {
  const { details, changes, exporting, events } = shown;
  return {
    Product: jsonSchema(productSchema, "output"),
    Family: jsonSchema(familySchema, "output"),
    Attribute: jsonSchema(attributeSchema, "output"),
    Category: jsonSchema(categorySchema, "output"),
    Media: jsonSchema(mediaSchema, "output"),
    Pagination: jsonSchema(paginationSchema, "output"),
    // Not "Error": generated clients (openapi-typescript, openapi-generator) export a type of each schema's name,
    // and one named Error shadows JavaScript's global Error class in the code that imports it.
    ApiError: jsonSchema(readErrorBodySchema(changes), "output"),
    // The resources read whole: the details' answers, the items of the feed's events and an export's lines.
    ...(details || events || exporting
      ? {
          ProductDetail: jsonSchema(productDetailSchema, "output"),
          FamilyDetail: jsonSchema(familyDetailSchema, "output"),
          AttributeDetail: jsonSchema(attributeDetailSchema, "output"),
          Channel: jsonSchema(channelSchema, "output"),
        }
      : {}),
    ...(events ? { ChangeEvent: changeEventComponent() } : {}),
    ...(exporting ? { ExportEnd: jsonSchema(exportEndSchema, "output") } : {}),
    ...added,
  };
}

// The component schemas of an event's `item`, one per type, in the order of the types.
const ITEM_SCHEMAS = ["ProductDetail", "FamilyDetail", "AttributeDetail", "Category", "Media", "Channel"];

// The ChangeEvent component: its fields from the zod schema that the tests check answers with, its `item` one of the
// item components by reference (not six copies of them inline) or null.
export function changeEventComponent(): Json {
  const schema = jsonSchema(changeEventSchema, "output");
  const properties = schema.properties as Record<string, Json>;
  return {
    ...schema,
    properties: {
      ...properties,
      item: {
        description: properties.item!.description,
        anyOf: [...ITEM_SCHEMAS.map((name) => ({ $ref: `#/components/schemas/${name}` })), { type: "null" }],
      },
    },
  };
}
