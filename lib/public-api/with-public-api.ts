import { randomUUID } from "node:crypto";
import { BodyTooLargeError, readBoundedBody } from "@/lib/bounded-body";
import type { CatalogContext } from "@/lib/catalog/context";
import type { CatalogResource } from "@/lib/catalog/count-cache";
import type { QueryDef } from "@/lib/catalog/query";
import type { Config } from "@/lib/config";
import { lookupKey, type KeyRecord } from "@/lib/keys/cache";
import { isWellFormedApiKey } from "@/lib/keys/format";
import type { Scope } from "@/lib/keys/scopes";
import { RateLimiterUnavailableError, retryAfterSeconds, type RateLimitResult } from "@/lib/rate-limit";
import { clientAddress } from "./client-address";
import { READ_ALLOW, UNAVAILABLE_RETRY_AFTER, errorResponse, plainError } from "./error-response";
import { PublicApiError } from "./errors";
import { baseHeaders, preflightResponse, setRateLimitHeaders } from "./headers";
import { listTag, noneMatchHits } from "./page-cache";
import { getRuntime, type Runtime } from "@/lib/runtime";
import { parseQuery, sentQuery } from "./params";

// What a handler receives: the key's organization (the only one it may read), the parsed query and the runtime parts.
export interface ApiContext<Q> {
  request: Request;
  requestId: string;
  org: { id: string; slug: string };
  key: KeyRecord;
  query: Q;
  config: Config;
  /** The database and the catalog's caches, for lib/catalog. */
  catalog: CatalogContext;
  /** A write's parsed JSON body (undefined for reads). */
  body?: unknown;
}

