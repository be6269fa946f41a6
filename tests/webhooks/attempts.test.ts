// A worker's batch of attempts (WebhookEngine.attempts, what pg-boss hands a worker) on PGlite and on the Postgres
// server, with real receivers on loopback: one read for the batch, the POSTs side by side, one statement settling
// them all. Each job's result and each delivery's rows are checked for every kind of job one batch can mix: delivered,
// failed with retries left, failed for the last time (its endpoint switched off, audited), an endpoint switched off
// (skipped, nothing sent), a delivery that is gone; and an attempt numbered after those logged before.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WebhookEngine } from "@/lib/webhooks/engine";
import { engineOn, openHookDb, registerEndpoint, startReceiver, type HookDb, type Receiver } from "./support";

describe.each(["pglite", "pg"] as const)("a batch of attempts on %s", (driver) => {
  let h: HookDb;
  let engine: WebhookEngine;
  let ok: Receiver;
  let failing: Receiver;

  beforeAll(async () => {
    h = await openHookDb(driver);
    // Not started: the test hands the batch to the engine as pg-boss would.
    engine = engineOn(h, { retryLimit: 3 });
    ok = await startReceiver();
    failing = await startReceiver();
    failing.answer = (_g, res) => {
      res.statusCode = 500;
      res.end("boom");
    };
  }, 60_000);
  afterAll(async () => {
    await ok?.close();
    await failing?.close();
    await h?.close();
  }, 60_000);

  // A pending delivery of one event to an endpoint.
  async function delivery(endpointId: string): Promise<string> {
    const id = `dlv_${randomBytes(6).toString("hex")}`;
    const eventId = String(Math.floor(Math.random() * 1e9));
    await h.db.query(
      `insert into webhook_deliveries (id, endpoint_id, org_id, event_id, event_type, object_id, op, body)
       values ($1, $2, $3, $4, 'categories', $5, 'upsert', $6)`,
      [id, endpointId, h.orgId, eventId, `cat_${id}`, JSON.stringify({ id: eventId })],
    );
    return id;
  }

  const state = async (id: string) =>
    (
      await h.db.query<{ state: string; attempts: number; last_status: number | null }>(
        `select state, attempts, last_status from webhook_deliveries where id = $1`,
        [id],
      )
    )[0];
  const attemptRows = async (id: string) =>
    h.db.query<{
      attempt: number;
      ok: boolean;
      status: number | null;
      error: string | null;
      body_start: string;
    }>(
      `select attempt, ok, status, error, body_start from webhook_attempts where delivery_id = $1 order by id`,
      [id],
    );

  it("settles every kind of job of one batch, each as its outcome says", async () => {
    const good = await registerEndpoint(h, ok.url);
    const bad = await registerEndpoint(h, failing.url);
    const doomed = await registerEndpoint(h, failing.url);
    const off = await registerEndpoint(h, ok.url);
    await h.db.query(`update webhook_endpoints set enabled = false where id = $1`, [off.id]);
    const delivered = await delivery(good.id);
    const retried = await delivery(bad.id);
    const last = await delivery(doomed.id);
    const skipped = await delivery(off.id);
    // `retried` had one attempt logged before: this one is its second.
    await h.db.query(
      `insert into webhook_attempts (delivery_id, endpoint_id, attempt, ok, status, error, latency_ms)
       values ($1, $2, 1, false, 500, 'status 500', 3)`,
      [retried, bad.id],
    );
    const jobs = [
      { id: "j1", data: { deliveryId: delivered }, retryCount: 0 },
      { id: "j2", data: { deliveryId: retried }, retryCount: 1 },
      { id: "j3", data: { deliveryId: last }, retryCount: 3 },
      { id: "j4", data: { deliveryId: skipped }, retryCount: 0 },
      { id: "j5", data: { deliveryId: "dlv_gone" }, retryCount: 0 },
    ];
    const okBefore = ok.got.length;
    const results = await engine.attempts(jobs);

    expect(results.map((r) => [r.id, r.status])).toEqual([
      ["j1", "completed"],
      ["j2", "failed"], // pg-boss retries it
      ["j3", "completed"], // the schedule is over
      ["j4", "completed"],
      ["j5", "completed"],
    ]);
    expect(results[1]!.output?.message).toMatch(/500/);
    // Sent: the delivered one (to `ok`; the switched-off endpoint's never), the two failing ones (to `failing`).
    expect(ok.got.length - okBefore).toBe(1);
    expect(JSON.parse(ok.got.at(-1)!.body)).toEqual({ id: expect.any(String) });

    expect(await state(delivered)).toEqual({ state: "delivered", attempts: 1, last_status: 200 });
    expect(await attemptRows(delivered)).toEqual([
      { attempt: 1, ok: true, status: 200, error: null, body_start: expect.any(String) },
    ]);
    expect(await state(retried)).toEqual({ state: "pending", attempts: 1, last_status: 500 });
    expect((await attemptRows(retried)).map((a) => [a.attempt, a.ok, a.status, a.body_start])).toEqual([
      [1, false, 500, ""],
      [2, false, 500, "boom"],
    ]);
    expect(await state(last)).toEqual({ state: "failed", attempts: 1, last_status: 500 });
    expect(await state(skipped)).toMatchObject({ state: "skipped", attempts: 0 });
    expect(await attemptRows(skipped)).toEqual([]);
    // The last failure switched its endpoint off, audited; the other failing endpoint stays on.
    const endpoints = await h.db.query<{ id: string; enabled: boolean; disabled_reason: string | null }>(
      `select id, enabled, disabled_reason from webhook_endpoints where id = any($1::text[]) order by id`,
      [[bad.id, doomed.id]],
    );
    expect(Object.fromEntries(endpoints.map((e) => [e.id, [e.enabled, e.disabled_reason]]))).toEqual({
      [bad.id]: [true, null],
      [doomed.id]: [false, "failing"],
    });
    const audit = await h.db.query<{ target_id: string }>(
      `select target_id from audit_events where action = 'webhook_endpoint.disabled'`,
    );
    expect(audit.map((a) => a.target_id)).toEqual([doomed.id]);
  });

  it("fails every job of the batch when the database cannot be read, so that pg-boss tries them again", async () => {
    const broken = engineOn({
      ...h,
      db: {
        ...h.db,
        query: async () => {
          throw new Error("connection refused");
        },
      } as unknown as HookDb["db"],
    });
    const results = await broken.attempts([
      { id: "a", data: { deliveryId: "x" }, retryCount: 0 },
      { id: "b", data: { deliveryId: "y" }, retryCount: 0 },
    ]);
    expect(results).toEqual([
      { id: "a", status: "failed", output: { message: "Error: connection refused" } },
      { id: "b", status: "failed", output: { message: "Error: connection refused" } },
    ]);
  });
});
