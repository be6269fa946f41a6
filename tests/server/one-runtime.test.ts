// Issue 22, item 3: one process state for two copies of the code. npm start's server imports the API from its own
// bundle (.next/server-bundle/server.mjs, compiled by esbuild from lib/), while the console runs from Next.js'
// compilation of the same sources; both reach the one runtime on globalThis (lib/runtime.ts, Symbol.for). Here the
// bundle is built and imported beside the sources in one process: a key revoked by the console's code (the sources)
// is refused by the bundle's very next call, and the bundle's answers fill the page cache the sources' runtime holds.
import { mkdirSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addMembership, createUser } from "@/db/users";
import { revokeOrgKey } from "@/lib/console/keys";
import { createApiKey } from "@/lib/keys/store";
import { getRuntime } from "@/lib/runtime";
import { buildServerModules } from "@/scripts/lib/build";
import { setupApi, type ApiFixture } from "../support/api";
import { apiState } from "@/lib/public-api/state";

const ROOT = path.resolve(import.meta.dirname, "../..");
// Inside the project, so that the bundle's npm imports resolve to its node_modules.
const OUT = path.join(ROOT, "node_modules", ".cache", `server-bundle-one-runtime-${process.pid}`);

describe("the API of npm start's bundle and the console of Next.js share one runtime", () => {
  let fx: ApiFixture;
  let server: http.Server;
  let port = 0;

  beforeAll(async () => {
    fx = await setupApi("pglite");
    mkdirSync(OUT, { recursive: true });
    await buildServerModules(ROOT, OUT);
    const bundle = (await import(
      pathToFileURL(path.join(OUT, ".next", "server-bundle", "server.mjs")).href
    )) as {
      publicApiHost(): (req: http.IncomingMessage, res: http.ServerResponse, url: string) => void;
    };
    const host = bundle.publicApiHost();
    server = http.createServer((req, res) => host(req, res, req.url!));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as AddressInfo).port;
  }, 120_000);
  afterAll(async () => {
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    await fx?.close();
    rmSync(OUT, { recursive: true, force: true });
  });

  const get = (p: string, key: string) =>
    fetch(`http://127.0.0.1:${port}${p}`, { headers: { authorization: `Bearer ${key}` } });

  it("a key revoked in the console is refused by the bundle's next call", async () => {
    const created = await createApiKey(fx.db, {
      orgId: fx.acme.orgId,
      name: "one runtime",
      scopes: ["products:read"],
    });
    const { key, id } = created;
    // Known to the key cache (a positive entry, read by the bundle's code) before the revocation.
    expect((await get("/public/v1/products?perPage=1", key)).status).toBe(200);
    const user = await createUser(fx.db, {
      email: "owner-one-runtime@acme.test",
      name: "o",
      password: "x".repeat(16),
    });
    await addMembership(fx.db, { userId: user.id, orgId: fx.acme.orgId, role: "owner" });
    await revokeOrgKey(
      await getRuntime().db(),
      getRuntime().keyCache,
      { id: user.id, email: user.email },
      "acme",
      id,
    );
    const refused = await get("/public/v1/products?perPage=1", key);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { code: string }).code).toBe("PUBLIC_API_KEY_REVOKED");
  });

  it("the bundle's answers fill the runtime's page cache, and its limiter counts in the same window", async () => {
    const before = getRuntime().part(apiState).pages.stats();
    const first = await get("/public/v1/families?perPage=2", fx.acme.full);
    const second = await get("/public/v1/families?perPage=2", fx.acme.full);
    expect(first.headers.get("server-timing")).toBe("page-cache;desc=miss");
    expect(second.headers.get("server-timing")).toBe("page-cache;desc=hit");
    expect(getRuntime().part(apiState).pages.stats().hits).toBe(before.hits + 1);
    const remaining = (r: Response) => Number(r.headers.get("x-ratelimit-remaining"));
    expect(remaining(second)).toBe(remaining(first) - 1);
  });
});
