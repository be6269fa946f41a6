// Two instances of the API on one Postgres and one Redis (issue 27 item 3): a write through one, or with plain SQL
// by the product-information application, is seen by the other at once in its totals, ETags, cached pages, product
// details and change feed; webhook deliveries are shared by both engines, and no attempt is sent twice at once.
//
// Each instance is a process of its own (tests/instances/instance-process.ts): the runtime is a process singleton
// (lib/runtime.ts keeps it on globalThis, and the pipeline reads it there), so two runtimes in this process would
// not be two instances. Each has its own database pool, key cache, count and anchor caches, page cache, version reads,
// change signals and webhooks' engine, and its own HTTP server on loopback hosting the API's router as
// `npm start` does (lib/server/bundle-entry.ts' publicApiHost); they share the test server's database (one of its
// own) and the Redis at TEST_REDIS_URL (the rate limiter; nothing else there, keys are per fresh API key).
//
// What "at once" means here: DESIGN §2 (ETags) and lib/public-api/conditional.ts key every ETag, cached page, count
// and page anchor by the organization's version of the resource, bumped in the writer's transaction (migration
// 0011) and read by every request: nothing is broadcast, so the first request after the commit must see the change.
// The test sends that one request and no other; no wait, no poll.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPg, type Database } from "@/db/client";
import { migrate } from "@/db/migrate";
import { seedDemo } from "@/db/seed";
import { READ_SCOPES, WRITE_SCOPE } from "@/lib/keys/scopes";
import { createEndpoint, endpointInputSchema } from "@/lib/webhooks/endpoints";
import { creatableBody } from "@/bench/support";
import { insertKey } from "../support/api";
import { createTestDatabase } from "../support/servers";
import { startReceiver, waitFor, type Receiver } from "../webhooks/support";
import { startInstance, stopInstance, type Instance } from "./instances";

// The loopback address each instance's webhooks connect to (its own DNS look-up of the endpoint's name), so that the
// receiver tells the senders apart by the address a request came in on.
const HOOK_ADDRESSES = ["127.0.0.1", "127.0.0.2"] as const;

// Products created through the two instances for the webhooks' part.
const WEBHOOK_CHANGES = 200;

// Starts one instance on the database; resolves once it serves and its webhooks' engine takes jobs.
const start = (name: string, databaseUrl: string, hookAddress: string) =>
  startInstance(name, databaseUrl, {
    PUBLIC_BASE_URL: "http://api.test",
    PUBLIC_API_PREVIEW: "all",
    WEBHOOKS_ALLOW_PRIVATE_URLS: "true",
    RATE_LIMIT_REQUESTS: "100000",
    AUTH_FAILURE_LIMIT: "100000",
    AUTH_SECRET: "two-instances-test-secret-0123456789abcdef",
    INSTANCE_HOOK_ADDRESS: hookAddress,
  });

