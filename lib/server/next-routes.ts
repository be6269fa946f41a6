// The production server's table of the API's routes, read from the Next.js build, so that no second list exists:
// which route answers a path comes from Next.js' own routing manifest (`routes-manifest.json`: static routes, then
// dynamic ones in Next.js' order of precedence, with its regular expressions), the compiled module of each route
// from `app-paths-manifest.json`, and its handlers from that module's `routeModule.userland`: the very module
// instance Next.js loads for the route (Node's module cache, one turbopack runtime), not a second bundle of it.
// A path is left to Next.js whenever anything but the route module would act on it under Next.js: the proxy
// (middleware) matches it, a header, redirect or rewrite rule of next.config applies, or the route is not a plain
// dynamic handler (`dynamic = "force-dynamic"`, Node.js runtime).
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

// What Next.js passes a route handler besides the request.
export interface RouteContext {
  params: Promise<Record<string, string | string[] | undefined>>;
}
export type RouteHandler = (request: Request, context: RouteContext) => Promise<Response> | Response;

// The methods a route module may export.
export const ROUTE_METHODS = ["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"] as const;

// One route of the table: its page pattern (`/public/v1/[...path]`), its handlers, its dynamic segments.
export interface Route {
  page: string;
  handlers: Partial<Record<string, RouteHandler>>;
}

export interface RouteMatch {
  route: Route;
  params: Record<string, string | string[] | undefined>;
}

// The parts of the build's manifests the table reads (the JSON files, as Next.js writes them).
export interface NextBuildManifests {
  routes: {
    basePath?: string;
    staticRoutes: { page: string; regex: string }[];
    dynamicRoutes: { page: string; regex: string }[];
    redirects?: { regex: string; internal?: boolean }[];
    headers?: { regex: string }[];
    rewrites?:
      | { regex: string }[]
      | {
          beforeFiles?: { regex: string }[];
          afterFiles?: { regex: string }[];
          fallback?: { regex: string }[];
        };
    /** The router headers Next.js lists in Vary; not copied: the API's requests are stripped of them. */
    rsc?: { varyHeader?: string };
  };
  /** Page (`/public/v1/products/route`) → compiled module, relative to `.next/server`. */
  appPaths: Record<string, string>;
  /** Regular expressions of the proxy's (middleware's) matchers. */
  middlewareMatchers: string[];
  config: {
    compress?: boolean;
    basePath?: string;
    i18n?: unknown;
    trailingSlash?: boolean;
    skipTrailingSlashRedirect?: boolean;
    experimental?: { trustHostHeader?: boolean };
  };
}

// The table: what answers a path under the prefix, and what Next.js adds around every app route's answer.
export interface RouteTable {
  /** The route that Next.js would call for this pathname (dot segments resolved, not decoded), else undefined. */
  match(pathname: string): RouteMatch | undefined;
  /** next.config's `compress` (gzip as Next.js does it). */
  compress: boolean;
  /** The patterns the table answers, for the start-up line. */
  pages: string[];
}

// Why a build cannot be served by the fast path at all (a configuration that changes every URL), else null.
export function unsupportedConfig(config: NextBuildManifests["config"]): string | null {
  if (config.basePath) return "next.config sets basePath";
  if (config.i18n) return "next.config sets i18n";
  if (config.trailingSlash) return "next.config sets trailingSlash";
  if (config.experimental?.trustHostHeader) return "next.config sets experimental.trustHostHeader";
  return null;
}

// Reads the manifests of a Next.js build (`distDir`: the `.next` folder).
export function readBuildManifests(distDir: string): NextBuildManifests {
  const json = (file: string) => JSON.parse(readFileSync(path.join(distDir, file), "utf8"));
  const middlewareMatchers: string[] = [];
  for (const file of ["server/middleware-manifest.json", "server/functions-config-manifest.json"]) {
    if (!existsSync(path.join(distDir, file))) continue;
    const m = json(file) as {
      middleware?: Record<string, { matchers?: { regexp: string }[] }>;
      functions?: Record<string, { matchers?: { regexp: string }[] }>;
    };
    for (const [name, fn] of Object.entries({ ...m.middleware, ...m.functions })) {
      if (file.includes("functions-config") && name !== "/_middleware") continue;
      for (const matcher of fn.matchers ?? []) middlewareMatchers.push(matcher.regexp);
    }
  }
  return {
    routes: json("routes-manifest.json"),
    appPaths: json("server/app-paths-manifest.json"),
    middlewareMatchers,
    config: (json("required-server-files.json") as { config: NextBuildManifests["config"] }).config,
  };
}

