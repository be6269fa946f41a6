// What the list operations share: the GET of a list is conditional on its resource's versions (ETag, 304, page
// cache), and its OpenAPI fragment is built from its query's parameters, its item's schema component and an
// example item. Each list is then one call of listOperation in its own file.
import type { CatalogResource } from "@/lib/catalog/list/count-cache";
import { paramsOn, type QueryDef } from "@/lib/catalog/list/query-grammar";
import type { ReadScope } from "@/lib/keys/scopes";
import { defineOperation, type KeyedOperation, type OpenApiOptions, type OpenApiTag } from "../operation";
import type { Json } from "../openapi/json-schema";
import {
  CONDITIONAL_HEADERS,
  IF_NONE_MATCH,
  RATE_LIMIT_HEADERS,
  errorExample,
  exampleOf,
  parameter,
  readErrorResponses,
  scopeText,
  withRateLimitHeaders,
} from "../openapi/shared";
import type { ApiHandler } from "../pipeline";
import { PublicApiError } from "../api-errors";
import { parseQuery } from "../params";
import { MAX_NAMED } from "@/lib/catalog/list/reads-by-ids";

// One list: what it reads and how the document shows it.
export interface ListSpec<Q, P extends string> {
  /** The resource listed (its version per organization keys the list's page-cache entries). */
  name: CatalogResource;
  path: P;
  /** The scope required; several: any one of them. */
  scope: ReadScope | readonly ReadScope[];
  summary: string;
  description: string;
  query: QueryDef<Q>;
  /** The tag it introduces: its resource's group in the reference. */
  tag: OpenApiTag;
  /** The name of its item's schema component, and an example item. */
  item: string;
  /** Schema components it alone refers to (a new resource's item schema); the shared ones are the document's. */
  components?: Record<string, Json>;
  example: Json;
  /** The preview feature it belongs to (its summary and description say so); absent, V1. */
  preview?: { feature: "details"; note: string };
  handler: ApiHandler<Q>;
}

// A list's GET operation, its scope a fixed one (an export of its resource requires the same).
export type ListOperation<Q, P extends string> = KeyedOperation<Q, P> & { scope: ListSpec<Q, P>["scope"] };

// A list's GET operation: conditional on its resource, documented by listFragment.
export function listOperation<Q, const P extends `/public/v1/${string}`>(
  spec: ListSpec<Q, P>,
): ListOperation<Q, P> {
  const op = defineOperation({
    method: "GET",
    path: spec.path,
    scope: spec.scope,
    query: spec.query,
    conditional: [spec.name],
    preview: spec.preview?.feature,
    openapi: (options) => ({
      operation: listFragment(spec, options),
      tag: spec.tag,
      components: spec.components,
    }),
    handler: spec.handler,
  });
  return { ...op, scope: spec.scope };
}

// The 400 of a list asked for more ids than it takes, as the API answers it (reads by ids, while preview `details` is
// on): the error its own parser throws.
function tooManyIdsExample<Q>(query: QueryDef<Q>, options: OpenApiOptions): Record<string, Json> {
  const preview = options.preview ?? [];
  const ids = paramsOn(query, preview).find(([name]) => name === "ids")?.[1];
  if (!ids?.example) return {};
  const first = ids.example.split(",")[0]!;
  const many = Array.from({ length: MAX_NAMED + 1 }, (_, i) => `${first}${i}`).join(",");
  try {
    parseQuery(new URLSearchParams({ ids: many }), query, preview);
  } catch (err) {
    if (err instanceof PublicApiError) return { tooManyIds: exampleOf(err) };
  }
  return {};
}

// The GET operation object of a list: its parameters (a preview feature's while it is on), a page of its items, the
// 304 and the errors of a read.
function listFragment<Q>(e: ListSpec<Q, string>, options: OpenApiOptions): Json {
  const taken = paramsOn(e.query, options.preview ?? []);
  const params = [...taken.map(([name, p]) => parameter(name, p)), IF_NONE_MATCH];
  const scopes = typeof e.scope === "string" ? [e.scope] : [...e.scope];
  const itemName = e.item;
  const operation: Json = {
    operationId: `list${e.name[0]!.toUpperCase()}${e.name.slice(1)}`,
    summary: e.preview ? `${e.summary} (preview)` : e.summary,
    description: e.preview
      ? `${e.description}\n\n${e.preview.note}\n\nRequired scope: ${scopeText(e.scope)}.`
      : `${e.description}\n\nRequired scope: ${scopeText(e.scope)}.`,
    tags: [e.tag.name],
    security: [{ bearerAuth: scopes }],
    "x-required-scope": typeof e.scope === "string" ? e.scope : scopes,
    parameters: params,
    responses: withRateLimitHeaders({
      "200": {
        description: "One page of items and the pagination of the whole list.",
        headers: { ...RATE_LIMIT_HEADERS, ...CONDITIONAL_HEADERS },
        content: {
          "application/json": {
            schema: {
              type: "object",
              required: ["data", "pagination"],
              additionalProperties: false,
              properties: {
                data: { type: "array", items: { $ref: `#/components/schemas/${itemName}` } },
                pagination: { $ref: "#/components/schemas/Pagination" },
              },
            },
            example: {
              data: [e.example],
              pagination: { page: 1, perPage: 20, total: 1, totalPages: 1, hasAny: true },
            },
          },
        },
      },
      "304": {
        description:
          "Not Modified: `If-None-Match` holds the current `ETag` of this answer, so this page, its items and its " +
          "totals are unchanged since the answer that carried it, whatever changed elsewhere. No body; the `ETag`, " +
          "the request id and the rate-limit headers as on a 200.",
        headers: { ...RATE_LIMIT_HEADERS, ...CONDITIONAL_HEADERS },
      },
      ...readErrorResponses(
        e.scope,
        taken.map(([name]) => name),
        {
          invalidPerPage: errorExample(
            "PUBLIC_API_INVALID_QUERY",
            "Paramètre « perPage » invalide : entier de 1 à 100 attendu (reçu « 1000 »).",
          ),
          ...tooManyIdsExample(e.query, options),
        },
      ),
    }),
  };
  // A preview list is marked so after everything else.
  return e.preview ? { ...operation, "x-preview": true } : operation;
}
