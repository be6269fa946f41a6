import type { NextConfig } from "next";

// Next.js configuration: native/WASM database drivers stay outside the bundle.
const nextConfig: NextConfig = {
  poweredByHeader: false,
  reactStrictMode: true,
  serverExternalPackages: ["@electric-sql/pglite", "pg", "@vercel/postgres", "ioredis", "ws"],
  typedRoutes: false,
  // The demo video is read from disk by the media route: keep it in traced (standalone / Vercel) output.
  outputFileTracingIncludes: { "/media/[org]/[...file]": ["./db/seed/assets/**"] },
};

export default nextConfig;
