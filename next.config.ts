import type { NextConfig } from "next";

// Next.js configuration: native/WASM database drivers stay outside the bundle.
const nextConfig: NextConfig = {
  poweredByHeader: false,
  reactStrictMode: true,
  serverExternalPackages: ["@electric-sql/pglite", "pg", "@vercel/postgres", "ioredis", "ws"],
  typedRoutes: false,
};

export default nextConfig;
