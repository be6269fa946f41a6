import http from "node:http";
import type { AddressInfo } from "node:net";
import { createApiHost } from "@/lib/server/api-host";
import { publicApi } from "@/lib/public-api/router";
import { setupApi, type ApiFixture } from "./api";

// The public API on a real HTTP server on loopback, as npm start hosts it (node:http, gzip on request, the
// admission's refusals), in front of a freshly seeded demo: for the clients and the commands that talk HTTP.
export interface ApiServer {
  fx: ApiFixture;
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  baseUrl: string;
  close(): Promise<void>;
}

// Starts the server on a seeded database of the given kind with this configuration (setupApi's `env`: preview
// features, rate limit, …); one per test file, as the runtime is one per process.
export async function startApiServer(
  driver: "pglite" | "pg",
  env: Record<string, string> = {},
): Promise<ApiServer> {
  const fx = await setupApi(driver, env);
  const host = createApiHost((request) => publicApi.answer(request), {
    compress: true,
    refusesNow: (method, pathname) => publicApi.refusesNow(method, pathname),
  });
  const server = http.createServer((req, res) => host(req, res, req.url ?? "/"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    fx,
    baseUrl: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await fx.close();
    },
  };
}
