import type { CatalogContext } from "@/lib/catalog/context";
import type { CatalogResource, VersionsRead } from "@/lib/catalog/list/count-cache";
import { jsonBytes } from "@/lib/catalog/list/rendered-list";
import type { Runtime } from "@/lib/runtime";
import type { ApiRequest } from "./api-request";
import { PublicApiError } from "./api-errors";
import { answerTag, noneMatchHits, pageKey } from "./page-cache";
import type { Reply } from "./reply";
import { apiState } from "./state";

// Longest If-None-Match a list takes, in characters. A tag is 34 characters: room for 50 of them, comma-separated;
// a longer header is a client's mistake, refused rather than split and compared tag by tag.
export const IF_NONE_MATCH_MAX = 2048;

// The message of the 400 to an If-None-Match longer than IF_NONE_MATCH_MAX (the OpenAPI document shows it too).
export const IF_NONE_MATCH_TOO_LONG = `En-tête « If-None-Match » invalide : ${IF_NONE_MATCH_MAX} caractères au plus attendus (une ou plusieurs ETag séparées par des virgules, ou *).`;

// Refuses (400) an If-None-Match longer than IF_NONE_MATCH_MAX.
export function checkIfNoneMatch(header: string | null): void {
  if (header !== null && header.length > IF_NONE_MATCH_MAX)
    throw new PublicApiError("PUBLIC_API_INVALID_HEADER", IF_NONE_MATCH_TOO_LONG);
}

// A conditional answer (a list, or a resource read whole). The organization's versions of what it shows (a list: its
// resource; a product's detail: products, attributes, media and details) are read in one statement shared with the
// requests of the same moment; with the path and the query they key the page cache. An entry found is current (a
// change to anything the answer shows moves one of those versions in its transaction): its tag answers the
// If-None-Match, its bytes the rest, for that one version read. Otherwise `run` (the handler) builds the answer, its
// tag is hashed from its bytes, the entry is stored under the new versions, and the If-None-Match is compared with
// that tag: a write that left this answer as it was still gets a 304. The tag thus changes exactly when the bytes do.
export async function conditionalAnswer(opts: {
  request: ApiRequest;
  headers: Headers;
  rt: Runtime;
  catalog: CatalogContext;
  key: { orgId: string; orgSlug: string };
  resources: readonly CatalogResource[];
  path: string;
  /** The parsed query's canonical JSON (ParsedQuery). */
  canonicalQuery: string;
  /** Builds the answer, given what the version read saw (the feed's head with the versions). */
  run: (seen: VersionsRead) => Promise<unknown>;
}): Promise<Reply> {
  const { request, headers, rt, catalog, key, canonicalQuery } = opts;
  const seen = await catalog.versions.read(catalog, key.orgId, opts.resources);
  const cacheKey = pageKey({
    orgId: key.orgId,
    orgSlug: key.orgSlug,
    version: seen.version,
    path: opts.path,
    canonicalQuery,
    baseUrl: rt.config.baseUrl,
  });
  let page = rt.part(apiState).pages.get(cacheKey);
  const hit = page !== undefined;
  if (page === undefined) {
    // An error is not a version of the answer: thrown before any validator is set, it carries neither the tag nor
    // the revalidation (the pipeline's `Cache-Control: private, no-store` stays).
    const body = jsonBytes(await opts.run(seen));
    page = { body, tag: answerTag({ orgId: key.orgId, path: opts.path, canonicalQuery }, body) };
    rt.part(apiState).pages.set(cacheKey, page);
  }
  const unchanged = revalidate(request, headers, page.tag);
  if (unchanged) return unchanged;
  headers.set("Server-Timing", `page-cache;desc=${hit ? "hit" : "miss"}`);
  return { status: 200, headers, body: request.method === "HEAD" ? null : page.body };
}

// Gives an answer its strong tag, revalidated by every client and never shared (Vary: Authorization); the 304 when
// the request's If-None-Match holds the tag, else undefined (the caller sends the body).
function revalidate(request: ApiRequest, headers: Headers, tag: string): Reply | undefined {
  headers.set("ETag", tag);
  headers.set("Cache-Control", "private, no-cache");
  headers.set("Vary", "Authorization");
  if (!noneMatchHits(request.headers.get("if-none-match"), tag)) return undefined;
  headers.delete("Content-Type");
  return { status: 304, headers, body: null };
}
