// GET /public/v1/changes (preview `changes`): the organization's change feed, in cursor order, with long polling.
// Any read scope lets a key in; each type's events are then those its scopes allow. Never conditional: an answer may
// wait for the next event.
import { CursorError } from "@/lib/catalog/catalog-errors";
import { changesQuery, followChanges, readChanges } from "@/lib/catalog/feed/changes";
import { MIRRORED, type Mirrored } from "@/lib/catalog/resources/items";
import { changesPageSchema } from "@/lib/catalog/resources/schemas";
import { READ_SCOPES, type ReadScope } from "@/lib/keys/scopes";
import { cursorRefused } from "../error-response";
import { defineOperation } from "../operation";
import { CHANGES_EXAMPLE } from "../openapi/examples";
import { jsonSchema, type Json } from "../openapi/json-schema";
import {
  RATE_LIMIT_HEADERS,
  errorExample,
  errorResponseDoc,
  exampleOf,
  parameter,
  readErrorResponses,
  scopeText,
  withRateLimitHeaders,
} from "../openapi/shared";
import { insufficientScope } from "../pipeline";
import { acceptsText, invalidParamText, unknownParamText } from "../query-messages";

// The scopes that let a key see a type's events: each resource's read scope; channels, any read scope (as
// GET /public/v1/channels: a channel is how values are read, not a resource of its own).
const TYPE_SCOPES: Readonly<Record<Mirrored, readonly ReadScope[]>> = {
  products: ["products:read"],
  families: ["families:read"],
  attributes: ["attributes:read"],
  categories: ["categories:read"],
  media: ["media:read"],
  channels: READ_SCOPES,
};

// The types a key may follow: those of its read scopes.
function readableTypes(scopes: ReadonlySet<string>): Mirrored[] {
  return MIRRORED.filter((t) => TYPE_SCOPES[t].some((s) => scopes.has(s)));
}

// The types of a request: those asked (a 403 naming the scope of the first one the key may not read), else every
// type the key may read.
function typesOf(scopes: ReadonlySet<string>, asked: readonly Mirrored[] | undefined): readonly Mirrored[] {
  const readable = readableTypes(scopes);
  if (!asked) return readable;
  const refused = asked.find((t) => !readable.includes(t));
  if (refused) throw insufficientScope(TYPE_SCOPES[refused]);
  return asked;
}

const SUMMARY = "Follow the change feed";
const DESCRIPTION =
  "Returns the events of the key's organization after a cursor, in commit order: each object that changed (created, updated, or changed through what it shows: a family's label moves its products), served as it is now (`upsert`, with the object whole), or `delete` when it is gone. Follow it with the `cursor` of each answer; with `wait`, an answer waits for the next event (long polling). Start from an export's cursor (`GET /public/v1/export/{resource}`), or from `0`. A key sees the events of the resources its scopes read (channels with any read scope). Events are kept 30 days by default: an older cursor answers 410, and the client exports again.";

const PREVIEW_NOTE =
  "**Preview** (feature `changes`): available only while the operator switches it on (`PUBLIC_API_PREVIEW=changes`); it may still change.";

export const listChangesOperation = defineOperation({
  method: "GET",
  path: "/public/v1/changes",
  scope: READ_SCOPES,
  query: changesQuery,
  preview: "changes",
  openapi: () => ({
    operation: changesFragment(),
    tag: {
      name: "Changes",
      description: "The change feed: every change of the catalog, in order (preview).",
    },
  }),
  handler: async ({ catalog, org, key, query, config, request, admission }) => {
    const q = { ...query, types: typesOf(key.scopes, query.types) };
    if (q.wait === 0 || !catalog.signals) return readChanges(catalog, org, q, config.baseUrl);
    // The request's signal, read only by a request that may wait (building it costs; lib/server/api-host.ts). While
    // it waits for an event, the request gives its place in the admission back: a wait of up to 30 s holds no
    // connection, and long polls must not take the places of the requests at work.
    return followChanges(catalog, org, q, config.baseUrl, {
      signals: catalog.signals,
      abort: request.signal,
      idle: admission && ((wait) => admission.outside(wait, request.signal)),
    });
  },
});

// The operation object of the feed: its parameters, a page of events, the 410 of a cursor no longer kept.
function changesFragment(): Json {
  const e = { scope: READ_SCOPES, query: changesQuery, summary: SUMMARY, description: DESCRIPTION };
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
