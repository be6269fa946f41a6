import { NextResponse, type NextRequest } from "next/server";
import { SECURITY_HEADERS, contentSecurityPolicy, newNonce } from "@/lib/portal/csp";
import { databaseReachable, needsDatabase, unavailablePage } from "@/lib/portal/unavailable";

// Portal pages only: sets a per-request CSP nonce that Next.js applies to its scripts and styles. A page that reads
// the database (the changelog) is answered here with a 503 page and Retry-After while the database is unreachable:
// once Next.js renders it, a failure can only be a 500.
export async function proxy(request: NextRequest): Promise<Response> {
  const nonce = newNonce();
  const csp = contentSecurityPolicy(nonce, {
    dev: process.env.NODE_ENV === "development",
    https: (process.env.PUBLIC_BASE_URL ?? "").startsWith("https://"),
  });
  let response: Response;
  if (needsDatabase(request.nextUrl.pathname) && !(await databaseReachable())) {
    response = unavailablePage(request.nextUrl.pathname, nonce);
  } else {
    const requestHeaders = new Headers(request.headers);
    requestHeaders.set("x-nonce", nonce);
    requestHeaders.set("Content-Security-Policy", csp);
    response = NextResponse.next({ request: { headers: requestHeaders } });
  }
  response.headers.set("Content-Security-Policy", csp);
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) response.headers.set(name, value);
  // The console shows an account's data: never stored by a browser or a shared cache.
  if (/^\/console(\/|$)/.test(request.nextUrl.pathname)) response.headers.set("Cache-Control", "no-store");
  return response;
}

// The API (/public/v1), media files, Next.js assets and feeds never go through the proxy: the API hot path is
// untouched, and the feeds (route handlers) answer their own 503. Each excluded prefix ends at a segment boundary
// (`/mediakit` and `/_next/imagex` are portal 404 pages, which need the CSP; so is `/favicon.ico`: the site's icon
// is a data: URL), and prefetches go through it too: a prefetched page is the same HTML (the sign-in page's CSRF
// token, the reference's demo key). Nor do /api/* (sign-in and console routes, which set their own headers): Next.js
// clones the body of every request the proxy sees, up to 10 MB.
export const config = {
  matcher: [
    "/((?!(?:api|public/v1|media|_next/static|_next/image|changelog/rss\\.xml|changelog/atom\\.xml)(?:/|$)).*)",
  ],
};
