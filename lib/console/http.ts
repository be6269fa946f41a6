// The console's HTTP edge: `consoleRoute(handler)` wraps a route handler under /api/console with the signed-in user
// (401 without one), the cross-site request checks of state-changing methods (Origin equal to the base URL's AND an
// X-CSRF-Token bound to the user's session, else 403), JSON in and out, and one mapping of every thrown error to
// `{ statusCode, error, message, code }`. Every answer is `Cache-Control: no-store`, `nosniff`, and never has CORS
// headers. Web-standard: a test or any server calls the handler with a Request.
import { createHmac, timingSafeEqual } from "node:crypto";
import { BodyTooLargeError, readBoundedBody } from "@/lib/bounded-body";
import type { Database } from "@/db/client";
import type { CatalogContext } from "@/lib/catalog/context";
import type { Config } from "@/lib/config";
import type { KeyCache } from "@/lib/keys/cache";
import { isUnavailableError } from "@/lib/public-api/api-errors";
import { getRuntime, type Runtime } from "@/lib/runtime";
import { authSecret } from "./auth-secret";
import { ConsoleError } from "./console-errors";
import { getConsoleUser, type ConsoleUser } from "./session";
import { consoleState, signInAttempts, type ConsoleState, type SignInAttempts } from "./state";
import type { WebhookQueue } from "./webhooks";

// The header that carries the console's CSRF token on state-changing requests.
export const CSRF_HEADER = "X-CSRF-Token";

// The largest body the console's routes and /api/auth/* read: a key's name and scopes, a changelog entry, a
// sign-in form are a few KB; a larger one is refused before any work (413).
export const CONSOLE_BODY_LIMIT = 64 * 1024;

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
const SESSION_COOKIE = /^(?:__Secure-)?authjs\.session-token(?:\.(\d+))?$/;

// The session cookie's value in a Cookie header (Auth.js splits a large one into .0, .1, …), or "".
export function sessionCookieValue(headers: Headers): string {
  const parts: Array<[number, string]> = [];
  for (const pair of (headers.get("cookie") ?? "").split(";")) {
    const eq = pair.indexOf("=");
    if (eq < 0) continue;
    const m = SESSION_COOKIE.exec(pair.slice(0, eq).trim());
    if (m) parts.push([m[1] === undefined ? -1 : Number(m[1]), pair.slice(eq + 1).trim()]);
  }
  return parts
    .sort((a, b) => a[0] - b[0])
    .map(([, v]) => v)
    .join("");
}

// The CSRF token of a user's session: an HMAC (the sessions' secret) of the user id and the session cookie, so a
// token is worth nothing without that very session. Pages embed it; the client sends it back in X-CSRF-Token.
export function csrfTokenFor(
  config: Pick<Config, "AUTH_SECRET" | "DATA_DIR" | "dbDriver">,
  userId: string,
  requestHeaders: Headers,
): string {
  return createHmac("sha256", authSecret(config))
    .update(`console-csrf\0${userId}\0${sessionCookieValue(requestHeaders)}`)
    .digest("base64url");
}

// The origin a console request was made from: its Origin header when that names the very host the request was sent
// to (the Host header: the browser used that address, 127.0.0.1 or a LAN name as well as PUBLIC_BASE_URL's), else
// the public base URL's (a request without Origin, or through a proxy that rewrites the Host). Sign-in, its
// redirects and the console's Origin check follow it, so the console works from every address of the server.
export function consoleOrigin(config: Pick<Config, "baseUrl">, headers: Headers): string {
  const origin = headers.get("origin");
  const host = headers.get("host");
  if (origin && host) {
    try {
      const url = new URL(origin);
      if ((url.protocol === "http:" || url.protocol === "https:") && url.host === host.toLowerCase())
        return url.origin;
    } catch {
      // not a URL: the base URL's
    }
  }
  return new URL(config.baseUrl).origin;
}

// Refuses a state-changing request that is not from the console itself: its Origin must be the console's (the base
// URL's, or the very address the request was sent to) and its X-CSRF-Token the session's token (SameSite=Lax
// cookies alone leave same-site subdomains and old browsers open).
export function checkCsrf(config: Config, user: ConsoleUser, request: Request): void {
  checkOrigin(config, request);
  const sent = Buffer.from(request.headers.get(CSRF_HEADER) ?? "");
  const expected = Buffer.from(csrfTokenFor(config, user.id, request.headers));
  if (sent.length !== expected.length || !timingSafeEqual(sent, expected))
    throw new ConsoleError("CONSOLE_CSRF");
}

// Refuses a request whose Origin is not the console's (the base URL's, or the very address it was sent to).
export function checkOrigin(config: Pick<Config, "baseUrl">, request: Request): void {
  const origin = request.headers.get("origin");
  if (!origin || origin !== consoleOrigin(config, request.headers)) {
    throw new ConsoleError("CONSOLE_CSRF", "Cross-origin request refused: the Origin is not the console's.");
  }
}

