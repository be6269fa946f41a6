// The operation of the preview feature `export` in the OpenAPI document: marked `x-preview`, present only while the
// feature is on. Its 200 is NDJSON: each line one of the resources' shapes, the last one ExportEnd.
import { READ_SCOPES } from "@/lib/keys/scopes";
import { CHANNEL_EXAMPLE, ITEMS } from "./openapi-details";
import { errorExample, errorResponseDoc } from "./openapi-errors";
import {
  EXPORTS_PER_KEY,
  EXPORT_CURSOR_HEADER,
  EXPORT_ENDPOINT,
  EXPORT_IDLE_MS,
  EXPORT_RETRY_AFTER,
  exportScope,
  tooManyExports,
} from "./export-endpoint";
import { RATE_LIMIT_HEADERS, withRateLimitHeaders } from "./openapi-headers";
import type { Json } from "./openapi-json-schema";
import { EXAMPLES, readErrorResponses } from "./openapi-list-operation";
import { parameter } from "./openapi-parameters";

const PREVIEW_NOTE =
  "**Preview** (feature `export`): available only while the operator switches it on (`PUBLIC_API_PREVIEW=export`); it may still change.";

// The shape of each resource's lines, by the name of its schema in the document's components.
const LINE_SCHEMAS: Record<(typeof EXPORT_ENDPOINT.resources)[number], string> = {
  products: "ProductDetail",
  families: "FamilyDetail",
  attributes: "AttributeDetail",
  categories: "Category",
  media: "Media",
  channels: "Channel",
};

// What an integrator needs to know besides the endpoint's description: scopes, quota, limits, compression.
function details(): string {
  const scopes = EXPORT_ENDPOINT.resources
    .map((r) => {
      const s = exportScope(r);
      return `\`${r}\`: ${typeof s === "string" ? `\`${s}\`` : "any read scope"}`;
    })
    .join(", ");
  return [
    `Required scope: the resource's read scope (${scopes}).`,
    "Each export counts as **one request** against the key's rate limit, whatever its size (a `429` `PUBLIC_API_RATE_LIMIT_EXCEEDED` with `retryAfter` once the quota is spent, as on every endpoint).",
    `A key streams at most ${EXPORTS_PER_KEY} exports at once: a further one is a \`429\` \`PUBLIC_API_RATE_LIMIT_EXCEEDED\` with \`retryAfter\` ${EXPORT_RETRY_AFTER}, until one of them ends.`,
    `The stream is sent as fast as the client reads it; a client that reads nothing for ${EXPORT_IDLE_MS / 1000} s loses it (no end line).`,
    "With `Accept-Encoding: gzip` the server may send it compressed (`Content-Encoding: gzip`), batch by batch.",
    "On a server running the embedded database (the demo), other requests wait while an export streams.",
  ].join(" ");
}

// GET /public/v1/export/{resource}.
function exportOperation(): Json {
  const e = EXPORT_ENDPOINT;
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

// The path the feature adds.
export function exportPaths(): Json {
  return { [EXPORT_ENDPOINT.path]: { get: exportOperation() } };
}
