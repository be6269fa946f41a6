// npm start on Postgres with the `webhooks` preview on delivers from a worker process of its own
// (WEBHOOKS_DELIVERY=worker, the default; scripts/serve.mjs forks lib/server/webhooks-worker.ts): a production server on
// the build the webServer made and a database of its own on the test Postgres. A change is delivered to a real
// receiver on loopback; the worker killed (SIGKILL) is started again and the next change delivered; the server
// stopped (SIGTERM) stops its worker. The worker's own entry alone: tests/webhooks/worker-entry.test.ts.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { openPg, type Database } from "@/db/client";
import { migrate } from "@/db/migrate";
import { newWebhookSecret } from "@/lib/webhooks/signing";
import { createTestDatabase } from "../support/servers";
import { startSecondServer, type SecondServer } from "./support/second-server";

test.describe.configure({ mode: "serial" });

let server: SecondServer | undefined;
let database: { url: string; drop: () => Promise<void> } | undefined;
let db: Database | undefined;
let receiver: http.Server | undefined;
// The bodies the receiver got.
const got: string[] = [];
const output = () => server?.output() ?? "";
const orgId = `org_e2e_worker_${Date.now()}`;

// The worker's pids the server's log announced, in order.
const workerPids = () =>
  [...output().matchAll(/delivering in a worker process \(pid (\d+)/g)].map((m) => Number(m[1]));

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function waitFor(check: () => boolean, what: string, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}:\n${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// A category created in one transaction: one event of the organization's feed.
async function change(label: string): Promise<string> {
  const id = `cat_${label}_${Date.now()}`;
  await db!.query(`insert into categories (id, org_id, slug, label) values ($1, $2, $1, $3)`, [
    id,
    orgId,
    label,
  ]);
  return id;
}

test.beforeAll(async () => {
  test.setTimeout(120_000);
  database = await createTestDatabase("e2e_worker");
  db = await openPg(database.url, 2);
  await migrate(db);
  await db.query(`insert into organizations (id, slug, name) values ($1, $1, 'Worker')`, [orgId]);
  // A receiver on loopback that answers 200 to every POST.
  receiver = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      got.push(body);
      res.end("ok");
    });
  });
  await new Promise<void>((r) => receiver!.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  // An endpoint of the organization for its categories, as the console registers one (lib/webhooks/endpoints.ts).
  await db.query(
    `insert into webhook_endpoints (id, org_id, url, description, types, ops, enabled, position)
     values ('whe_e2e_worker', $1, $2, '', array['categories'], array['upsert', 'delete'], true, 0)`,
    [orgId, url],
  );
  await db.query(
    `insert into webhook_secrets (id, endpoint_id, secret) values ('whs_e2e_worker', 'whe_e2e_worker', $1)`,
    [newWebhookSecret()],
  );
  server = await startSecondServer({
    label: "webhooks-worker",
    env: {
      DATABASE_URL: database.url,
      PUBLIC_API_PREVIEW: "webhooks",
      WEBHOOKS_ALLOW_PRIVATE_URLS: "true",
      AUTH_SECRET: "e2e-webhooks-worker-secret-0123456789abcdef",
    },
    ready: (s) => /delivering in a worker process/.test(s.output()),
    timeoutMs: 90_000,
  });
});

test.afterAll(async () => {
  await server?.stop();
  await new Promise((r) => (receiver ? receiver.close(r) : r(undefined)));
  await db?.close();
  await database?.drop();
});

test("the server's worker process delivers a change; killed, it is started again and delivers the next", async () => {
  test.setTimeout(90_000);
  const [first] = workerPids();
  expect(alive(first!)).toBe(true);
  // The server itself does not deliver: its log names the worker's engine, never its own.
  expect(output()).not.toMatch(/webhooks: delivering \(queue/);
  const one = await change("one");
  await waitFor(() => got.some((b) => b.includes(one)), "the first delivery", 20_000);

  process.kill(first!, "SIGKILL");
  await waitFor(() => workerPids().length === 2, "a new worker process", 30_000);
  expect(output()).toMatch(/the worker process ended \(SIGKILL\); again in 1 s/);
  const second = workerPids()[1]!;
  expect(second).not.toBe(first);
  const two = await change("two");
  await waitFor(() => got.some((b) => b.includes(two)), "the delivery after the restart", 20_000);
});

test("the server stopped stops its worker", async () => {
  test.setTimeout(30_000);
  const worker = workerPids().at(-1)!;
  expect(alive(worker)).toBe(true);
  await server!.stop();
  await waitFor(() => !alive(worker), "the worker to end", 10_000);
});
