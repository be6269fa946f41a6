// The handler of /api/auth/*: the body bounded (CONSOLE_BODY_LIMIT, else 413 before any work), the request rebased
// on the origin the browser used (consoleOrigin: Next.js route handlers see localhost whatever the Host), so that
// Auth.js redirects back to that address and sign-in works from any address of the server; then Auth.js. Console
// answers carry no CORS headers and are never cached.
import { Auth } from "@auth/core";
import { authConfig } from "@/lib/console/auth";
import { consoleOrigin, errorResponse, readConsoleBody } from "@/lib/console/http";
import { getRuntime } from "@/lib/runtime";
import { signInAttempts } from "@/lib/console/state";

// Answers one /api/auth/* request (GET or POST).
export async function handleAuth(request: Request): Promise<Response> {
  let body: Buffer | undefined;
  if (request.method !== "GET" && request.method !== "HEAD") {
    try {
      body = await readConsoleBody(request);
    } catch (err) {
      return errorResponse(err);
    }
  }
  const rt = getRuntime();
  const url = new URL(request.url);
  const origin = consoleOrigin(rt.config, request.headers);
  const base = origin === new URL(rt.config.baseUrl).origin ? rt.config.baseUrl : origin;
  const rebased = new Request(`${base}${url.pathname}${url.search}`, {
    method: request.method,
    headers: request.headers,
    body: body && new Uint8Array(body),
  });
  const response = await Auth(
    rebased,
    authConfig({ config: rt.config, db: () => rt.db(), attempts: signInAttempts(rt) }, rebased.headers),
  );
  const headers = new Headers(response.headers);
  for (const name of [...headers.keys()]) if (name.startsWith("access-control-")) headers.delete(name);
  headers.set("Cache-Control", "no-store");
  // What the proxy sets on pages (it does not see /api/*): Auth.js' own pages are never sniffed nor framed.
  headers.set("X-Content-Type-Options", "nosniff");
  headers.set("X-Frame-Options", "DENY");
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