// What a handler returns when the answer is not a plain 200: a status, a body and headers of its own (a 201).
export class ApiAnswer {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

// Largest JSON body a write accepts, in bytes.
export const WRITE_BODY_LIMIT = 64 * 1024;

// Deepest nesting of objects and arrays a write's JSON body may have (the body itself is level 1). The deepest valid
// creation has 4 levels (body, values, a channel's object, a price); 32 leaves room for any future field. V8's
// JSON.parse reads the 32,768 levels a 64 KB body can hold, but recursive code after it does not: the value checks
// overflowed the call stack near 3,000 levels and JSON.stringify near 10,000 (Node 20, measured), a 500.
export const JSON_DEPTH_LIMIT = 32;

// A list handler: reads and returns the response body; everything else is the wrapper's.
export type ApiHandler<Q> = (ctx: ApiContext<Q>) => Promise<unknown>;

// Wraps a handler in the public API pipeline: request id → key → 401 → rate limit → 429 → scope → 403 → query → 400
// → (writes: content type → 415, size → 413, JSON → 400) → (lists: resource's version → ETag → 304 or page cache)
// → handler.
export function withPublicApi<Q>(
  handler: ApiHandler<Q>,
  opts: {
    scope: Scope;
    query: QueryDef<Q>;
    /** A write: the request's JSON body is read (415, 413, 400) and handed to the handler. */
    jsonBody?: boolean;
    /** A list of this resource: ETag from (organization, the resource's version, path, parsed query), 304 on
     * If-None-Match, page cache. */
    conditional?: CatalogResource;
  },
): (request: Request) => Promise<Response> {
  return async (request) => {
    const requestId = randomUUID();
    const headers = baseHeaders(requestId);
    const head = request.method === "HEAD";
    const rt = getRuntime();
    const now = Date.now();
    try {
      const key = await authenticate(request, rt, headers, now);
      rt.lastUsed.touch(key.id, now);
      // Every authenticated request counts against its key, whatever its answer (a 403 or a 400 too): a key
      // cannot probe scopes or parameters for free, and its headers always show the quota it spends.
      if (rt.config.RATE_LIMIT_ENABLED) {
        const r = await limit(rt.limiters.perKey, key.id);
        setRateLimitHeaders(headers, "default", rt.config.RATE_LIMIT_WINDOW_SECONDS, r, now);
        if (!r.success) throw rateLimited(r, now);
      }
      if (!key.scopes.has(opts.scope)) {
        throw new PublicApiError(
          "PUBLIC_API_INSUFFICIENT_SCOPE",
          `La clé API n'a pas le scope « ${opts.scope} » requis pour cette ressource.`,
        );
      }
      const url = new URL(request.url);
      const query = parseQuery(sentQuery(request, url), opts.query);
      if (opts.conditional) checkIfNoneMatch(request.headers.get("if-none-match"));
      const input = opts.jsonBody ? await readJsonBody(request) : undefined;
      const catalog = await rt.catalog();
      const run = () =>
        handler({
          request,
          requestId,
          org: { id: key.orgId, slug: key.orgSlug },
          key,
          query,
          config: rt.config,
          catalog,
          body: input,
        });
      if (opts.conditional) {
        // A list: its ETag from the organization's version of the resource listed (one read, shared with the requests
        // of the same moment), then a 304, the page cache or the handler.
        const tag = listTag({
          orgId: key.orgId,
          orgSlug: key.orgSlug,
          version: await catalog.versions.read(catalog.db, key.orgId, opts.conditional),
          path: url.pathname,
          query,
          baseUrl: rt.config.baseUrl,
        });
        headers.set("ETag", tag);
        headers.set("Cache-Control", "private, no-cache");
        headers.set("Vary", "Authorization");
        if (noneMatchHits(request.headers.get("if-none-match"), tag)) {
          headers.delete("Content-Type");
          return new Response(null, { status: 304, headers });
        }
        let bytes = rt.pages.get(tag);
        headers.set("Server-Timing", `page-cache;desc=${bytes === undefined ? "miss" : "hit"}`);
        if (bytes === undefined) {
          try {
            bytes = Buffer.from(JSON.stringify(await run()));
          } catch (err) {
            // An error is not a version of the list: its answer carries neither the tag nor the revalidation.
            for (const h of ["ETag", "Vary", "Server-Timing"]) headers.delete(h);
            headers.set("Cache-Control", "private, no-store");
            throw err;
          }
          rt.pages.set(tag, bytes);
        }
        return new Response(head ? null : bytes, { status: 200, headers });
      }
      const body = await run();
      if (body instanceof ApiAnswer) {
        for (const [k, v] of Object.entries(body.headers)) headers.set(k, v);
        return new Response(head ? null : JSON.stringify(body.body), { status: body.status, headers });
      }
      return new Response(head ? null : JSON.stringify(body), { status: 200, headers });
    } catch (err) {
      return errorResponse(err, requestId, headers, head);
    }
  };
}

// Longest If-None-Match a list takes, in characters. A tag is 34 characters: room for 50 of them, comma-separated;
// a longer header is a client's mistake, refused rather than split and compared tag by tag.
export const IF_NONE_MATCH_MAX = 2048;

// The message of the 400 to an If-None-Match longer than IF_NONE_MATCH_MAX (the OpenAPI document shows it too).
export const IF_NONE_MATCH_TOO_LONG = `En-tête « If-None-Match » invalide : ${IF_NONE_MATCH_MAX} caractères au plus attendus (une ou plusieurs ETag séparées par des virgules, ou *).`;

function checkIfNoneMatch(header: string | null): void {
  if (header !== null && header.length > IF_NONE_MATCH_MAX)
    throw new PublicApiError("PUBLIC_API_INVALID_HEADER", IF_NONE_MATCH_TOO_LONG);
}

// A write's body: JSON by its content type (415), at most WRITE_BODY_LIMIT bytes (413), parsed (400).
async function readJsonBody(request: Request): Promise<unknown> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json") {
    throw new PublicApiError("PUBLIC_API_UNSUPPORTED_MEDIA_TYPE", undefined, {
      details: [
        {
          field: "Content-Type",
          code: "UNSUPPORTED_MEDIA_TYPE",
          message: `Type de contenu « ${type.slice(0, 60) || "absent"} » non pris en charge : application/json attendu.`,
        },
      ],
    });
  }
  const tooLarge = () =>
    new PublicApiError(
      "PUBLIC_API_PAYLOAD_TOO_LARGE",
      `Corps de requête trop volumineux : ${WRITE_BODY_LIMIT / 1024} Ko au plus.`,
      {
        details: [
          { field: "body", code: "TOO_LARGE", message: `Le corps dépasse ${WRITE_BODY_LIMIT} octets.` },
        ],
      },
    );
  let text: string;
  try {
    text = (await readBoundedBody(request, WRITE_BODY_LIMIT)).toString("utf8");
  } catch (err) {
    if (err instanceof BodyTooLargeError) throw tooLarge();
    throw err;
  }
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw new PublicApiError("PUBLIC_API_INVALID_BODY", "Corps de requête invalide : JSON mal formé.", {
      details: [{ field: "body", code: "INVALID_JSON", message: "Le corps n'est pas un JSON valide." }],
    });
  }
  const deep = tooDeep(value, JSON_DEPTH_LIMIT);
  if (deep !== undefined) {
    throw new PublicApiError(
      "PUBLIC_API_INVALID_BODY",
      `Corps de requête invalide : JSON imbriqué sur plus de ${JSON_DEPTH_LIMIT} niveaux.`,
      {
        details: [
          {
            field: deep.slice(0, 100),
            code: "TOO_DEEP",
            message: `Valeur trop imbriquée : ${JSON_DEPTH_LIMIT} niveaux d'objets et de tableaux au plus.`,
          },
        ],
      },
    );
  }
  return value;
}

