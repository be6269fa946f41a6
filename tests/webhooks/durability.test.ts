// Webhooks survive what a deployment does to them, on the Postgres server: a worker process killed with SIGKILL in
// the middle of a POST loses nothing (the lease of the attempt it held runs out and another worker takes it), and
// two instances on one database never send the same attempt at the same time (claims with SKIP LOCKED).
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WebhookEngine } from "@/lib/webhooks/engine";
import {
  addCategories,
  engineOn,
  openHookDb,
  registerEndpoint,
  runScript,
  startReceiver,
  waitFor,
  type HookDb,
  type Receiver,
} from "./support";

const delivered = async (h: HookDb, endpointId: string) =>
  (
    await h.db.query<{ n: number }>(
      `select count(*)::int as n from webhook_deliveries where endpoint_id = $1 and state = 'delivered'`,
      [endpointId],
    )
  )[0]!.n;

describe("webhooks durability on pg", () => {
  let h: HookDb;
  const engines: WebhookEngine[] = [];
  const receivers: Receiver[] = [];
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    h = await openHookDb("pg");
  }, 60_000);
  afterAll(async () => {
    child?.kill("SIGKILL");
    for (const e of engines) await e.stop();
    for (const r of receivers) await r.close().catch(() => undefined);
    await h?.close();
  }, 60_000);

  it("loses nothing when the worker is killed mid-delivery: another one takes the attempt over", async () => {
    const r = await startReceiver();
    receivers.push(r);
    let first: string | undefined;
    r.answer = (g, res) => {
      // The first request is held unanswered: the worker is killed while it waits.
      if (!first) {
        first = String(g.headers["webhook-id"]);
        return;
      }
      res.end("ok");
    };
    const ep = await registerEndpoint(h, r.url);
    const worker = runScript(
      "tests/webhooks/worker-process.ts",
      { ...process.env, DATABASE_URL: h.url! },
      /ready/,
    );
    child = worker.child;
    await worker.ready;
    await addCategories(h, 5, "k");
    await waitFor(() => first !== undefined, "the first POST", 30_000);
    child.kill("SIGKILL");
    await new Promise((resolve) => child!.once("exit", resolve));
    child = undefined;
    // Restarted: a new engine (this process) takes over, the held attempt once it expired.
    const engine = engineOn(h, { retryLimit: 5, expireSeconds: 2 });
    engines.push(engine);
    await engine.start();
    await waitFor(
      async () => (await delivered(h, ep.id)) === 5,
      "all 5 delivered after the kill",
      40_000,
    ).catch(async (err: unknown) => {
      console.log(
        await h.db.query(
          `select id, state, attempts, tries, leased_until, next_attempt_at, ordering_key
             from webhook_deliveries where endpoint_id = $1`,
          [ep.id],
        ),
      );
      throw err;
    });
    const ids = r.got.map((g) => String(g.headers["webhook-id"]));
    expect(ids.filter((i) => i === first).length).toBeGreaterThanOrEqual(2); // the killed attempt was sent again
    expect(new Set(ids).size).toBe(5);
    await engine.stop();
    engines.pop();
    await h.db.query(`update webhook_endpoints set enabled = false where id = $1`, [ep.id]);
  }, 90_000);

  it("two instances on one database never send the same attempt at the same time", async () => {
    const r = await startReceiver();
    receivers.push(r);
    // A slow receiver: attempts overlap in time, so two instances would be caught sending the same one.
    r.answer = (_g, res) => setTimeout(() => res.end("ok"), 150);
    const ep = await registerEndpoint(h, r.url);
    const a = engineOn(h, { concurrency: 4 });
    const b = engineOn(h, { concurrency: 4 });
    engines.push(a, b);
    await Promise.all([a.start(), b.start()]);
    const ids = await addCategories(h, 40, "two");
    await waitFor(async () => (await delivered(h, ep.id)) === 40, "40 delivered", 60_000);
    expect(r.overlaps).toEqual([]);
    const seen = r.got.map((g) => String(g.headers["webhook-id"]));
    expect(seen).toHaveLength(40); // each once: none queued twice by the two dispatchers
    expect(new Set(seen).size).toBe(40);
    const bodies = r.got.map((g) => (JSON.parse(g.body) as { id: string }).id);
    expect(new Set(bodies)).toEqual(new Set(ids));
  }, 90_000);
});
