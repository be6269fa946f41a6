import type { CatalogContext } from "@/lib/catalog/context";
import type { CatalogResource } from "@/lib/catalog/count-cache";
import type { Runtime } from "@/lib/runtime";
import { PublicApiError } from "./api-errors";
import { listTag, noneMatchHits } from "./page-cache";

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

// A conditional answer (a list, or a resource read whole): its ETag from the organization's versions of what it shows
// (a list: its resource; a product's detail: products, attributes, media and details), read in one statement shared
// with the requests of the same moment; then a 304, the page cache or `run` (the handler, whose body is cached). A
// change to anything the answer shows moves one of those versions in its transaction, so a cached body is never
// stale, and an answer polled or read again costs one version read.
export async function conditionalAnswer(opts: {
  request: Request;
  headers: Headers;
  rt: Runtime;
  catalog: CatalogContext;
  key: { orgId: string; orgSlug: string };
  resources: readonly CatalogResource[];
  path: string;
  query: unknown;
  run: () => Promise<unknown>;
}): Promise<Response> {
  const { request, headers, rt, catalog, key } = opts;
  const tag = listTag({
    orgId: key.orgId,
    orgSlug: key.orgSlug,
    version: await catalog.versions.read(catalog.db, key.orgId, opts.resources),
    path: opts.path,
    query: opts.query,
    baseUrl: rt.config.baseUrl,
  });
  const unchanged = revalidate(request, headers, tag);
  if (unchanged) return unchanged;
  let bytes = rt.pages.get(tag);
  headers.set("Server-Timing", `page-cache;desc=${bytes === undefined ? "miss" : "hit"}`);
  if (bytes === undefined) {
    try {
      bytes = Buffer.from(JSON.stringify(await opts.run()));
    } catch (err) {
      // An error is not a version of the answer: it carries neither the tag nor the revalidation.
      for (const h of ["ETag", "Vary", "Server-Timing"]) headers.delete(h);
      headers.set("Cache-Control", "private, no-store");
      throw err;
    }
    rt.pages.set(tag, bytes);
  }
  return new Response(request.method === "HEAD" ? null : bytes, { status: 200, headers });
}

// Gives an answer its strong tag, revalidated by every client and never shared (Vary: Authorization); the 304 when
// the request's If-None-Match holds the tag, else undefined (the caller sends the body).
function revalidate(request: Request, headers: Headers, tag: string): Response | undefined {
  headers.set("ETag", tag);
  headers.set("Cache-Control", "private, no-cache");
  headers.set("Vary", "Authorization");
  if (!noneMatchHits(request.headers.get("if-none-match"), tag)) return undefined;
  headers.delete("Content-Type");
  return new Response(null, { status: 304, headers });
}
