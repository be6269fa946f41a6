// The public API's pipeline: the stages every operation with a key goes through, in order (request id, key, rate
// limit, scope, query, body, conditional answer, handler, error mapping), and the context a handler receives. The
// one place that reads the runtime for a request: a handler gets what it uses from its context.
import { randomUUID } from "node:crypto";
import type { Database } from "@/db/client";
import type { CatalogContext } from "@/lib/catalog/context";
import type { CatalogResource, VersionsRead } from "@/lib/catalog/list/count-cache";
import { rowSecureCatalog } from "@/lib/catalog/row-security";
import type { QueryDef } from "@/lib/catalog/list/query-grammar";
import type { Config } from "@/lib/config";
import type { KeyRecord } from "@/lib/keys/cache";
import type { Scope } from "@/lib/keys/scopes";
import { getRuntime } from "@/lib/runtime";
import { authenticate, limit, rateLimited } from "./authenticate";
import { checkIfNoneMatch, conditionalAnswer } from "./conditional";
import { observeRequest } from "@/lib/usage/observe";
import { errorAnswer, toPublicApiError } from "./error-response";
import type { Admission } from "./admission";
import type { ApiRequest } from "./api-request";
import { PublicApiError } from "./api-errors";
import { baseHeaders, setRateLimitHeaders } from "./headers";
import { readJsonBody } from "./json-body";
import type { Reply } from "./reply";
import { sentQuery } from "./params";
import { apiState } from "./state";

// The parameters of a path (`{id}` of /public/v1/products/{id}), decoded.
export type PathParams = Readonly<Record<string, string>>;

// What a handler receives: the key's organization (the only one it may read), the parsed query, and what it reads
// and writes through (the database, the catalog, the configuration, the API's state it needs).
export interface ApiContext<Q> {
  request: ApiRequest;
  requestId: string;
  org: { id: string; slug: string };
  key: KeyRecord;
  query: Q;
  config: Config;
  /** The database (a write's transaction, an export's snapshot). */
  db: Database;
  /** The database and the catalog's caches, for lib/catalog (bound to the key's organization under row security). */
  catalog: CatalogContext;
  /** The exports streaming now, by API key id. */
  exports: Map<string, number>;
  /** A write's parsed JSON body (undefined for reads). */
  body?: unknown;
  /** The path's parameters (`id` of /public/v1/products/{id}); empty for a list. */
  params: PathParams;
  /** The admission whose place the request holds (the router's; undefined when a test calls the pipeline itself):
   * a long poll gives its place back while it waits (Admission.outside). */
  admission?: Admission;
  /** What the conditional stage's version read saw before the handler ran (the versions of what the answer shows and
   * the feed's head, one statement); none for an answer that is not conditional. */
  seen?: VersionsRead;
}

