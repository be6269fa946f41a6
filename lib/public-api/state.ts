// The public API's part of the process's state: the admission (requests at work and waiting), the page cache of
// whole answers, the queries parsed, the addresses blocked for failing authentication, the exports streaming per key
// and the OpenAPI document's JSON. Built on the runtime's first API request (rt.part(apiState)); closing it refuses
// the requests still waiting for a place (503) rather than leave them waiting on a runtime that is going.
import { BoundedMap } from "@/lib/bounded-map";
import { definePart } from "@/lib/runtime";
import { Admission, admissionSettings } from "./admission";
import { PageCache } from "./page-cache";
import { ParsedQueries } from "./params";

// Most addresses remembered as blocked at once (an address rotation cannot grow the map without bound).
const MAX_AUTH_BLOCKS = 10_000;
// Most query strings kept parsed per operation's definition: a few hundred bytes each, about 8 KB for a read by a
// hundred ids (the string, the parsed query and its canonical JSON), so at most about 16 MB for a definition.
const MAX_PARSED_QUERIES = 2_000;

// The API's state, one per runtime.
export const apiState = definePart(
  "api",
  (rt) => ({
    /** Requests at work at once and waiting for a place, both bounded (503 past them). */
    admission: new Admission(admissionSettings(rt.config)),
    /** Whole answers with their ETag, under the versions of what they show: served while those are unchanged. */
    pages: new PageCache(rt.config.PAGE_CACHE_MAX_ENTRIES, rt.config.PAGE_CACHE_MAX_BYTES),
    /** Query strings as sent, parsed and validated, per definition (a refused one is not kept). */
    queries: new ParsedQueries(MAX_PARSED_QUERIES, rt.config.preview),
    /** Client addresses over the failed-authentication limit, and until when (ms since the epoch). */
    authBlocks: new BoundedMap<string, number>(MAX_AUTH_BLOCKS),
    /** Exports streaming now, by API key id (a key with none has no entry). */
    exports: new Map<string, number>(),
    /** The OpenAPI document's JSON, built once per (preview features, base URL): a handful of entries at most. */
    openApiDocuments: new Map<string, string>(),
  }),
  async (state) => state.admission.close(),
);

// What the API keeps for the runtime's life.
export type ApiState = ReturnType<typeof apiState.create>;