interface Answer {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

describe("two instances on one Postgres and one Redis", () => {
  let db: Database;
  let drop: () => Promise<void>;
  let orgId: string;
  let key: string;
  let a: Instance;
  let b: Instance;
  let receiver: Receiver | undefined;

  const call = async (i: Instance, path: string, init: RequestInit = {}): Promise<Answer> => {
    const res = await fetch(`${i.base}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, ...(init.headers as Record<string, string>) },
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  };
  const post = (i: Instance, body: unknown) =>
    call(i, "/public/v1/products", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    const t = await createTestDatabase("instances");
    drop = t.drop;
    db = await openPg(t.url, 4);
    await migrate(db);
    await seedDemo(db);
    [{ id: orgId }] = (await db.query<{ id: string }>(
      "select id from organizations where slug = 'acme'",
    )) as [{ id: string }];
    key = await insertKey(db, orgId, [...READ_SCOPES, WRITE_SCOPE]);
    [a, b] = await Promise.all([start("A", t.url, HOOK_ADDRESSES[0]), start("B", t.url, HOOK_ADDRESSES[1])]);
  }, 180_000);

  afterAll(async () => {
    await Promise.all([a, b].filter(Boolean).map(stopInstance));
    await receiver?.close();
    await db?.close();
    await drop?.();
  }, 60_000);

  it("a write through A and a plain SQL update are seen by B at once: totals, ETags, cached pages, details, feed", async () => {
    const page1 = "/public/v1/products?perPage=20";
    const search = "/public/v1/products?q=deux-instances";
    const [{ head }] = (await db.query<{ head: string }>(
      "select head::text as head from catalog_change_heads where org_id = $1",
      [orgId],
    )) as [{ head: string }];
    // B reads page 1 twice (the second from its page cache), a search (its count cache), a product's detail, and
    // the feed at its head.
    const before = await call(b, page1);
    expect(before.status).toBe(200);
    const cached = await call(b, page1);
    expect(cached.headers.get("server-timing")).toBe("page-cache;desc=hit");
    const etag = before.headers.get("etag")!;
    expect((await call(b, page1, { headers: { "if-none-match": etag } })).status).toBe(304);
    const searched = await call(b, search);
    expect(searched.body.pagination.total).toBe(0);
    const old = before.body.data[before.body.data.length - 1] as { id: string; label: string };
    const oldDetail = await call(b, `/public/v1/products/${old.id}`);
    expect(oldDetail.status).toBe(200);
    const oldDetailTag = oldDetail.headers.get("etag")!;
    const feed = await call(b, `/public/v1/changes?after=${head}&types=products`);
    expect(feed.body.data).toEqual([]);
    // A client of B waits on the feed (long polling): A's commit must wake it (B hears the commit's notification).
    const waitStarted = Date.now();
    const waiting = call(b, `/public/v1/changes?after=${feed.body.cursor}&types=products&wait=20`);

    // A creates a product; the product-information application relabels the last product of B's page 1.
    const body = (await creatableBody(db, orgId, "deux-instances", "Produit deux-instances"))(1);
    const created = await post(a, body);
    expect(created.status).toBe(201);
    const newId = created.body.id as string;
    const label = `Relabelled ${Date.now()}`;
    await db.query("update products set label = $3, updated_at = now() where org_id = $1 and id = $2", [
      orgId,
      old.id,
      label,
    ]);

    // B, at once: the total, the page (not the cached one), the tag, the search's count, both details, the feed.
    const after = await call(b, page1);
    expect(after.status).toBe(200);
    expect(after.body.pagination.total).toBe(before.body.pagination.total + 1);
    expect(after.headers.get("server-timing")).toBe("page-cache;desc=miss");
    expect(after.headers.get("etag")).not.toBe(etag);
    const ids = (after.body.data as { id: string }[]).map((p) => p.id);
    expect(ids.slice(0, 2).sort()).toEqual([newId, old.id].sort());
    expect((after.body.data as { id: string; label: string }[]).find((p) => p.id === old.id)?.label).toBe(
      label,
    );
    const revalidated = await call(b, page1, { headers: { "if-none-match": etag } });
    expect(revalidated.status).toBe(200);
    expect(revalidated.body.pagination.total).toBe(before.body.pagination.total + 1);
    expect((await call(b, search)).body.pagination.total).toBe(1);
    const detail = await call(b, `/public/v1/products/${newId}`);
    expect(detail.status).toBe(200);
    expect(detail.body.id).toBe(newId);
    expect(detail.body.values.sku).toBe((body as { values: { sku: string } }).values.sku);
    const relabelled = await call(b, `/public/v1/products/${old.id}`, {
      headers: { "if-none-match": oldDetailTag },
    });
    expect(relabelled.status).toBe(200);
    expect(relabelled.body.label).toBe(label);
    const events = await call(b, `/public/v1/changes?after=${feed.body.cursor}&types=products`);
    expect(events.status).toBe(200);
    expect((events.body.data as { id: string; op: string }[]).map((e) => [e.id, e.op])).toEqual([
      [newId, "upsert"],
      [old.id, "upsert"],
    ]);
    expect(events.body.data[1].item.label).toBe(label);
    const woken = await waiting;
    expect(woken.status).toBe(200);
    expect(woken.body.data[0].id).toBe(newId);
    // Woken by the commit, not at the end of its 20 s wait.
    expect(Date.now() - waitStarted).toBeLessThan(10_000);
  }, 60_000);

  it("shares webhook deliveries between both engines, each attempt sent once and never twice at once", async () => {
    receiver = await startReceiver(0, [HOOK_ADDRESSES[1]]);
    // A receiver that takes its time: attempts overlap, so two instances sending the same one would be caught.
    receiver.answer = (_r, res) => setTimeout(() => res.end("ok"), 50);
    const { endpoint } = await createEndpoint(
      db,
      orgId,
      endpointInputSchema.parse({
        url: `http://hooks.instances.test:${receiver.port}/hook`,
        types: ["products"],
      }),
    );
    const body = await creatableBody(db, orgId, "hooks", "Produit webhook");
    // The writes go through both instances, eight at a time: both hear each commit and dispatch.
    const created: string[] = [];
    for (let n = 0; n < WEBHOOK_CHANGES; n += 8) {
      const answers = await Promise.all(
        Array.from({ length: Math.min(8, WEBHOOK_CHANGES - n) }, (_, k) => post(k % 2 ? b : a, body(n + k))),
      );
      for (const r of answers) {
        expect(r.status).toBe(201);
        created.push(r.body.id as string);
      }
    }
    const state = () =>
      db.query<{ state: string; n: number; attempts: number }>(
        `select state, count(*)::int as n, sum(attempts)::int as attempts from webhook_deliveries
          where endpoint_id = $1 group by state`,
        [endpoint.id],
      );
    await waitFor(
      async () => (await state()).find((s) => s.state === "delivered")?.n === WEBHOOK_CHANGES,
      `${WEBHOOK_CHANGES} deliveries delivered`,
      90_000,
    );
    // Every delivery delivered in one attempt, logged once.
    expect(await state()).toEqual([{ state: "delivered", n: WEBHOOK_CHANGES, attempts: WEBHOOK_CHANGES }]);
    const [logged] = await db.query<{ n: number }>(
      "select count(*)::int as n from webhook_attempts where endpoint_id = $1",
      [endpoint.id],
    );
    expect(logged!.n).toBe(WEBHOOK_CHANGES);
    // The receiver got each event once, never two requests of one at once, and every product created.
    const got = receiver.got;
    expect(receiver.overlaps).toEqual([]);
    const webhookIds = got.map((g) => String(g.headers["webhook-id"]));
    expect(webhookIds).toHaveLength(WEBHOOK_CHANGES);
    expect(new Set(webhookIds).size).toBe(WEBHOOK_CHANGES);
    expect(new Set(got.map((g) => (JSON.parse(g.body) as { id: string }).id))).toEqual(new Set(created));
    // Both instances sent attempts.
    const byInstance = Object.fromEntries(
      HOOK_ADDRESSES.map((addr) => [addr, got.filter((g) => g.local === addr).length]),
    );
    console.log(`webhook attempts by instance (A ${HOOK_ADDRESSES[0]}, B ${HOOK_ADDRESSES[1]}):`, byInstance);
    expect(byInstance[HOOK_ADDRESSES[0]]).toBeGreaterThan(0);
    expect(byInstance[HOOK_ADDRESSES[1]]).toBeGreaterThan(0);
    expect(byInstance[HOOK_ADDRESSES[0]]! + byInstance[HOOK_ADDRESSES[1]]!).toBe(WEBHOOK_CHANGES);
  }, 150_000);
});
