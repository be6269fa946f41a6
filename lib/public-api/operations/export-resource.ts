// GET /public/v1/export/{resource} (preview `export`): a whole resource of the key's organization as NDJSON from one
// snapshot, its last line the change-feed cursor of that snapshot. Not conditional: an export is a snapshot of its
// moment, never stored (Cache-Control: private, no-store).
import { exportQuery, openExport, type ExportQuery, type ExportSnapshot } from "@/lib/catalog/feed/export";
import { MIRRORED, type Mirrored } from "@/lib/catalog/resources/items";
import { READ_SCOPES, type ReadScope } from "@/lib/keys/scopes";
import { PublicApiError } from "../api-errors";
import { ndjsonStream } from "../export-stream";
import { EXPOSED, NDJSON } from "../headers";
import { defineOperation } from "../operation";
import { CHANNEL_EXAMPLE, EXAMPLES, ITEMS } from "../openapi/examples";
import type { Json } from "../openapi/json-schema";
import {
  RATE_LIMIT_HEADERS,
  errorExample,
  errorResponseDoc,
  parameter,
  readErrorResponses,
  withRateLimitHeaders,
} from "../openapi/shared";
import { ApiAnswer, type ApiContext } from "../pipeline";
import { listAttributesOperation } from "./list-attributes";
import { listCategoriesOperation } from "./list-categories";
import { listChannelsOperation } from "./list-channels";
import { listFamiliesOperation } from "./list-families";
import { listMediaOperation } from "./list-media";
import { listProductsOperation } from "./list-products";

// Exports one key may stream at once. An export holds a database connection for its length (the whole database on
// PGlite): a key that opens more waits for one to end rather than take the pool.
export const EXPORTS_PER_KEY = 2;
// Seconds a key over EXPORTS_PER_KEY is asked to wait: it cannot be known when an export ends.
export const EXPORT_RETRY_AFTER = 5;
// A client that reads nothing for this long loses its export: the transaction ends and the connection goes back to
// the pool (a stalled reader must not hold the database's snapshot, and its connection, without end).
export const EXPORT_IDLE_MS = 60_000;

// The scope each exported resource needs: its list's (channels: any read scope, as GET /channels).
const LIST_SCOPES: Readonly<Record<Mirrored, ReadScope | readonly ReadScope[]>> = {
  products: listProductsOperation.scope,
  families: listFamiliesOperation.scope,
  attributes: listAttributesOperation.scope,
  categories: listCategoriesOperation.scope,
  media: listMediaOperation.scope,
  channels: listChannelsOperation.scope,
};

// The scope an exported resource needs.
export function exportScope(resource: Mirrored): ReadScope | readonly ReadScope[] {
  return LIST_SCOPES[resource];
}

const SUMMARY = "Export a resource";

const PREVIEW_NOTE =
  "**Preview** (feature `export`): available only while the operator switches it on (`PUBLIC_API_PREVIEW=export`); it may still change.";
const DESCRIPTION =
  'Streams every item of a resource of the key\'s organization as NDJSON (`application/x-ndjson`): one JSON object per line, in `id` order, each in the shape its resource\'s reads answer (products, families and attributes whole, as their detail reads; categories, media and channels as their list items), all read from one snapshot of the catalog. The last line is `{"end":true,"cursor":"…","count":…}`: `cursor` is the change feed\'s position of that snapshot (the feed from it carries every change made since), `count` the items of this answer. A stream without that line was cut: ask again with `after=<id of the last line>`.';

export const exportResourceOperation = defineOperation({
  method: "GET",
  path: "/public/v1/export/{resource}",
  values: MIRRORED,
  scope: (params) => exportScope(params.resource as Mirrored),
  query: exportQuery,
  preview: "export",
  openapi: () => ({
    operation: exportFragment(),
    tag: { name: "Export", description: "Whole resources as NDJSON from one snapshot (preview)." },
  }),
  handler: exportAnswer,
});

