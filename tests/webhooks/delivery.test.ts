// Webhooks' delivery (issue 25) on PGlite and on the Postgres server, with real receivers on loopback: a healthy one
// (signed as Standard Webhooks says, the feed's cursor as webhook-id, the feed's event as the body), one answering 500
// then 200 (the retry delivers), one that hangs (timeout, then a retry), one down for a while (its backlog delivered,
// in cursor order per object), and one that always fails (its endpoint switched off, with an audit entry).
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { verifyWebhook } from "@/lib/webhooks/signing";
import type { WebhookEngine } from "@/lib/webhooks/engine";
import { listDeliveries } from "@/lib/webhooks/endpoints";
import {
  addCategories,
  engineOn,
  openHookDb,
  registerEndpoint,
  renameCategory,
  startReceiver,
  waitFor,
  type HookDb,
  type Receiver,
} from "./support";

describe.each(["pglite", "pg"] as const)("webhook delivery on %s", (driver) => {
  let h: HookDb;
  let engine: WebhookEngine;
  const receivers: Receiver[] = [];
  const receiver = async (port?: number) => {
    const r = await startReceiver(port);
    receivers.push(r);
    return r;
  };

  beforeAll(async () => {
    h = await openHookDb(driver);
    engine = engineOn(h);
    await engine.start();
  }, 60_000);
  afterEach(async () => {
    // Endpoints of one test do not receive the next one's events.
    await h.db.query(`update webhook_endpoints set enabled = false`);
  });
  afterAll(async () => {
    await engine?.stop();
    for (const r of receivers) await r.close().catch(() => undefined);
    await h?.close();
  }, 60_000);

  it("POSTs each event once to a healthy endpoint, signed, the cursor as its id, the feed's event as its body", async () => {
    const r = await receiver();
    const ep = await registerEndpoint(h, r.url);
    const ids = await addCategories(h, 3);
    await waitFor(() => r.got.length >= 3, "3 deliveries");
    const bodies = r.got.map(
      (g) => JSON.parse(g.body) as { cursor: string; type: string; id: string; op: string },
    );
    expect(bodies.map((b) => b.id).sort()).toEqual([...ids].sort());
    for (const [i, g] of r.got.entries()) {
      const b = bodies[i]!;
      expect(Object.keys(b).sort()).toEqual(["at", "cursor", "id", "item", "op", "type"]);
      expect(b).toMatchObject({ type: "categories", op: "upsert" });
      expect(g.headers["webhook-id"]).toBe(b.cursor);
      expect(g.headers["content-type"]).toBe("application/json");
      const sig = {
        id: String(g.headers["webhook-id"]),
        timestamp: String(g.headers["webhook-timestamp"]),
        signature: String(g.headers["webhook-signature"]),
      };
      expect(verifyWebhook(ep.secret, sig, g.body)).toBe(true);
      expect(verifyWebhook(ep.secret, sig, g.body + " ")).toBe(false);
    }
    await new Promise((res) => setTimeout(res, 500));
    expect(r.got).toHaveLength(3);
    const log = await listDeliveries(h.db, h.orgId, ep.id, { limit: 50 }, { jobs: true });
    expect(log.map((d) => d.state)).toEqual(["delivered", "delivered", "delivered"]);
    expect(
      log.every((d) => d.log.length === 1 && d.log[0]!.status === 200 && d.log[0]!.bodyStart === "ok"),
    ).toBe(true);
  });

  it("a commit of an organization without an enabled endpoint wakes no dispatch; one enabled later gets its events", async () => {
    // After the previous test every endpoint is off; the next tick reads that.
    await new Promise((res) => setTimeout(res, 500));
    const before = engine.passes;
    const t0 = Date.now();
    for (let i = 0; i < 20; i++) await addCategories(h, 1, "quiet");
    await new Promise((res) => setTimeout(res, 100));
    const ticks = Math.ceil((Date.now() - t0) / 200) + 1;
    // The timer's passes only (200 ms each), not one per commit.
    expect(engine.passes - before).toBeLessThanOrEqual(ticks);
    const r = await receiver();
    await registerEndpoint(h, r.url);
    const ids = await addCategories(h, 2, "loud");
    await waitFor(() => r.got.length >= 2, "2 deliveries once an endpoint is enabled");
    expect(r.got.map((g) => (JSON.parse(g.body) as { id: string }).id).sort()).toEqual([...ids].sort());
  });

  it("runs one dispatch pass per dispatchGapMs however many commits wake it, and delivers each of them", async () => {
    const r = await receiver();
    await registerEndpoint(h, r.url);
    await new Promise((res) => setTimeout(res, 300)); // the tick knows the endpoint
    // Wakes as close as the notifications of commits at 200/s, for 400 ms.
    const before = engine.passes;
    const t0 = Date.now();
    while (Date.now() - t0 < 400) {
      engine.wake();
      await new Promise((res) => setTimeout(res, 5));
    }
    const elapsed = Date.now() - t0;
    // One pass per gap (100 ms), plus the timer's ticks (200 ms) and one left over: 9 in 400 ms, where a pass per
    // wake ran 15 and 27 (checked without the gap, pglite and pg).
    expect(engine.passes - before).toBeLessThanOrEqual(
      Math.ceil(elapsed / engine.opts.dispatchGapMs) + Math.ceil(elapsed / 200) + 1,
    );
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push(...(await addCategories(h, 1, "close")));
    // At least once: an attempt that timed out on a busy machine may come twice; every event comes.
    const got = () => new Set(r.got.map((g) => (JSON.parse(g.body) as { id: string }).id));
    await waitFor(() => ids.every((id) => got().has(id)), "the 10 events delivered");
    expect([...got()].sort()).toEqual([...ids].sort());
  });

  it("retries an endpoint that answered 500, and the retry delivers", async () => {
    const r = await receiver();
    let n = 0;
    r.answer = (_g, res) => {
      n++;
      res.statusCode = n === 1 ? 500 : 200;
      res.end(n === 1 ? "boom" : "fine");
    };
    const ep = await registerEndpoint(h, r.url);
    await addCategories(h, 1);
    await waitFor(() => r.got.length >= 2, "a retry", 20_000);
    expect(r.got[0]!.headers["webhook-id"]).toBe(r.got[1]!.headers["webhook-id"]);
    await waitFor(
      async () => (await listDeliveries(h.db, h.orgId, ep.id, { limit: 5 }))[0]?.state === "delivered",
      "delivered",
    );
    const [d] = await listDeliveries(h.db, h.orgId, ep.id, { limit: 5 });
    expect(d!.log.map((a) => [a.attempt, a.status, a.bodyStart])).toEqual([
      [2, 200, "fine"],
      [1, 500, "boom"],
    ]);
  });

  it("gives up on an endpoint that hangs after the timeout, and retries", async () => {
    const r = await receiver();
    let n = 0;
    r.answer = (_g, res) => {
      n++;
      if (n > 1) res.end("late but fine"); // the first request is never answered
    };
    const ep = await registerEndpoint(h, r.url);
    await addCategories(h, 1);
    await waitFor(() => r.got.length >= 2, "a retry after the timeout", 20_000);
    await waitFor(
      async () => (await listDeliveries(h.db, h.orgId, ep.id, { limit: 5 }))[0]?.state === "delivered",
      "delivered",
    );
    const [d] = await listDeliveries(h.db, h.orgId, ep.id, { limit: 5 });
    expect(d!.log[1]).toMatchObject({ attempt: 1, ok: false, error: "timeout" });
    expect(d!.log[1]!.latencyMs).toBeGreaterThanOrEqual(1900);
  });

  it("delivers the backlog of an endpoint that was down, in cursor order per object", async () => {
    const r = await receiver();
    const port = r.port;
    const ep = await registerEndpoint(h, r.url);
    await r.close();
    const ids = await addCategories(h, 3, "b");
    for (let round = 1; round <= 3; round++)
      for (const id of ids) await renameCategory(h, id, `round ${round} ${id}`);
    // Down for a while: the first attempts fail (connection refused), then it comes back on the same port.
    await waitFor(
      async () =>
        (await h.db.query(`select 1 from webhook_attempts where endpoint_id = $1 and not ok`, [ep.id]))
          .length >= 3,
      "failed attempts while down",
    );
    const back = await receiver(port);
    // The feed serves an object as it is when read: its last event carries the last label. Every delivery done.
    await waitFor(
      () =>
        ids.every((id) =>
          back.got.some(
            (g) => (JSON.parse(g.body) as { item?: { label?: string } }).item?.label === `round 3 ${id}`,
          ),
        ),
      "each object's last state delivered",
      30_000,
    );
    await waitFor(
      async () =>
        (
          await h.db.query(
            `select 1 from webhook_deliveries where endpoint_id = $1 and state <> 'delivered'`,
            [ep.id],
          )
        ).length === 0,
      "no delivery left pending",
    );
    const events = back.got.map((g) => JSON.parse(g.body) as { cursor: string; id: string });
    for (const id of ids) {
      const cursors = events.filter((e) => e.id === id).map((e) => BigInt(e.cursor));
      expect(cursors.length).toBeGreaterThanOrEqual(1);
      // In cursor order per object (a retry of one may repeat it, never go back before it).
      const distinct = cursors.filter((c, i) => i === 0 || c !== cursors[i - 1]);
      expect([...distinct].sort((a, b) => (a < b ? -1 : 1))).toEqual(distinct);
    }
  }, 60_000);

  it("switches off an endpoint whose delivery failed every attempt, with an audit entry", async () => {
    const r = await receiver();
    r.answer = (_g, res) => {
      res.statusCode = 503;
      res.end("down");
    };
    const ep = await registerEndpoint(h, r.url);
    await addCategories(h, 1);
    await waitFor(
      async () =>
        (await h.db.query(`select 1 from webhook_endpoints where id = $1 and not enabled`, [ep.id]))
          .length === 1,
      "the endpoint switched off",
      30_000,
    );
    expect(r.got).toHaveLength(4); // the first attempt and retryLimit (3) retries
    const [e] = await h.db.query<{ disabled_reason: string }>(
      `select disabled_reason from webhook_endpoints where id = $1`,
      [ep.id],
    );
    expect(e!.disabled_reason).toBe("failing");
    const audit = await h.db.query<{ action: string; actor_email: string }>(
      `select action, actor_email from audit_events where target_id = $1`,
      [ep.id],
    );
    expect(audit).toEqual([{ action: "webhook_endpoint.disabled", actor_email: "system" }]);
    const [d] = await listDeliveries(h.db, h.orgId, ep.id, { limit: 5 });
    expect(d).toMatchObject({ state: "failed", attempts: 4, lastStatus: 503 });
  }, 40_000);
});