// The path (as the write errors name fields: "values.color.0") of the first object or array nested deeper than
// `limit` levels, or undefined. Walked with a stack of its own, in document order: no depth overflows it.
function tooDeep(root: unknown, limit: number): string | undefined {
  const stack: [value: unknown, path: string, depth: number][] = [[root, "", 1]];
  while (stack.length > 0) {
    const [v, path, depth] = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    if (depth > limit) return path || "body";
    const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x] as const) : Object.entries(v);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, x] = entries[i]!;
      stack.push([x, path ? `${path}.${k}` : k, depth + 1]);
    }
  }
  return undefined;
}

// Resolves the request's key, or throws the 401 (or 429 when this address keeps failing) that fits.
async function authenticate(
  request: Request,
  rt: Runtime,
  headers: Headers,
  now: number,
): Promise<KeyRecord> {
  const auth = request.headers.get("authorization");
  if (auth === null || auth.trim() === "") throw keyMissing(request);
  const m = /^Bearer(?:\s+(.*))?$/i.exec(auth.trim());
  if (!m) throw new PublicApiError("PUBLIC_API_KEY_INVALID");
  const token = (m[1] ?? "").trim();
  if (token === "") throw keyMissing(request);
  if (!isWellFormedApiKey(token)) throw new PublicApiError("PUBLIC_API_KEY_INVALID");

  let lookedUp = false;
  const record = await lookupKey(await rt.db(), rt.keyCache, token, now, () => {
    // A database lookup is about to happen: refuse it to an address that keeps failing.
    const blocked = authBlocked(request, rt, now);
    if (blocked) throw blocked;
    lookedUp = true;
  });
  let failure: PublicApiError | undefined;
  if (!record) failure = new PublicApiError("PUBLIC_API_KEY_INVALID");
  else if (record.revokedAt !== null && record.revokedAt <= now)
    failure = new PublicApiError("PUBLIC_API_KEY_REVOKED");
  else if (record.expiresAt !== null && record.expiresAt <= now)
    failure = new PublicApiError("PUBLIC_API_KEY_EXPIRED");
  if (!failure) return record!;
  if (lookedUp && rt.config.RATE_LIMIT_ENABLED) await countAuthFailure(request, rt, headers, now);
  throw failure;
}

// Query parameters in which clients commonly put an API key (compared without case).
export const KEY_QUERY_PARAMS = ["api_key", "apikey", "api-key", "key", "access_token", "token"] as const;

// The 401 of a request without a key in its Authorization header. A key sent in the query instead is not read (URLs
// end up in logs, proxies and browser histories): the message names the parameter, never its value, and says where
// the key goes. Same code as any missing key: the API reads keys from one place only, and a client branching on the
// code must do the same thing (send the header); only the text for the person reading it differs.
function keyMissing(request: Request): PublicApiError {
  const names = [...new URL(request.url).searchParams.keys()];
  const inQuery = names.find((n) => (KEY_QUERY_PARAMS as readonly string[]).includes(n.toLowerCase()));
  if (inQuery === undefined) return new PublicApiError("PUBLIC_API_KEY_MISSING");
  return new PublicApiError("PUBLIC_API_KEY_MISSING", keyInQueryMessage(inQuery));
}

