// What the item operations share (preview `details`): a resource of the key's organization read whole by its id,
// conditional on the versions of everything it shows, a 404 for an id it does not have (the same for one of another
// organization), and its OpenAPI fragment.
import type { CatalogResource } from "@/lib/catalog/list/count-cache";
import { isPossibleId, type QueryDef } from "@/lib/catalog/list/query-grammar";
import type { ReadScope } from "@/lib/keys/scopes";
import { PublicApiError } from "../api-errors";
import { defineOperation, type KeyedOperation } from "../operation";
import { ITEMS } from "../openapi/examples";
import type { Json } from "../openapi/json-schema";
import {
  CONDITIONAL_HEADERS,
  IF_NONE_MATCH,
  RATE_LIMIT_HEADERS,
  errorExample,
  errorResponseDoc,
  parameter,
  readErrorResponses,
  scopeText,
  withRateLimitHeaders,
} from "../openapi/shared";
import type { ApiContext } from "../pipeline";

// The note of the feature's operations in the document.
export const DETAILS_NOTE =
  "**Preview** (feature `details`, also on with `writes`): available only while the operator switches it on (`PUBLIC_API_PREVIEW=details`); it may still change.";

// One item read: what it shows and how the document shows it.
export interface ItemSpec<Q, P extends string> {
  name: keyof typeof ITEMS;
  path: P;
  scope: ReadScope;
  summary: string;
  description: string;
  query: QueryDef<Q>;
  /** The resources whose versions move with anything the answer shows: its page-cache entry is keyed by them (a
   * change elsewhere leaves it in use). */
  shows: readonly CatalogResource[];
  /** The 404's message: the same for an id of another organization as for one that exists nowhere. */
  notFound: string;
  /** The item, or undefined when the key's organization has none of this id. */
  read: (ctx: ApiContext<Q>) => Promise<unknown>;
}

// An item's GET operation: its read, or the 404 with its message.
export function itemOperation<Q, const P extends `/public/v1/${string}/{id}`>(
  spec: ItemSpec<Q, P>,
): KeyedOperation<Q, P> {
  return defineOperation({
    method: "GET",
    path: spec.path,
    scope: spec.scope,
    query: spec.query,
    conditional: spec.shows,
    preview: "details",
    openapi: () => ({ operation: itemFragment(spec) }),
    handler: async (ctx) => {
      // An id that no row can have (a NUL, a control character, too long) is not found, like any other.
      const value = isPossibleId(ctx.params.id ?? "") ? await spec.read(ctx) : undefined;
      if (value === undefined) throw new PublicApiError("PUBLIC_API_NOT_FOUND", spec.notFound);
      return value;
    },
  });
}

// The GET operation object of an item: its id, its query, the item, the 304, the 404 and the errors of a read.
function itemFragment<Q>(e: ItemSpec<Q, string>): Json {
  const { schema, example } = ITEMS[e.name];
  return {
    operationId: `get${e.name[0]!.toUpperCase()}${e.name.slice(1)}`,
    summary: `${e.summary} (preview)`,
    description: `${e.description}\n\n${DETAILS_NOTE}\n\nRequired scope: ${scopeText(e.scope)}.`,
    tags: [{ product: "Products", family: "Families", attribute: "Attributes" }[e.name]],
    security: [{ bearerAuth: [e.scope] }],
    "x-required-scope": e.scope,
    "x-preview": true,
    parameters: [
      {
        name: "id",
        in: "path",
        required: true,
        description: "The id of a resource of the key's organization (any other answers 404).",
        schema: { type: "string", minLength: 1 },
      },
      ...Object.entries(e.query.params).map(([p, def]) => parameter(p, def)),
      IF_NONE_MATCH,
    ],
    responses: withRateLimitHeaders({
      "200": {
        description: "The resource, whole.",
        headers: { ...RATE_LIMIT_HEADERS, ...CONDITIONAL_HEADERS },
        content: { "application/json": { schema: { $ref: `#/components/schemas/${schema}` }, example } },
      },
      "304": {
        description:
          "Not Modified: `If-None-Match` holds the current `ETag` of this answer (it changes with any change to what the answer shows, and only then), so nothing it shows has changed. No body.",
        headers: { ...RATE_LIMIT_HEADERS, ...CONDITIONAL_HEADERS },
      },
      "404": errorResponseDoc(
        "No resource of the key's organization has this id: one of another organization answers the same.",
        { notFound: errorExample("PUBLIC_API_NOT_FOUND", e.notFound) },
      ),
      ...readErrorResponses(e.scope, Object.keys(e.query.params), {}),
    }),
  };
}
