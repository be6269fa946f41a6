// The webhooks' delivery worker as npm start forks it (lib/server/webhooks-worker.ts, a process of its own): on a
// Postgres database with the preview on it delivers a change to a real receiver on loopback, and stops cleanly on
// SIGTERM; it refuses to start on the embedded PGlite (the server's own) and with the preview off. That npm start forks
// it, restarts it and stops it with the server: tests/e2e/webhooks-worker.spec.ts.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addCategories,
  openHookDb,
  registerEndpoint,
  runScript,
  startReceiver,
  waitFor,
  type HookDb,
  type Receiver,
} from "./support";

// The worker's entry with `env` alone (no variable of this process's but PATH).
const runWorker = (env: Record<string, string>, until?: RegExp) =>
  runScript(
    "lib/server/webhooks-worker.ts",
    { PATH: process.env.PATH!, NODE_ENV: "production", ...env },
    until,
  );

describe("the webhooks' delivery worker process", () => {
  let h: HookDb;
  let receiver: Receiver;

  beforeAll(async () => {
    h = await openHookDb("pg");
    receiver = await startReceiver();
  }, 60_000);
  afterAll(async () => {
    await receiver?.close();
    await h?.close();
  }, 60_000);

  it("delivers a change from the feed on Postgres, then stops on SIGTERM", async () => {
    const endpoint = await registerEndpoint(h, receiver.url, { types: ["categories"] });
    const worker = runWorker(
      {
        DATABASE_URL: h.url!,
        PUBLIC_API_PREVIEW: "webhooks",
        WEBHOOKS_ALLOW_PRIVATE_URLS: "true",
        AUTH_SECRET: "a".repeat(32),
      },
      /delivering in a worker process \(pid \d+, nice 19, queue on pg/,
    );
    try {
      await worker.ready;
      // It yields to the server it shares a machine with: the lowest CPU priority.
      expect(os.getPriority(worker.child.pid)).toBe(19);
      const [id] = await addCategories(h, 1, "wk");
      await waitFor(async () => receiver.got.some((g) => g.body.includes(id!)), "the delivery", 20_000);
      // The attempt is settled after its answer came (the worker, at nice 19, may be a moment behind the receiver).
      const state = async () =>
        (
          await h.db.query<{ state: string }>(
            `select state from webhook_deliveries where endpoint_id = $1 and object_id = $2`,
            [endpoint.id, id],
          )
        )[0]?.state;
      await waitFor(async () => (await state()) !== "pending", "the attempt settled", 20_000);
      expect(await state()).toBe("delivered");
    } finally {
      worker.child.kill("SIGTERM");
    }
    expect(await worker.exited).toBe(0);
  }, 60_000);

  it("refuses the embedded PGlite and a configuration with the preview off", async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "pca-worker-pglite-"));
    try {
      const pglite = runWorker({ PUBLIC_API_PREVIEW: "webhooks", DATA_DIR: dataDir });
      await pglite.ready;
      expect(await pglite.exited).toBe(1);
      expect(pglite.output()).toMatch(/needs Postgres/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    const off = runWorker({ DATABASE_URL: h.url!, PUBLIC_API_PREVIEW: "details" });
    await off.ready;
    expect(await off.exited).toBe(1);
    expect(off.output()).toMatch(/`webhooks` preview feature is off/);
  }, 60_000);
});
