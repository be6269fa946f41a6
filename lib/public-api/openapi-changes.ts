// The operation of the preview feature `changes` in the OpenAPI document (GET /public/v1/changes), marked
// `x-preview`, and the schema of its events: present only while the feature is on.
import { changeEventSchema, changesPageSchema } from "@/lib/catalog/schemas";
import { CursorError } from "@/lib/catalog/catalog-errors";
import { acceptsText, invalidParamText, unknownParamText } from "./query-messages";
import { CHANGES_ENDPOINT, TYPE_SCOPES } from "./changes-endpoint";
import { cursorRefused } from "./error-response";
import { errorExample, errorResponseDoc, exampleOf } from "./openapi-errors";
import { RATE_LIMIT_HEADERS, withRateLimitHeaders } from "./openapi-headers";
import { ITEMS } from "./openapi-details";
import { jsonSchema, type Json } from "./openapi-json-schema";
import { readErrorResponses, scopeText } from "./openapi-list-operation";
import { parameter } from "./openapi-parameters";
import { insufficientScope } from "./pipeline";

const PREVIEW_NOTE =
  "**Preview** (feature `changes`): available only while the operator switches it on (`PUBLIC_API_PREVIEW=changes`); it may still change.";

// The component schemas of an event's `item`, one per type, in the order of the types.
const ITEM_SCHEMAS = ["ProductDetail", "FamilyDetail", "AttributeDetail", "Category", "Media", "Channel"];

// An answer of the feed: an upsert (a family, whole) and a delete (a product gone). Its first event is the example
// of a webhook's payload too (openapi-webhooks.ts).
export const CHANGES_EXAMPLE = {
  data: [
    {
      cursor: "1233",
      type: "families",
      id: ITEMS.family.example.id,
      op: "upsert",
      at: "2026-06-07T09:30:12.345Z",
      item: ITEMS.family.example,
    },
    {
      cursor: "1234",
      type: "products",
      id: "prd_3Hk8mQ2rT6vW9xYz",
      op: "delete",
      at: "2026-06-07T09:30:13.002Z",
      item: null,
    },
  ],
  cursor: "1234",
  hasMore: false,
};

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

// GET /public/v1/changes.
function changesOperation(): Json {
  const e = CHANGES_ENDPOINT;
  const page = jsonSchema(changesPageSchema, "output");
  const pageProperties = page.properties as Record<string, Json>;
  const names = Object.keys(e.query.params);
  const shared = readErrorResponses(e.scope, names, {}) as Record<string, Json>;
  return {
    operationId: "listChanges",
    summary: `${e.summary} (preview)`,
    description: `${e.description}\n\n${PREVIEW_NOTE}\n\nRequired scope: ${scopeText(e.scope)}.`,
    tags: ["Changes"],
    security: [{ bearerAuth: [...e.scope] }],
    "x-required-scope": [...e.scope],
    "x-preview": true,
    parameters: Object.entries(e.query.params).map(([name, def]) => parameter(name, def)),
    responses: withRateLimitHeaders({
      "200": {
        description:
          "The events after the cursor, in cursor order (at most `limit`), the cursor to continue from, and whether more are there already. With `wait`, an answer without events comes at the end of the wait.",
        headers: {
          ...RATE_LIMIT_HEADERS,
          "Cache-Control": {
            description:
              "`private, no-store`: an answer of the feed is never reused; follow its `cursor` instead.",
            schema: { type: "string", enum: ["private, no-store"] },
          },
        },
        content: {
          "application/json": {
            schema: {
              ...page,
              properties: {
                ...pageProperties,
                data: { type: "array", items: { $ref: "#/components/schemas/ChangeEvent" } },
              },
            },
            example: CHANGES_EXAMPLE,
          },
        },
      },
      "400": errorResponseDoc(
        "A query parameter is unknown or invalid, or `after` is not a cursor of the organization (past its last event); the message names it.",
        {
          unknownCursor: exampleOf(cursorRefused(new CursorError("unknown", "99999999", "1234"))),
          invalidLimit: errorExample(
            "PUBLIC_API_INVALID_QUERY",
            invalidParamText("limit", acceptsText(e.query.params.limit!.accepts), "5000"),
          ),
          unknownParameter: errorExample("PUBLIC_API_INVALID_QUERY", unknownParamText("since", names)),
        },
      ),
      "401": shared["401"]!,
      "403": errorResponseDoc(
        `The key has no read scope, or \`types\` names a resource whose read scope the key lacks (channels: ${scopeText(TYPE_SCOPES.channels)}).`,
        {
          noReadScope: exampleOf(insufficientScope(e.scope)),
          typeNotReadable: exampleOf(insufficientScope(TYPE_SCOPES.media)),
        },
      ),
      "410": errorResponseDoc(
        "The events after `after` are no longer kept (30 days by default): export the resources again (`GET /public/v1/export/{resource}`) and follow the feed from the export's cursor.",
        { cursorExpired: errorExample("PUBLIC_API_CURSOR_EXPIRED") },
      ),
      "429": shared["429"]!,
      "500": shared["500"]!,
      "503": shared["503"]!,
    }),
  };
}

// The path the feature adds.
export function changesPaths(): Json {
  return { [CHANGES_ENDPOINT.path]: { get: changesOperation() } };
}
