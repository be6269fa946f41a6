// The endpoint of the preview feature `changes` (DESIGN §5): the organization's change feed, in cursor order, with
// long polling. The router serves it only while the feature is on; the OpenAPI document and the reference read it.
import { changesQuery, followChanges, readChanges, type ChangesQuery } from "@/lib/catalog/changes";
import { MIRRORED, type Mirrored } from "@/lib/catalog/items";
import { READ_SCOPES, type ReadScope } from "@/lib/keys/scopes";
import type { ApiHandler } from "./pipeline";
import { insufficientScope } from "./pipeline";

// The scopes that let a key see a type's events: each resource's read scope; channels, any read scope (as
// GET /public/v1/channels: a channel is how values are read, not a resource of its own).
export const TYPE_SCOPES: Readonly<Record<Mirrored, readonly ReadScope[]>> = {
  products: ["products:read"],
  families: ["families:read"],
  attributes: ["attributes:read"],
  categories: ["categories:read"],
  media: ["media:read"],
  channels: READ_SCOPES,
};

// The types a key may follow: those of its read scopes.
export function readableTypes(scopes: ReadonlySet<string>): Mirrored[] {
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

// GET /public/v1/changes: what the router, the OpenAPI document and the reference read of it.
export const CHANGES_ENDPOINT = {
  name: "changes" as const,
  path: "/public/v1/changes" as const,
  // Any read scope lets a key in; each type's events are then those its scopes allow.
  scope: READ_SCOPES,
  summary: "Follow the change feed",
  description:
    "Returns the events of the key's organization after a cursor, in commit order: each object that changed (created, updated, or changed through what it shows: a family's label moves its products), served as it is now (`upsert`, with the object whole), or `delete` when it is gone. Follow it with the `cursor` of each answer; with `wait`, an answer waits for the next event (long polling). Start from an export's cursor (`GET /public/v1/export/{resource}`), or from `0`. A key sees the events of the resources its scopes read (channels with any read scope). Events are kept 30 days by default: an older cursor answers 410, and the client exports again.",
  query: changesQuery,
  handler: (async ({ catalog, org, key, query, config, request, admission }) => {
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
  }) satisfies ApiHandler<ChangesQuery>,
};