// The dynamic segments of a page pattern, in order: `[id]`, `[...path]`, `[[...path]]`.
function dynamicSegments(page: string): { name: string; repeat: boolean; optional: boolean }[] {
  const out = [];
  for (const segment of page.split("/")) {
    const m = /^\[(\[)?(\.\.\.)?([^\]]+)\]?\]$/.exec(segment);
    if (m) out.push({ name: m[3]!, repeat: Boolean(m[2]), optional: Boolean(m[1]) });
  }
  return out;
}

// A parameter's value as Next.js decodes it (the front door let only decodable paths through).
function decodeParam(value: string | undefined, repeat: boolean): string | string[] | undefined {
  if (value === undefined) return undefined;
  return repeat ? value.split("/").map((v) => decodeURIComponent(v)) : decodeURIComponent(value);
}

// Loads a route module the way Next.js does (require of the compiled file) and returns its handlers, or the reason
// it is left to Next.js.
export type LoadRoute = (file: string) => { handlers: Route["handlers"] } | { skip: string };

export function loadCompiledRoute(distDir: string): LoadRoute {
  const require = createRequire(path.join(distDir, "server", "noop.js"));
  return (file) => {
    const mod = require(path.join(distDir, "server", file)) as {
      routeModule?: { userland?: Record<string, unknown> };
    };
    const userland = mod.routeModule?.userland;
    if (!userland) throw new Error(`${file}: no routeModule.userland (is this build from another Next.js?)`);
    if (userland.dynamic !== "force-dynamic") return { skip: `dynamic is ${String(userland.dynamic)}` };
    if (userland.runtime === "edge") return { skip: "edge runtime" };
    const handlers: Route["handlers"] = {};
    for (const method of ROUTE_METHODS) {
      if (typeof userland[method] === "function") handlers[method] = userland[method] as RouteHandler;
    }
    return { handlers };
  };
}

// Builds the table of the routes whose pattern lies under `prefix` (e.g. "/public/v1/"), from the manifests;
// `load` gives each route's handlers (loadCompiledRoute for a build).
export function routeTable(manifests: NextBuildManifests, prefix: string, load: LoadRoute): RouteTable {
  const { routes, appPaths } = manifests;
  const skipped: string[] = [];
  const ours = new Map<string, Route>();
  const routeFor = (page: string): Route | undefined => {
    if (!page.startsWith(prefix)) return undefined;
    if (ours.has(page)) return ours.get(page);
    const file = appPaths[`${page}/route`];
    if (!file) return undefined; // a page, not a route handler
    const loaded = load(file);
    if ("skip" in loaded) {
      skipped.push(`${page} (${loaded.skip})`);
      return undefined;
    }
    const route = { page, handlers: loaded.handlers };
    ours.set(page, route);
    return route;
  };

  // Static routes: an exact pathname (the front door removed the trailing slash Next.js' regex allows).
  const statics = new Map<string, Route | null>();
  for (const r of routes.staticRoutes) statics.set(r.page, routeFor(r.page) ?? null);
  // Dynamic routes, in Next.js' order; the first that matches wins, ours or not.
  const dynamics = routes.dynamicRoutes.map((r) => ({
    regex: new RegExp(r.regex),
    route: routeFor(r.page),
    segments: dynamicSegments(r.page),
  }));

  // Rules that act on a path before or instead of the route: the proxy, next.config's headers, redirects and
  // rewrites (Next.js' own trailing-slash redirect aside: the front door settles slashes).
  const rw = routes.rewrites;
  const rewrites = Array.isArray(rw)
    ? rw
    : [...(rw?.beforeFiles ?? []), ...(rw?.afterFiles ?? []), ...(rw?.fallback ?? [])];
  const foreign = [
    ...manifests.middlewareMatchers,
    ...(routes.headers ?? []).map((h) => h.regex),
    ...(routes.redirects ?? []).filter((r) => !r.internal).map((r) => r.regex),
    ...rewrites.map((r) => r.regex),
  ].map((source) => new RegExp(source));

  const match = (pathname: string): RouteMatch | undefined => {
    if (!pathname.startsWith(prefix)) return undefined;
    for (const re of foreign) if (re.test(pathname)) return undefined;
    const exact = statics.get(pathname);
    if (exact !== undefined) return exact ? { route: exact, params: {} } : undefined;
    for (const d of dynamics) {
      const m = d.regex.exec(pathname);
      if (!m) continue;
      if (!d.route) return undefined;
      const params: RouteMatch["params"] = {};
      d.segments.forEach((s, i) => {
        const value = decodeParam(m[i + 1], s.repeat);
        if (value !== undefined) params[s.name] = value;
      });
      return { route: d.route, params };
    }
    return undefined;
  };

  if (ours.size === 0) {
    throw new Error(
      `no route handler under ${prefix} in the build${skipped.length ? ` (left to Next.js: ${skipped.join(", ")})` : ""}`,
    );
  }
  return {
    match,
    compress: manifests.config.compress !== false,
    pages: [...ours.keys()],
  };
}