// What the console's routes use of the process: the database and the configuration, the console's state and its
// counters of failed attempts, the key cache (a rolled or revoked key is forgotten at once), the webhooks' engine
// and the catalog's context (a replay reads the feed's bounds).
export interface ConsoleServices {
  db: Database;
  config: Config;
  state: ConsoleState;
  attempts: SignInAttempts;
  keyCache: KeyCache;
  webhooks: WebhookQueue;
  catalog(): Promise<CatalogContext>;
}

// A runtime's console services, its database open.
export async function consoleServices(rt: Runtime): Promise<ConsoleServices> {
  return {
    db: await rt.db(),
    config: rt.config,
    state: rt.part(consoleState),
    attempts: signInAttempts(rt),
    keyCache: rt.keyCache,
    webhooks: rt.background.webhooks,
    catalog: () => rt.catalog(),
  };
}

// What a console handler receives: the services, the signed-in user, the route's parameters, the body, the request.
export interface ConsoleContext<P> extends ConsoleServices {
  user: ConsoleUser;
  params: P;
  /** The parsed JSON body of a state-changing request ({} when empty). */
  body: unknown;
  request: Request;
}

// Wraps a console handler as a Next.js route handler: the handler returns the JSON body of a success, or a Response
// of its own (a download), which gets the console's headers.
export function consoleRoute<P extends Record<string, string> = Record<string, never>>(
  handler: (c: ConsoleContext<P>) => Promise<unknown>,
  opts: { status?: number } = {},
): (request: Request, context: { params: Promise<P> }) => Promise<Response> {
  return async (request, context) => {
    try {
      const rt = getRuntime();
      // The body first, bounded: a too large one is a 413 before the session is even read.
      const text = SAFE_METHODS.has(request.method) ? null : await readConsoleBody(request);
      const user = await getConsoleUser(request.headers, rt.config, () => rt.db());
      if (!user) throw new ConsoleError("CONSOLE_UNAUTHENTICATED");
      let body: unknown = {};
      if (text !== null) {
        checkCsrf(rt.config, user, request);
        body = parseJson(text.toString("utf8"));
      }
      const params = await context.params;
      const out = await handler({ ...(await consoleServices(rt)), user, params, body, request });
      const res = out instanceof Response ? out : json(opts.status ?? 200, out);
      if (out instanceof Response) {
        res.headers.set("Cache-Control", "no-store");
        res.headers.set("X-Content-Type-Options", "nosniff");
      }
      return res;
    } catch (err) {
      return errorResponse(err);
    }
  };
}

// Wraps a console handler that needs no session (accepting an invitation with a new account, the password reset
// page's form: the link's secret is the credential): the same body bound, JSON and error mapping, and the same Origin check of a state-changing
// request (there is no session to bind a CSRF token to).
export function openConsoleRoute<P extends Record<string, string> = Record<string, never>>(
  handler: (c: Omit<ConsoleContext<P>, "user">) => Promise<unknown>,
  opts: { status?: number } = {},
): (request: Request, context: { params: Promise<P> }) => Promise<Response> {
  return async (request, context) => {
    try {
      const rt = getRuntime();
      const text = SAFE_METHODS.has(request.method) ? null : await readConsoleBody(request);
      let body: unknown = {};
      if (text !== null) {
        checkOrigin(rt.config, request);
        body = parseJson(text.toString("utf8"));
      }
      const params = await context.params;
      return json(
        opts.status ?? 200,
        await handler({ ...(await consoleServices(rt)), params, body, request }),
      );
    } catch (err) {
      return errorResponse(err);
    }
  };
}

// Maps anything thrown to the console's error body; internal detail is logged, never sent.
export function errorResponse(err: unknown): Response {
  let e: ConsoleError;
  if (err instanceof ConsoleError) e = err;
  else if (isUnavailableError(err)) {
    console.error("[console] back end unavailable:", (err as Error).message);
    e = new ConsoleError("CONSOLE_UNAVAILABLE");
  } else {
    console.error("[console] internal error:", err);
    e = new ConsoleError("CONSOLE_INTERNAL_ERROR");
  }
  const res = json(e.status, e.body());
  if (e.status === 503) res.headers.set("Retry-After", "5");
  return res;
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}

// A console request's body, at most CONSOLE_BODY_LIMIT bytes (413 from its Content-Length or while reading).
export async function readConsoleBody(request: Request): Promise<Buffer> {
  try {
    return await readBoundedBody(request, CONSOLE_BODY_LIMIT);
  } catch (err) {
    if (err instanceof BodyTooLargeError) throw new ConsoleError("CONSOLE_PAYLOAD_TOO_LARGE");
    throw err;
  }
}

function parseJson(text: string): unknown {
  if (!text.trim()) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ConsoleError("CONSOLE_INVALID", "The body is not valid JSON.");
  }
}
