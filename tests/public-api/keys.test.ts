// Keys in the pipeline: cache of hits and misses, revocation (at once here, within the TTL elsewhere),
// expiry by the clock, and "last used" written in batches rather than once per request.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { displayPrefix, generateApiKey, hashApiKey } from "@/lib/keys/format";
import { loadConfig } from "@/lib/config";
import { READ_SCOPES } from "@/lib/keys/scopes";
import { newId } from "@/db/schema";
import { createRuntime, type Runtime } from "@/lib/runtime";
import { call, setupApi, type ApiFixture, swapRuntime } from "../support/api";

let fx: ApiFixture;
let keyLookups = 0;

// The real database, counting the key look-ups that reach it.
function counting(db: Database): Database {
  return {
    ...db,
    query: (text, params) => {
      if (/from api_keys k join organizations/.test(text)) keyLookups++;
      return db.query(text, params);
    },
  };
}

async function newKey(expiresInMs?: number): Promise<{ id: string; key: string }> {
  const key = generateApiKey();
  const id = newId("key");
  await fx.db.query(
    `insert into api_keys (id, org_id, name, prefix, key_hash, scopes, expires_at)
     values ($1, $2, 'k', $3, $4, $5, $6)`,
    [
      id,
      fx.acme.orgId,
      displayPrefix(key),
      hashApiKey(key),
      READ_SCOPES,
      expiresInMs ? new Date(Date.now() + expiresInMs) : null,
    ],
  );
  return { id, key };
}

function runtime(env: Record<string, string> = {}): Runtime {
  const rt = createRuntime(
    loadConfig({ PUBLIC_BASE_URL: "http://api.test", RATE_LIMIT_ENABLED: "false", ...env }),
    counting(fx.db),
  );
  void swapRuntime(rt);
  return rt;
}

beforeAll(async () => {
  fx = await setupApi("pglite");
});
afterAll(async () => {
  await fx?.close();
});

describe("key look-up", () => {
  it("reads the database once per key per TTL, for hits and for misses", async () => {
    runtime({ KEY_CACHE_TTL_SECONDS: "60" });
    const { key } = await newKey();
    keyLookups = 0;
    for (let i = 0; i < 5; i++) expect((await call("/public/v1/families", { key })).status).toBe(200);
    expect(keyLookups).toBe(1);
    const unknown = generateApiKey();
    for (let i = 0; i < 5; i++)
      expect((await call("/public/v1/families", { key: unknown })).status).toBe(401);
    expect(keyLookups).toBe(2);
    for (let i = 0; i < 5; i++)
      await call("/public/v1/families", { headers: { authorization: "Bearer malformed" } });
    expect(keyLookups).toBe(2);
  });

  it("a revocation on this instance takes effect at once", async () => {
    const rt = runtime({ KEY_CACHE_TTL_SECONDS: "60" });
    const { id, key } = await newKey();
    expect((await call("/public/v1/products", { key })).status).toBe(200);
    await fx.db.query("update api_keys set revoked_at = now() where id = $1", [id]);
    rt.keyCache.forgetKeyId(id);
    const res = await call("/public/v1/products", { key });
    expect(res.status).toBe(401);
    expect(res.body.message).toBe("Clé API révoquée.");
  });

  it("a revocation made elsewhere takes effect within the cache TTL", async () => {
    runtime({ KEY_CACHE_TTL_SECONDS: "1" });
    const { id, key } = await newKey();
    expect((await call("/public/v1/products", { key })).status).toBe(200);
    await fx.db.query("update api_keys set revoked_at = now() where id = $1", [id]);
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await call("/public/v1/products", { key })).status).toBe(401);
  });

  it("an expiring key stops working when it expires, even while cached", async () => {
    runtime({ KEY_CACHE_TTL_SECONDS: "60" });
    const { key } = await newKey(800);
    expect((await call("/public/v1/products", { key })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 900));
    const res = await call("/public/v1/products", { key });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe("PUBLIC_API_KEY_EXPIRED");
  });

  it("records last use in memory and writes it in one batch", async () => {
    const rt = runtime();
    const a = await newKey();
    const b = await newKey();
    for (let i = 0; i < 3; i++) {
      await call("/public/v1/families", { key: a.key });
      await call("/public/v1/families", { key: b.key });
    }
    const before = await fx.db.query<{ n: number }>(
      "select count(*)::int as n from api_keys where id = any($1::text[]) and last_used_at is not null",
      [[a.id, b.id]],
    );
    expect(before[0]!.n).toBe(0);
    expect(await rt.lastUsed.flush()).toBeGreaterThanOrEqual(2);
    const after = await fx.db.query<{ id: string; ms: number }>(
      "select id, (extract(epoch from last_used_at) * 1000)::float8 as ms from api_keys where id = any($1::text[])",
      [[a.id, b.id]],
    );
    for (const r of after) expect(Math.abs(Date.now() - Number(r.ms))).toBeLessThan(60_000);
  });
});
