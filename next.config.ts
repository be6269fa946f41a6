import type { NextConfig } from "next";
import { BASELINE_SECURITY_HEADERS } from "./lib/portal/csp";

// Next.js configuration: native/WASM database drivers stay outside the bundle; security headers on every answer
// outside /public/.
const nextConfig: NextConfig = {
  poweredByHeader: false,
  reactStrictMode: true,
  serverExternalPackages: ["@electric-sql/pglite", "pg", "@vercel/postgres", "ioredis", "ws"],
  typedRoutes: false,
  // The demo video is read from disk by the media route: keep it in traced (standalone / Vercel) output.
  outputFileTracingIncludes: { "/media/[org]/[...file]": ["./db/seed/assets/**"] },
  // Whatever the proxy does not see (static files, the feeds, media, a path its matcher misses) is still never
  // sniffed nor framed; the proxy's nonce CSP replaces the baseline on pages. Not under /public/: the API sets its
  // own headers, and a next.config rule there would keep the production server's fast path off those paths.
  async headers() {
    return [
      {
        source: "/((?!public(?:/|$)).*)",
        headers: Object.entries(BASELINE_SECURITY_HEADERS).map(([key, value]) => ({ key, value })),
      },
    ];
  },
};

export default nextConfig;
