// The entry of the server bundle: the modules of our own that the production server (scripts/serve.mjs) imports,
// compiled once at build time into .next/server-bundle/server.mjs (scripts/lib/build.ts): the front door, and the
// public API's router hosted on node:http.
// The router's state lives in the process's one runtime (lib/runtime.ts), so the API served from this module and
// the console served by Next.js' copy of the same sources share one key cache, page cache and limiter.
import { loadConfig } from "@/lib/config";
import { previewOn } from "@/lib/preview";
import { publicApi } from "@/lib/public-api/router";
import { createApiHost, type ApiHost } from "./api-host";

export { SERVER_TIMEOUTS, frontDoorListener, guardServer } from "./front-server";
export { closeRuntime } from "@/lib/runtime";
export { BASELINE_SECURITY_HEADERS } from "@/lib/portal/csp";
export type { ApiHost } from "./api-host";

// The host of the public API for npm start: gzip as `next start` sends it (next.config leaves `compress` on), and the
// requests the admission refuses answered before they are built.
export function publicApiHost(): ApiHost {
  return createApiHost((request) => publicApi.answer(request), {
    compress: true,
    refusesNow: (method, pathname) => publicApi.refusesNow(method, pathname),
  });
}

// Whether npm start runs the webhooks' delivery worker (lib/server/webhooks-worker.ts) in a process of its own beside
// the server: the `webhooks` preview on, the API on Postgres, WEBHOOKS_DELIVERY=worker (the default). The server then
// runs with WEBHOOKS_DELIVERY=elsewhere. A configuration that does not load is the server's to report: no worker.
export function webhooksWorkerWanted(env: NodeJS.ProcessEnv): boolean {
  let config;
  try {
    config = loadConfig(env);
  } catch {
    return false;
  }
  return (
    previewOn("webhooks", config) && config.dbDriver !== "pglite" && config.WEBHOOKS_DELIVERY === "worker"
  );
}
