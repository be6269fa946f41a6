import { lookupKey, type KeyRecord } from "@/lib/keys/cache";
import { isWellFormedApiKey } from "@/lib/keys/format";
import { RateLimiterUnavailableError, retryAfterSeconds, type RateLimitResult } from "@/lib/rate-limit/types";
import type { Runtime } from "@/lib/runtime";
import { clientAddress } from "./client-address";
import { UNAVAILABLE_RETRY_AFTER } from "./error-response";
import { PublicApiError } from "./api-errors";
import type { ApiRequest } from "./api-request";
import { setRateLimitHeaders } from "./headers";
import { apiState } from "./state";

// Resolves the request's key, or throws the 401 (or 429 when this address keeps failing) that fits. `known` is told
// of a key that exists but is refused (revoked or expired): its organization's usage and request log show that 401,
// the first thing its owner looks for when an integrator's calls start failing.
export async function authenticate(
  request: ApiRequest,
  rt: Runtime,
  headers: Headers,
  now: number,
  known?: (record: KeyRecord) => void,
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
  if (record) known?.(record);
  if (lookedUp && rt.config.RATE_LIMIT_ENABLED) await countAuthFailure(request, rt, headers, now);
  throw failure;
}

// Query parameters in which clients commonly put an API key (compared without case).
export const KEY_QUERY_PARAMS = ["api_key", "apikey", "api-key", "key", "access_token", "token"] as const;

// The 401 of a request without a key in its Authorization header. A key sent in the query instead is not read (URLs
// end up in logs, proxies and browser histories): the message names the parameter, never its value, and says where
// the key goes. Same code as any missing key: the API reads keys from one place only, and a client branching on the
// code must do the same thing (send the header); only the text for the person reading it differs.
function keyMissing(request: ApiRequest): PublicApiError {
  const names = [...new URL(request.url).searchParams.keys()];
  const inQuery = names.find((n) => (KEY_QUERY_PARAMS as readonly string[]).includes(n.toLowerCase()));
  if (inQuery === undefined) return new PublicApiError("PUBLIC_API_KEY_MISSING");
  return new PublicApiError("PUBLIC_API_KEY_MISSING", keyInQueryMessage(inQuery));
}

// The message of the 401 to a key sent in the query parameter `name` (the OpenAPI document shows it too).
export function keyInQueryMessage(name: string): string {
  return `Clé API manquante : la clé se transmet dans l'en-tête « Authorization: Bearer <clé> », jamais dans l'URL (paramètre « ${name} » ignoré).`;
}

// The 429 of an address still blocked for failing authentication, else undefined.
function authBlocked(request: ApiRequest, rt: Runtime, now: number): PublicApiError | undefined {
  if (!rt.config.RATE_LIMIT_ENABLED) return undefined;
  const ip = clientAddress(request.headers);
  const until = rt.part(apiState).authBlocks.get(ip);
  if (until === undefined) return undefined;
  if (until <= now) {
    rt.part(apiState).authBlocks.delete(ip);
    return undefined;
  }
  const retryAfter = retryAfterSeconds(until, now);
  return new PublicApiError("PUBLIC_API_RATE_LIMIT_EXCEEDED", undefined, {
    retryAfter,
    headers: { "Retry-After": String(retryAfter) },
  });
}

// Counts a failed authentication against its client address; over the limit, the address is blocked (429).
async function countAuthFailure(
  request: ApiRequest,
  rt: Runtime,
  headers: Headers,
  now: number,
): Promise<void> {
  const ip = clientAddress(request.headers);
  const r = await limit(rt.limiters.authFailure, `ip:${ip}`);
  setRateLimitHeaders(headers, "auth-failures", rt.config.AUTH_FAILURE_WINDOW_SECONDS, r, now);
  if (!r.success) {
    rt.part(apiState).authBlocks.set(ip, r.reset);
    throw rateLimited(r, now);
  }
}

// One request counted by a limiter; a limiter that cannot be reached is a 503 (PUBLIC_API_UNAVAILABLE, Retry-After).
export async function limit(
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

// The 429 of a limiter's refusal, with its Retry-After.
export function rateLimited(r: RateLimitResult, now: number): PublicApiError {
  const retryAfter = retryAfterSeconds(r.reset, now);
  return new PublicApiError("PUBLIC_API_RATE_LIMIT_EXCEEDED", undefined, {
    retryAfter,
    headers: { "Retry-After": String(retryAfter) },
  });
}
