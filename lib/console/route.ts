// The handler of /api/auth/*: the request rebased on the public base URL (Next.js route handlers see localhost
// whatever the Host), then Auth.js. Console answers carry no CORS headers and are never cached.
import { Auth } from "@auth/core";
import { authConfig } from "@/lib/console/auth";
import { getRuntime } from "@/lib/runtime";

// Answers one /api/auth/* request (GET or POST).
export async function handleAuth(request: Request): Promise<Response> {
  const rt = getRuntime();
  const url = new URL(request.url);
  const rebased = new Request(`${rt.config.baseUrl}${url.pathname}${url.search}`, {
    method: request.method,
    headers: request.headers,
    body: request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer(),
  });
  const response = await Auth(rebased, authConfig(rt));
  const headers = new Headers(response.headers);
  for (const name of [...headers.keys()]) if (name.startsWith("access-control-")) headers.delete(name);
  headers.set("Cache-Control", "no-store");
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
