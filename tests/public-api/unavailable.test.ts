// A database that cannot be reached gives 503 PUBLIC_API_UNAVAILABLE with Retry-After, never a 500 or a hang.
import { afterAll, describe, expect, it } from "vitest";
import { openPg, type Database } from "@/db/client";
import { generateApiKey } from "@/lib/keys/format";
import { loadConfig } from "@/lib/config";
import { createRuntime } from "@/lib/runtime";
import { call, expectUnavailable, swapRuntime } from "../support/api";
import { freePort } from "../support/ports";

describe("database unreachable", () => {
  let db: Database | undefined;
  afterAll(async () => {
    await swapRuntime(undefined);
    await db?.close();
  });

  it("answers 503 with Retry-After for a key that needs a look-up", async () => {
    const port = await freePort();
    db = await openPg(`postgres://postgres@127.0.0.1:${port}/postgres`, 2);
    await swapRuntime(createRuntime(loadConfig({ RATE_LIMIT_ENABLED: "false" }), db));
    const key = generateApiKey();
    const started = Date.now();
    const res = await call("/public/v1/products", { key });
    expect(Date.now() - started).toBeLessThan(10_000);
    expectUnavailable(res);
    expect(JSON.stringify(res.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
  });
});
