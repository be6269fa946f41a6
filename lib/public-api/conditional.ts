import { createHash } from "node:crypto";
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

// A list's answer: its ETag from the organization's version of the resource listed (one read, shared with the
// requests of the same moment), then a 304, the page cache or `run` (the handler, whose body is cached).
export async function conditionalList(opts: {
  request: Request;
  headers: Headers;
  rt: Runtime;
  catalog: CatalogContext;
  key: { orgId: string; orgSlug: string };
  resource: CatalogResource;
  path: string;
  query: unknown;
  run: () => Promise<unknown>;
}): Promise<Response> {
  const { request, headers, rt, catalog, key } = opts;
  const tag = listTag({
    orgId: key.orgId,
    orgSlug: key.orgSlug,
    version: await catalog.versions.read(catalog.db, key.orgId, opts.resource),
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
      // An error is not a version of the list: its answer carries neither the tag nor the revalidation.
      for (const h of ["ETag", "Vary", "Server-Timing"]) headers.delete(h);
      headers.set("Cache-Control", "private, no-store");
      throw err;
    }
    rt.pages.set(tag, bytes);
  }
  return new Response(request.method === "HEAD" ? null : bytes, { status: 200, headers });
}

// An item's answer (a detail: one statement by its id): read, then tagged by a hash of its bytes, so the tag changes
// exactly when the answer does, whatever changed it (a value, an option, a media file, a family's label); then a 304
// on If-None-Match, or the body. No page cache: every request reads the item (one statement by its id).
export async function conditionalItem(opts: {
  request: Request;
  headers: Headers;
  run: () => Promise<unknown>;
}): Promise<Response> {
  const { request, headers } = opts;
  const bytes = Buffer.from(JSON.stringify(await opts.run()));
  const tag = `"${createHash("sha256").update(bytes).digest("base64url").slice(0, 32)}"`;
  return (
    revalidate(request, headers, tag) ??
    new Response(request.method === "HEAD" ? null : bytes, { status: 200, headers })
  );
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
