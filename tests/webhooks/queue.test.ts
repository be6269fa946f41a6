// The deliveries' queue (lib/webhooks/queue.ts) on PGlite and on the Postgres server: a claim takes only the head
// of each ordering key (an object's later event waits while an earlier one is pending, a scheduled retry included),
// never a delivery that is not queued (a test event), never one held by an unexpired lease, and one whose lease ran
// out again; concurrent claims never take the same delivery; a redelivery waits for no other; queueing notifies.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPg, type Database } from "@/db/client";
import { settleAttempts } from "@/lib/webhooks/settle";
import {
  DELIVERIES_CHANNEL,
  claimDeliveries,
  queueDeliveries,
  requeueDelivery,
  type QueueTarget,
} from "@/lib/webhooks/queue";
import { openHookDb, registerEndpoint, waitFor, type HookDb } from "./support";

const outcome = (ok: boolean) => ({ ok, status: ok ? 200 : 500, latencyMs: 1, bodyStart: "" });

describe.each(["pglite", "pg"] as const)("the deliveries' queue on %s", (driver) => {
  let h: HookDb;
  let target: QueueTarget;
  let cursor = 1000;

  beforeAll(async () => {
    h = await openHookDb(driver);
    const ep = await registerEndpoint(h, "http://127.0.0.1:9/hook");
    target = { id: ep.id, orgId: h.orgId, generation: 0 };
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  }, 60_000);

  // Queues events for objects (an id may come several times: one object's later events), in one transaction.
  const queue = (objects: readonly string[]) =>
    h.db.transaction((tx) =>
      queueDeliveries(
        tx,
        target,
        objects.map((id) => ({ cursor: String(++cursor), type: "categories", id, op: "upsert" as const })),
      ),
    );
  // Settles a claimed delivery: delivered, or failed and due again after `retryInSeconds`.
  const settle = (id: string, tries: number, retryInSeconds?: number) =>
    settleAttempts(h.db, [
      {
        deliveryId: id,
        endpointId: target.id,
        outcome: outcome(retryInSeconds === undefined),
        state: retryInSeconds === undefined ? "delivered" : "pending",
        tries,
        ...(retryInSeconds === undefined ? {} : { retryInSeconds }),
      },
    ]);
  const drain = async () => {
    for (const c of await claimDeliveries(h.db, 1000, 60)) await settle(c.id, c.tries);
  };

  it("claims the head of each object's key only, the next one once the head is delivered", async () => {
    const a = `cat_a${randomBytes(4).toString("hex")}`;
    const b = `cat_b${randomBytes(4).toString("hex")}`;
    const [a1, a2, b1, a3] = await queue([a, a, b, a]);
    const first = await claimDeliveries(h.db, 10, 60);
    expect(first.map((c) => c.id)).toEqual([a1, b1]);
    expect(first.every((c) => c.tries === 1)).toBe(true);
    // Held by their leases, and a2 behind a1: nothing more.
    expect(await claimDeliveries(h.db, 10, 60)).toEqual([]);
    // a1 fails, its retry due in 0.4 s: a2 still waits behind it.
    await settle(a1!, 1, 0.4);
    await settle(b1!, 1);
    expect(await claimDeliveries(h.db, 10, 60)).toEqual([]);
    await new Promise((r) => setTimeout(r, 500));
    expect(await claimDeliveries(h.db, 10, 60)).toEqual([{ id: a1, tries: 2 }]);
    await settle(a1!, 2);
    expect(await claimDeliveries(h.db, 10, 60)).toEqual([{ id: a2, tries: 1 }]);
    await settle(a2!, 1);
    expect(await claimDeliveries(h.db, 10, 60)).toEqual([{ id: a3, tries: 1 }]);
    await settle(a3!, 1);
  });

  it("never claims a delivery that is not queued (the console's test event)", async () => {
    await h.db.query(
      `insert into webhook_deliveries (id, endpoint_id, org_id, event_id, event_type, object_id, op, body)
       values ('whd_test1', $1, $2, 'test_1', 'test', 'test_1', 'test', '{}')`,
      [target.id, h.orgId],
    );
    expect(await claimDeliveries(h.db, 10, 60)).toEqual([]);
  });

  it("claims again a delivery whose lease ran out (its worker was killed), as its next try", async () => {
    const [d] = await queue([`cat_l${randomBytes(4).toString("hex")}`]);
    expect(await claimDeliveries(h.db, 10, 1)).toEqual([{ id: d, tries: 1 }]);
    expect(await claimDeliveries(h.db, 10, 1)).toEqual([]);
    await new Promise((r) => setTimeout(r, 1100));
    expect(await claimDeliveries(h.db, 10, 60)).toEqual([{ id: d, tries: 2 }]);
    // The first claim's late settlement moves nothing: the second claim holds it.
    await settle(d!, 1);
    const [row] = await h.db.query<{ state: string; held: boolean }>(
      `select state, leased_until is not null as held from webhook_deliveries where id = $1`,
      [d],
    );
    expect(row).toEqual({ state: "pending", held: true });
    await settle(d!, 2);
  });

  it("redelivers a delivery under a key of its own, its schedule started afresh", async () => {
    const o = `cat_r${randomBytes(4).toString("hex")}`;
    const [r1, r2] = await queue([o, o]);
    for (const c of await claimDeliveries(h.db, 10, 60)) await settle(c.id, c.tries);
    const [r2claim] = await claimDeliveries(h.db, 10, 60);
    expect(r2claim).toEqual({ id: r2, tries: 1 });
    // r1 sent again while r2 is still held: it waits for nothing.
    await h.db.transaction((tx) => requeueDelivery(tx, r1!));
    expect(await claimDeliveries(h.db, 10, 60)).toEqual([{ id: r1, tries: 1 }]);
    await settle(r1!, 1);
    await settle(r2!, 1);
  });

  it("tells listeners once the queueing transaction commits", async () => {
    let heard = 0;
    const unlisten = await h.db.listen!(DELIVERIES_CHANNEL, () => heard++);
    try {
      await h.db.transaction(async (tx) => {
        await queueDeliveries(tx, target, [
          { cursor: String(++cursor), type: "categories", id: "cat_n", op: "upsert" },
        ]);
        await new Promise((r) => setTimeout(r, 200));
        expect(heard).toBe(0);
      });
      await waitFor(() => heard === 1, "the notification");
    } finally {
      await unlisten();
      await drain();
    }
  });
});

// Two pools on one server database (two instances): claims at once never share a delivery.
describe("the deliveries' queue on pg, claimed at once", () => {
  let h: HookDb;
  let target: QueueTarget;

  beforeAll(async () => {
    h = await openHookDb("pg");
    const ep = await registerEndpoint(h, "http://127.0.0.1:9/hook");
    target = { id: ep.id, orgId: h.orgId, generation: 0 };
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  }, 60_000);

  it("never gives one delivery to two claims running at once", async () => {
    const other: Database = await openPg(h.url!, 4);
    try {
      const events = Array.from({ length: 60 }, (_, i) => ({
        cursor: String(i + 1),
        type: "categories" as const,
        id: `cat_c${i}`,
        op: "upsert" as const,
      }));
      const ids = await h.db.transaction((tx) => queueDeliveries(tx, target, events));
      const claimed: string[] = [];
      for (let round = 0; round < 10 && claimed.length < ids.length; round++) {
        const batches = await Promise.all([h.db, other, h.db, other].map((db) => claimDeliveries(db, 5, 60)));
        for (const b of batches) claimed.push(...b.map((c) => c.id));
      }
      expect(claimed.sort()).toEqual([...ids].sort());
    } finally {
      await other.close();
    }
  });
});
