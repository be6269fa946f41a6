// Migration 0027 on a database an earlier engine used, on PGlite and on the Postgres server: the job schema `pgboss`
// it installed (its job table as pg-boss 12 keeps it) does not stop the migration; pending deliveries take their
// job's ordering key, retry count and retry time, one without a job is queued under its object's key, a test event
// stays unqueued, the schema and job_id are gone, and the engine then delivers what was pending, in order.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPg, openPglite, type Database } from "@/db/client";
import { listMigrations, migrate } from "@/db/migrate";
import { loadConfig } from "@/lib/config";
import { WebhookEngine } from "@/lib/webhooks/engine";
import { newWebhookSecret } from "@/lib/webhooks/signing";
import { catalogOf, startReceiver, waitFor, type Receiver } from "./support";
import { createTestDatabase } from "../support/servers";

describe.each(["pglite", "pg"] as const)("migration 0027 after pg-boss on %s", (driver) => {
  let db: Database;
  let drop = async () => undefined as void;
  let receiver: Receiver;
  let engine: WebhookEngine | undefined;
  const orgId = `org_${randomBytes(6).toString("hex")}`;

  beforeAll(async () => {
    if (driver === "pg") {
      const t = await createTestDatabase("hooksmig");
      db = await openPg(t.url, 4);
      drop = t.drop;
    } else db = await openPglite("memory://");
    await migrate(
      db,
      listMigrations().filter((m) => m.version < "0027"),
    );
    receiver = await startReceiver();
  }, 60_000);
  afterAll(async () => {
    await engine?.stop();
    await receiver?.close();
    await db?.close();
    await drop();
  }, 60_000);

  it("carries the pending jobs over, drops the job schema, and the engine delivers them", async () => {
    await db.exec(`
      insert into organizations (id, slug, name) values ('${orgId}', '${orgId}', 'Old');
      insert into webhook_endpoints (id, org_id, url, types, ops, generation)
        values ('whe_old', '${orgId}', '${receiver.url}', '{categories}', '{upsert,delete}', 2);
      insert into webhook_secrets (id, endpoint_id, secret)
        values ('whs_old', 'whe_old', '${newWebhookSecret()}');
      create schema pgboss;
      create type pgboss.job_state as enum ('created', 'retry', 'active', 'completed', 'cancelled', 'failed');
      create table pgboss.job (
        name text not null, id uuid not null default gen_random_uuid(), state pgboss.job_state not null,
        retry_count integer not null default 0, start_after timestamptz not null default now(),
        singleton_key text, primary key (name, id));
      insert into webhook_deliveries (id, endpoint_id, org_id, event_id, event_type, object_id, op, body, job_id,
                                      attempts, created_at)
        values ('whd_1', 'whe_old', '${orgId}', '11', 'categories', 'cat_x', 'upsert', '{"cursor":"11"}',
                '0190a000-0000-7000-8000-000000000001', 1, now() - interval '1 minute'),
               ('whd_2', 'whe_old', '${orgId}', '12', 'categories', 'cat_x', 'upsert', '{"cursor":"12"}',
                '0190a000-0000-7001-8000-000000000002', 0, now() - interval '1 minute'),
               ('whd_3', 'whe_old', '${orgId}', '13', 'categories', 'cat_y', 'upsert', '{"cursor":"13"}',
                null, 0, now()),
               ('whd_t', 'whe_old', '${orgId}', 'test_1', 'test', 'test_1', 'test', '{}', null, 0, now());
      insert into pgboss.job (name, id, state, retry_count, start_after, singleton_key)
        values ('webhook-deliveries', '0190a000-0000-7000-8000-000000000001', 'retry', 1,
                now() + interval '2 seconds', 'whe_old:1:categories:cat_x'),
               ('webhook-deliveries', '0190a000-0000-7001-8000-000000000002', 'created', 0, now(),
                'whe_old:1:categories:cat_x');
    `);
    // 0027 and every migration after it.
    expect(await migrate(db)).toEqual(
      listMigrations()
        .filter((m) => m.version >= "0027")
        .map((m) => m.version),
    );

    const rows = await db.query<{ id: string; ordering_key: string | null; tries: number; later: boolean }>(
      `select id, ordering_key, tries, coalesce(next_attempt_at > now(), false) as later
         from webhook_deliveries order by seq`,
    );
    expect(rows).toEqual([
      { id: "whd_1", ordering_key: "whe_old:1:categories:cat_x", tries: 1, later: true },
      { id: "whd_2", ordering_key: "whe_old:1:categories:cat_x", tries: 0, later: false },
      { id: "whd_3", ordering_key: "whe_old:2:categories:cat_y", tries: 0, later: false },
      { id: "whd_t", ordering_key: null, tries: 0, later: false },
    ]);
    const [left] = await db.query<{ schema: boolean; jobId: boolean }>(
      `select exists (select 1 from pg_namespace where nspname = 'pgboss') as schema,
              exists (select 1 from information_schema.columns
                       where table_name = 'webhook_deliveries' and column_name = 'job_id') as "jobId"`,
    );
    expect(left).toEqual({ schema: false, jobId: false });

    const config = loadConfig({ PUBLIC_BASE_URL: "http://api.test", WEBHOOKS_ALLOW_PRIVATE_URLS: "true" });
    const ctx = catalogOf(db);
    engine = new WebhookEngine(
      { config, db: async () => db, catalog: async () => ctx },
      { retryDelaySeconds: 1, retryDelayMaxSeconds: 2, retryLimit: 3, pollIntervalMs: 100 },
    );
    await engine.start();
    await waitFor(() => receiver.got.length >= 3, "the three pending deliveries");
    const ids = receiver.got.map((g) => String(g.headers["webhook-id"]));
    // cat_x's retry (due in 2 s) comes before its later event; cat_y's waits for nothing.
    expect(ids).toEqual(["13", "11", "12"]);
  }, 30_000);
});
