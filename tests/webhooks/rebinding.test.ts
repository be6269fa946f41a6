// Webhooks' address check at connection (issue 25, DNS rebinding): an endpoint whose name resolved to a public
// address when it was registered, and to a loopback one when its delivery connects, is refused at the connection
// (WEBHOOKS_ALLOW_PRIVATE_URLS off): the receiver on loopback gets nothing, the attempt is logged as refused.
import type { LookupFunction } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@/lib/config";
import { WebhookEngine } from "@/lib/webhooks/engine";
import { listDeliveries } from "@/lib/webhooks/endpoints";
import {
  addCategories,
  catalogOf,
  openHookDb,
  registerEndpoint,
  startReceiver,
  waitFor,
  type HookDb,
  type Receiver,
} from "./support";

describe("webhooks refuse a private address at connection", () => {
  let h: HookDb;
  let engine: WebhookEngine;
  let receiver: Receiver;

  beforeAll(async () => {
    h = await openHookDb("pglite");
    receiver = await startReceiver();
  }, 60_000);
  afterAll(async () => {
    await engine?.stop();
    await receiver?.close();
    await h?.close();
  });

  it("logs the attempt as refused_address and sends nothing", async () => {
    // The name now answers the loopback address the receiver listens on.
    const rebound: LookupFunction = ((_host: string, opts: unknown, cb: unknown) => {
      const all = typeof opts === "object" && opts !== null && (opts as { all?: boolean }).all;
      const done = (typeof opts === "function" ? opts : cb) as (...a: unknown[]) => void;
      if (all) done(null, [{ address: "127.0.0.1", family: 4 }]);
      else done(null, "127.0.0.1", 4);
    }) as LookupFunction;
    const config = loadConfig({ PUBLIC_BASE_URL: "http://api.test", PUBLIC_API_PREVIEW: "webhooks" });
    const ctx = catalogOf(h.db);
    engine = new WebhookEngine(
      { config, db: async () => h.db, catalog: async () => ctx },
      { retryLimit: 0, dispatchIntervalMs: 200, lookup: rebound, timeoutMs: 2000 },
    );
    await engine.start();
    const ep = await registerEndpoint(h, `https://hooks.example.test:${receiver.port}/hook`);
    await addCategories(h, 1);
    await waitFor(
      async () => (await listDeliveries(h.db, h.orgId, ep.id, { limit: 5 }))[0]?.state === "failed",
      "the delivery refused",
    );
    const [d] = await listDeliveries(h.db, h.orgId, ep.id, { limit: 5 });
    expect(d!.log).toHaveLength(1);
    expect(d!.log[0]).toMatchObject({ ok: false, status: null, error: "refused_address" });
    expect(receiver.got).toEqual([]);
  }, 30_000);
});
