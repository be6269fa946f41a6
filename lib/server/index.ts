// The modules of our own that the production server (scripts/serve.mjs) imports, compiled once at build time into
// .next/pca/server.mjs (scripts/lib/build.ts): the front door and the fast path of /public/v1.
import { createRequire } from "node:module";
import path from "node:path";
import { createFastPath, type Compression, type FastPath } from "./fast-path";
import { loadCompiledRoute, readBuildManifests, routeTable, unsupportedConfig } from "./next-routes";

export { dropRouterVary, frontDoor } from "./front-door";
export type { FastPath } from "./fast-path";

// The fast path of a build (`dir`: the project, its `.next` built), or why it is off. Loads every route module
// under /public/v1 now, after Next.js is prepared (its require hooks in place), as Next.js would on first use.
export function loadFastPath(
  dir: string,
  server: { port: number; hostname: string },
): { fastPath: FastPath; pages: string[] } | { off: string } {
  const distDir = path.join(dir, ".next");
  const manifests = readBuildManifests(distDir);
  const unsupported = unsupportedConfig(manifests.config);
  if (unsupported) return { off: unsupported };
  const table = routeTable(manifests, "/public/v1/", loadCompiledRoute(distDir));
  let compression: Compression | undefined;
  if (table.compress) {
    // Next.js' own compression middleware, so that Vary and Content-Encoding are what `next start` sends.
    const factory = createRequire(path.join(dir, "package.json"))(
      "next/dist/compiled/compression",
    ) as () => Compression;
    compression = factory();
  }
  return { fastPath: createFastPath(table, { ...server, compression }), pages: table.pages };
}