// What a handler returns when the answer is not a plain 200: a status, a body and headers of its own (a 201). A
// ReadableStream body is sent as it is read (an export's lines), not as JSON.
export class ApiAnswer {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

// The scope an operation requires; several: any one of them (channels, readable with any read scope).
export type ScopeRequirement = Scope | readonly Scope[];

// A list handler: reads and returns the response body; everything else is the wrapper's.
export type ApiHandler<Q> = (ctx: ApiContext<Q>) => Promise<unknown>;

// Wraps a handler in the public API pipeline: request id → key → 401 → rate limit → 429 → scope → 403 → query → 400
// → (writes: content type → 415, size → 413, JSON → 400) → (reads: versions of what the answer shows → page cache or
// handler → the answer's ETag → 304).
export function withPublicApi<Q>(
  handler: ApiHandler<Q>,
  opts: {
    /** The scope required; several: any one of them (channels, readable with any read scope). A function: the scope
     * of the resource the path names (an export's). */
    scope: ScopeRequirement | ((params: PathParams) => ScopeRequirement);
    query: QueryDef<Q>;
    /** A write: the request's JSON body is read (415, 413, 400) and handed to the handler. */
    jsonBody?: boolean;
    /** Conditional answers: page cache keyed by the organization's versions of these resources (a list: its
     * resource; an item read whole: everything it shows), the path and the parsed query; ETag of the answer's
     * bytes, 304 on If-None-Match. */
    conditional?: readonly CatalogResource[];
  },
): (request: ApiRequest, params?: PathParams, admission?: Admission) => Promise<Reply> {
  const scopesOf = (r: ScopeRequirement): readonly Scope[] => (typeof r === "string" ? [r] : r);
  const perPath = typeof opts.scope === "function" ? opts.scope : undefined;
  const fixed = typeof opts.scope === "function" ? [] : scopesOf(opts.scope);
  return async (request, params = {}, admission) => {
    const requestId = randomUUID();
    const headers = baseHeaders(requestId);
    const head = request.method === "HEAD";
    const rt = getRuntime();
    const now = Date.now();
    // Usage and the request log (lib/usage): off, this check is all they cost.
    const observing = rt.usage !== undefined || rt.requestLog !== undefined;
    const started = observing ? performance.now() : 0;
    // The key once known, and an error's code: what usage and the log record of the answer.
    let seenKey: KeyRecord | undefined;
    let code: string | null = null;
    const answer = async (): Promise<Reply> => {
      try {
        const key = await authenticate(request, rt, headers, now, (k) => (seenKey = k));
        seenKey = key;
        rt.lastUsed.touch(key.id, now);
        // Every authenticated request counts against its key, whatever its answer (a 403 or a 400 too): a key
        // cannot probe scopes or parameters for free, and its headers always show the quota it spends.
        if (rt.config.RATE_LIMIT_ENABLED) {
          const r = await limit(rt.limiters.perKey, key.id);
          setRateLimitHeaders(headers, "default", rt.config.RATE_LIMIT_WINDOW_SECONDS, r, now);
          if (!r.success) throw rateLimited(r, now);
        }
        const scopes = perPath ? scopesOf(perPath(params)) : fixed;
        if (!scopes.some((s) => key.scopes.has(s))) throw insufficientScope(scopes);
        const url = new URL(request.url);
        const { query, canonical } = rt.part(apiState).queries.parse(sentQuery(request, url), opts.query);
        if (opts.conditional) checkIfNoneMatch(request.headers.get("if-none-match"));
        const input = opts.jsonBody ? await readJsonBody(request) : undefined;
        // Row security (DB_ROW_SECURITY): the catalog's statements of this request read as catalog_reader, bound to
        // the key's organization whatever their own conditions say.
        const db = await rt.db();
        const catalog = rt.config.DB_ROW_SECURITY
          ? rowSecureCatalog(await rt.catalog(), db, key.orgId, rt.config.DB_COUNT_TIMEOUT_MS)
          : await rt.catalog();
        const run = (seen?: VersionsRead) =>
          handler({
            request,
            requestId,
            org: { id: key.orgId, slug: key.orgSlug },
            key,
            query,
            config: rt.config,
            db,
            catalog,
            exports: rt.part(apiState).exports,
            body: input,
            params,
            admission,
            seen,
          });
        if (opts.conditional)
          return await conditionalAnswer({
            request,
            headers,
            rt,
            catalog,
            key,
            resources: opts.conditional,
            path: url.pathname,
            canonicalQuery: canonical,
            run,
          });
        const body = await run();
        if (body instanceof ApiAnswer) {
          for (const [k, v] of Object.entries(body.headers)) headers.set(k, v);
          if (body.body instanceof ReadableStream) {
            // HEAD ends a stream unread (an export's snapshot is released at once).
            if (head) await body.body.cancel();
            return { status: body.status, headers, body: head ? null : body.body };
          }
          return { status: body.status, headers, body: head ? null : JSON.stringify(body.body) };
        }
        return { status: 200, headers, body: head ? null : JSON.stringify(body) };
      } catch (err) {
        const e = toPublicApiError(err, requestId);
        code = e.code;
        return errorAnswer(e, requestId, headers, head);
      }
    };
    const response = await answer();
    if (observing && seenKey)
      observeRequest(rt, {
        key: seenKey,
        requestId,
        request,
        status: response.status,
        code,
        durationMs: performance.now() - started,
        at: now,
      });
    return response;
  };
}

// The 403 of a key without the scope a resource requires (one of them, when several are accepted).
export function insufficientScope(scopes: readonly Scope[]): PublicApiError {
  const named = scopes.map((s) => `« ${s} »`).join(", ");
  return new PublicApiError(
    "PUBLIC_API_INSUFFICIENT_SCOPE",
    scopes.length === 1
      ? `La clé API n'a pas le scope ${named} requis pour cette ressource.`
      : `La clé API n'a aucun des scopes ${named} dont un est requis pour cette ressource.`,
  );
}
