// A worker's batch of attempts (WebhookEngine.attempts, the deliveries a worker claimed) on PGlite and on the
// Postgres server, with real receivers on loopback: one read for the batch, the POSTs side by side, one statement
// settling them all. Each delivery's result and rows are checked for every kind one batch can mix: delivered, failed
// with retries left (due again within its backoff's window), failed for the last time (its endpoint switched off,
// audited), an endpoint switched off (skipped, nothing sent), a delivery that is gone, one whose claim was taken over
// by another worker (its settlement moves nothing); and an attempt numbered after those logged before.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WebhookEngine } from "@/lib/webhooks/engine";
import { claimDeliveries } from "@/lib/webhooks/queue";
import { engineOn, openHookDb, registerEndpoint, startReceiver, type HookDb, type Receiver } from "./support";

describe.each(["pglite", "pg"] as const)("a batch of attempts on %s", (driver) => {
  let h: HookDb;
  let engine: WebhookEngine;
  let ok: Receiver;
  let failing: Receiver;

  beforeAll(async () => {
    h = await openHookDb(driver);
    // Not started: the test claims the batch and hands it to the engine as its worker would.
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

  // A queued delivery of one event to an endpoint, `tries` attempts claimed before.
  async function delivery(endpointId: string, tries = 0): Promise<string> {
    const id = `dlv_${randomBytes(6).toString("hex")}`;
    const eventId = String(Math.floor(Math.random() * 1e9));
    await h.db.query(
      `insert into webhook_deliveries (id, endpoint_id, org_id, event_id, event_type, object_id, op, body,
                                       ordering_key, tries)
       values ($1, $2, $3, $4, 'categories', $5, 'upsert', $6, $1, $7)`,
      [id, endpointId, h.orgId, eventId, `cat_${id}`, JSON.stringify({ id: eventId }), tries],
    );
    return id;
  }

  const state = async (id: string) =>
    (
      await h.db.query<{ state: string; attempts: number; last_status: number | null }>(
        `select state, attempts, last_status from webhook_deliveries where id = $1 and leased_until is null`,
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
    const retried = await delivery(bad.id, 1);
    const last = await delivery(doomed.id, 3);
    const skipped = await delivery(off.id);
    const takenOver = await delivery(bad.id);
    // `retried` had one attempt logged before: this one is its second.
    await h.db.query(
      `insert into webhook_attempts (delivery_id, endpoint_id, attempt, ok, status, error, latency_ms)
       values ($1, $2, 1, false, 500, 'status 500', 3)`,
      [retried, bad.id],
    );
    const claims = await claimDeliveries(h.db, 10, 60);
    const tries = Object.fromEntries(claims.map((c) => [c.id, c.tries]));
    expect(tries).toEqual({ [delivered]: 1, [retried]: 2, [last]: 4, [skipped]: 1, [takenOver]: 1 });
    // Another worker claimed `takenOver` again after this claim's lease (its second claim).
    await h.db.query(`update webhook_deliveries set tries = 2 where id = $1`, [takenOver]);
    const okBefore = ok.got.length;
    const t0 = Date.now();
    const results = await engine.attempts([...claims, { id: "dlv_gone", tries: 1 }]);

    expect(Object.fromEntries(results.map((r) => [r.id, r.status]))).toEqual({
      [delivered]: "delivered",
      [retried]: "retrying", // due again after its backoff
      [last]: "failed", // the schedule is over
      [skipped]: "skipped",
      [takenOver]: "retrying",
      dlv_gone: "gone",
    });
    expect(results.find((r) => r.id === retried)!.error).toMatch(/500/);
    // Sent: the delivered one (to `ok`; the switched-off endpoint's never), the failing ones (to `failing`).
    expect(ok.got.length - okBefore).toBe(1);
    expect(JSON.parse(ok.got.at(-1)!.body)).toEqual({ id: expect.any(String) });
    // The second retry waits between half and all of 2 × retryDelaySeconds (1 s), capped at 2 s.
    const [due] = await h.db.query<{ ms: number }>(
      `select (extract(epoch from next_attempt_at) * 1000)::float8 as ms from webhook_deliveries where id = $1`,
      [retried],
    );
    expect(due!.ms - t0).toBeGreaterThanOrEqual(1000 - 50);
    expect(due!.ms - Date.now()).toBeLessThanOrEqual(2000);
    // The settlement of a claim taken over moved nothing (its attempt is logged): the other worker's claim holds it.
    expect(
      (
        await h.db.query<{ attempts: number; held: boolean }>(
          `select attempts, leased_until is not null as held from webhook_deliveries where id = $1`,
          [takenOver],
        )
      )[0],
    ).toEqual({ attempts: 0, held: true });
    expect(await attemptRows(takenOver)).toHaveLength(1);

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

  it("leaves every delivery of the batch unsettled when the database cannot be read: their leases run out", async () => {
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
      { id: "a", tries: 1 },
      { id: "b", tries: 1 },
    ]);
    expect(results).toEqual([
      { id: "a", status: "unsettled", error: "Error: connection refused" },
      { id: "b", status: "unsettled", error: "Error: connection refused" },
    ]);
  });
});