// The answer of an export: its snapshot opened (a failure to open it is still an error answer: 503, 500), then a
// 200 whose body streams it. The key's slot is taken first and given back when the stream ends, however it ends.
async function exportAnswer(ctx: ApiContext<ExportQuery>): Promise<ApiAnswer> {
  const release = takeSlot(ctx.exports, ctx.key.id);
  let snapshot: ExportSnapshot;
  try {
    const resource = ctx.params.resource as Mirrored;
    snapshot = await openExport(ctx.db, ctx.catalog, ctx.org, resource, ctx.query, ctx.config.baseUrl);
  } catch (err) {
    release();
    throw err;
  }
  const body = ndjsonStream(snapshot, { idleMs: EXPORT_IDLE_MS, requestId: ctx.requestId, onEnd: release });
  // The snapshot's cursor before its first line too: a client whose stream is cut has it all the same. A copy loaded
  // in several requests (resumed with `after`, or one per resource) follows the feed from the earliest of their
  // cursors: from a later one, a change made between the two snapshots to an item the earlier request had sent would
  // be missed.
  return new ApiAnswer(200, body, {
    "Content-Type": NDJSON,
    [EXPORT_CURSOR_HEADER]: snapshot.cursor,
    "Access-Control-Expose-Headers": `${EXPOSED}, ${EXPORT_CURSOR_HEADER}`,
  });
}

// The header of an export's answer that carries its snapshot's change-feed cursor (the end line's), sent first.
export const EXPORT_CURSOR_HEADER = "X-Export-Cursor";

// The 429 of a key that already streams EXPORTS_PER_KEY exports.
export function tooManyExports(): PublicApiError {
  return new PublicApiError(
    "PUBLIC_API_RATE_LIMIT_EXCEEDED",
    `Trop d'exports en cours pour cette clé API : ${EXPORTS_PER_KEY} au plus à la fois. Réessayez quand l'un d'eux est terminé.`,
    { retryAfter: EXPORT_RETRY_AFTER, headers: { "Retry-After": String(EXPORT_RETRY_AFTER) } },
  );
}

// Takes one of a key's export slots, or throws tooManyExports; returns the function that gives it back (once).
function takeSlot(running: Map<string, number>, keyId: string): () => void {
  const n = running.get(keyId) ?? 0;
  if (n >= EXPORTS_PER_KEY) throw tooManyExports();
  running.set(keyId, n + 1);
  let given = false;
  return () => {
    if (given) return;
    given = true;
    const left = (running.get(keyId) ?? 1) - 1;
    if (left > 0) running.set(keyId, left);
    else running.delete(keyId);
  };
}

// The shape of each resource's lines, by the name of its schema in the document's components.
const LINE_SCHEMAS: Record<Mirrored, string> = {
  products: "ProductDetail",
  families: "FamilyDetail",
  attributes: "AttributeDetail",
  categories: "Category",
  media: "Media",
  channels: "Channel",
};

// What an integrator needs to know besides the endpoint's description: scopes, quota, limits, compression.
function details(): string {
  const scopes = MIRRORED.map((r) => {
    const s = exportScope(r);
    return `\`${r}\`: ${typeof s === "string" ? `\`${s}\`` : "any read scope"}`;
  }).join(", ");
  return [
    `Required scope: the resource's read scope (${scopes}).`,
    "Each export counts as **one request** against the key's rate limit, whatever its size (a `429` `PUBLIC_API_RATE_LIMIT_EXCEEDED` with `retryAfter` once the quota is spent, as on every endpoint).",
    `A key streams at most ${EXPORTS_PER_KEY} exports at once: a further one is a \`429\` \`PUBLIC_API_RATE_LIMIT_EXCEEDED\` with \`retryAfter\` ${EXPORT_RETRY_AFTER}, until one of them ends.`,
    `The stream is sent as fast as the client reads it; a client that reads nothing for ${EXPORT_IDLE_MS / 1000} s loses it (no end line).`,
    "With `Accept-Encoding: gzip` the server may send it compressed (`Content-Encoding: gzip`), batch by batch.",
    "On a server running the embedded database (the demo), other requests wait while an export streams.",
  ].join(" ");
}