// The message of the 401 to a key sent in the query parameter `name` (the OpenAPI document shows it too).
export function keyInQueryMessage(name: string): string {
  return `Clé API manquante : la clé se transmet dans l'en-tête « Authorization: Bearer <clé> », jamais dans l'URL (paramètre « ${name} » ignoré).`;
}

function authBlocked(request: Request, rt: Runtime, now: number): PublicApiError | undefined {
  if (!rt.config.RATE_LIMIT_ENABLED) return undefined;
  const ip = clientAddress(request.headers);
  const until = rt.authBlocks.get(ip);
  if (until === undefined) return undefined;
  if (until <= now) {
    rt.authBlocks.delete(ip);
    return undefined;
  }
  const retryAfter = retryAfterSeconds(until, now);
  return new PublicApiError("PUBLIC_API_RATE_LIMIT_EXCEEDED", undefined, {
    retryAfter,
    headers: { "Retry-After": String(retryAfter) },
  });
}

async function countAuthFailure(request: Request, rt: Runtime, headers: Headers, now: number): Promise<void> {
  const ip = clientAddress(request.headers);
  const r = await limit(rt.limiters.authFailure, `ip:${ip}`);
  setRateLimitHeaders(headers, "auth-failures", rt.config.AUTH_FAILURE_WINDOW_SECONDS, r, now);
  if (!r.success) {
    rt.authBlocks.set(ip, r.reset);
    throw rateLimited(r, now);
  }
}

async function limit(
  limiter: { limit(id: string): Promise<RateLimitResult> },
  id: string,
): Promise<RateLimitResult> {
  try {
    return await limiter.limit(id);
  } catch (err) {
    if (err instanceof RateLimiterUnavailableError) {
      throw new PublicApiError("PUBLIC_API_UNAVAILABLE", undefined, {
        headers: { "Retry-After": String(UNAVAILABLE_RETRY_AFTER) },
      });
    }
    throw err;
  }
}

function rateLimited(r: RateLimitResult, now: number): PublicApiError {
  const retryAfter = retryAfterSeconds(r.reset, now);
  return new PublicApiError("PUBLIC_API_RATE_LIMIT_EXCEEDED", undefined, {
    retryAfter,
    headers: { "Retry-After": String(retryAfter) },
  });
}

// The handlers of a read-only resource: GET and HEAD answered by `read`, OPTIONS preflight, 405 for the rest.
function readOnlyRoute(read: (request: Request) => Promise<Response>) {
  const notAllowed = async (request: Request) => plainError("PUBLIC_API_METHOD_NOT_ALLOWED", request.method);
  return {
    GET: read,
    HEAD: read,
    OPTIONS: async () => preflightResponse(READ_ALLOW),
    POST: notAllowed,
    PUT: notAllowed,
    PATCH: notAllowed,
    DELETE: notAllowed,
  };
}

// The handlers of a list route: GET and HEAD through the pipeline (conditional: ETag, 304, page cache), OPTIONS
// preflight, 405 for the rest.
export function publicRoute<Q>(
  handler: ApiHandler<Q>,
  opts: { name: CatalogResource; scope: Scope; query: QueryDef<Q> },
) {
  return readOnlyRoute(
    withPublicApi(handler, { scope: opts.scope, query: opts.query, conditional: opts.name }),
  );
}

// The handlers of a path that does not exist under /public/v1: 404 in the error shape for every method.
export function notFoundRoute() {
  const nf = async (request: Request) => plainError("PUBLIC_API_NOT_FOUND", request.method);
  return { GET: nf, HEAD: nf, POST: nf, PUT: nf, PATCH: nf, DELETE: nf, OPTIONS: nf };
}

// The handlers of a public document (no key): GET and HEAD with the API's headers, OPTIONS preflight, 405 for the rest.
export function publicDocumentRoute(render: () => string, cacheControl: string) {
  return readOnlyRoute(
    async (request) =>
      new Response(request.method === "HEAD" ? null : render(), {
        headers: baseHeaders(randomUUID(), cacheControl),
      }),
  );
}