// The operation object of an export: its resource, its query, the NDJSON 200 and its errors.
function exportFragment(): Json {
  const e = { summary: SUMMARY, description: DESCRIPTION, resources: MIRRORED, query: exportQuery };
  return {
    operationId: "exportResource",
    summary: `${e.summary} (preview)`,
    description: `${e.description}\n\n${PREVIEW_NOTE}\n\n${details()}`,
    tags: ["Export"],
    security: [{ bearerAuth: [...READ_SCOPES] }],
    "x-required-scope": [...READ_SCOPES],
    "x-preview": true,
    parameters: [
      {
        name: "resource",
        in: "path",
        required: true,
        description: "The resource to export.",
        schema: { type: "string", enum: [...e.resources] },
        example: "products",
      },
      ...Object.entries(e.query.params).map(([p, def]) => parameter(p, def)),
      {
        name: "Accept-Encoding",
        in: "header",
        required: false,
        description: "`gzip` to receive the stream compressed (`Content-Encoding: gzip`).",
        schema: { type: "string" },
        example: "gzip",
      },
    ],
    responses: withRateLimitHeaders({
      "200": {
        description: `The resource's items, one JSON object per line in \`id\` order (${Object.entries(
          LINE_SCHEMAS,
        )
          .map(([r, s]) => `${r}: ${s}`)
          .join(
            ", ",
          )}), then one ExportEnd line. A stream without the ExportEnd line was cut: resume with \`after\`.`,
        headers: {
          ...RATE_LIMIT_HEADERS,
          "Cache-Control": {
            description: "`private, no-store`: an export is the snapshot of its moment, never stored.",
            schema: { type: "string", enum: ["private, no-store"] },
          },
          [EXPORT_CURSOR_HEADER]: {
            description:
              "The change feed's cursor of this export's snapshot (the end line's `cursor`), sent before the first line: a cut stream has it too. A copy loaded in several requests (one per resource, or resumed with `after`) follows `GET /public/v1/changes` from the **earliest** of their cursors; from a later one, a change made between two of them to an item already received would be missed.",
            schema: { type: "string", pattern: "^[0-9]+$" },
          },
          "Content-Encoding": {
            description: "`gzip` when the request's `Accept-Encoding` allows it and the server compresses.",
            schema: { type: "string" },
          },
        },
        content: {
          "application/x-ndjson": {
            schema: {
              description: "One line of the stream: an item of the resource, or the last line (ExportEnd).",
              anyOf: [...new Set(Object.values(LINE_SCHEMAS)), "ExportEnd"].map((s) => ({
                $ref: `#/components/schemas/${s}`,
              })),
            },
            examples: {
              product: { summary: "A line of /export/products", value: ITEMS.product.example },
              category: { summary: "A line of /export/categories", value: EXAMPLES.categories },
              channel: { summary: "A line of /export/channels", value: CHANNEL_EXAMPLE },
              end: {
                summary: "The last line",
                value: { end: true, cursor: "5271", count: 3000 },
              },
            },
          },
        },
      },
      "404": errorResponseDoc("The path names no resource that can be exported.", {
        notFound: errorExample("PUBLIC_API_NOT_FOUND"),
      }),
      ...exportErrors(readErrorResponses("products:read", Object.keys(e.query.params), {})),
    }),
  };
}

// The read errors with the export's own: no If-None-Match (an export is never conditional), its 403 names the
// resource's scope, its 429 is also a key's exports.
function exportErrors(responses: Json): Json {
  const r = responses as Record<string, Json>;
  const invalid = (r["400"]!.content as Record<string, Json>)["application/json"]!;
  const { ifNoneMatchTooLong: _conditional, ...queryExamples } = invalid.examples as Json;
  const tooMany = r["429"]!;
  const content = (tooMany.content as Record<string, Json>)["application/json"]!;
  return {
    ...r,
    "400": {
      ...r["400"],
      description: "A query parameter is unknown or invalid; the message names it.",
      content: { "application/json": { ...invalid, examples: queryExamples } },
    },
    "403": {
      ...r["403"],
      description:
        "The key lacks the read scope of the resource (`products:read` for products, …; channels: any read scope).",
    },
    "429": {
      ...tooMany,
      description: `Rate limit exceeded, or the key already streams ${EXPORTS_PER_KEY} exports; retry after \`retryAfter\` seconds (also in the Retry-After header).`,
      content: {
        "application/json": {
          ...content,
          examples: {
            ...(content.examples as Json),
            tooManyExports: {
              value: errorExample("PUBLIC_API_RATE_LIMIT_EXCEEDED", tooManyExports().message, {
                retryAfter: EXPORT_RETRY_AFTER,
              }),
            },
          },
        },
      },
    },
  };
}
