// Key changes broadcast to every instance (migration 0024, lib/keys/broadcast.ts): two instances, each a database
// handle with its own key cache, on one Postgres; a key revoked, rolled with no grace or deleted by a third writer
// (plain SQL, as the keys CLI or another instance writes) is forgotten by both caches long before their TTL (60 s
// here), an unrelated write is not heard, and an instance whose listening connection is lost forgets every key once it
// listens again. On PGlite, the process's own database, the same notification reaches its one cache.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPg, type Database } from "@/db/client";
import { KeyBroadcast } from "@/lib/keys/broadcast";
import { KeyCache, lookupKey } from "@/lib/keys/cache";
import { hashApiKey } from "@/lib/keys/format";
import { rollKey } from "@/lib/keys/store";
import { insertKey, setupApi, type ApiFixture } from "../support/api";

const TTL_MS = 60_000;

interface Instance {
  db: Database;
  cache: KeyCache;
  broadcast: KeyBroadcast;
}

// Waits until `done` holds, up to `ms`; true when it did.
async function until(done: () => boolean, ms = 5_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
  return true;
}

describe.each(["pg", "pglite"] as const)("key changes broadcast on %s", (driver) => {
  let fx: ApiFixture;
  let instances: Instance[] = [];

  async function instance(): Promise<Instance> {
    const db = driver === "pg" ? await openPg(fx.databaseUrl!, 2) : fx.db;
    const cache = new KeyCache(TTL_MS, 1000);
    const broadcast = new KeyBroadcast(cache);
    await broadcast.start(db);
    const made = { db, cache, broadcast };
    instances.push(made);
    return made;
  }

  // The key as each instance's cache holds it now: a record, or undefined once forgotten.
  const cached = (i: Instance, key: string) => i.cache.get(hashApiKey(key), Date.now());

  beforeAll(async () => {
    fx = await setupApi(driver);
  });
  afterAll(async () => {
    for (const i of instances) {
      await i.broadcast.stop();
      if (i.db !== fx.db) await i.db.close();
    }
    instances = [];
    await fx?.close();
  });

  it("a key revoked with SQL is forgotten by every instance, and read anew as revoked", async () => {
    const [a, b] = [await instance(), await instance()];
    const key = await insertKey(fx.db, fx.acme.orgId, ["products:read"]);
    for (const i of [a!, b!]) expect((await lookupKey(i.db, i.cache, key))?.revokedAt).toBeNull();
    expect(cached(a!, key)).toBeTruthy();
    await fx.db.query("update api_keys set revoked_at = now() where key_hash = $1", [hashApiKey(key)]);
    expect(await until(() => cached(a!, key) === undefined && cached(b!, key) === undefined)).toBe(true);
    for (const i of [a!, b!])
      expect((await lookupKey(i.db, i.cache, key))?.revokedAt).toEqual(expect.any(Number));
  });

  it("a roll with no grace and a deletion are heard; a write of last_used_at is not", async () => {
    const [a] = instances.length ? instances : [await instance()];
    const rolled = await insertKey(fx.db, fx.acme.orgId, ["products:read"]);
    const deleted = await insertKey(fx.db, fx.acme.orgId, ["products:read"]);
    const idle = await insertKey(fx.db, fx.acme.orgId, ["products:read"]);
    for (const k of [rolled, deleted, idle]) await lookupKey(a!.db, a!.cache, k);
    const heard = a!.broadcast.heard;
    await fx.db.query("update api_keys set last_used_at = now() where key_hash = $1", [hashApiKey(idle)]);
    const [row] = await fx.db.query<{ id: string }>("select id from api_keys where key_hash = $1", [
      hashApiKey(rolled),
    ]);
    await rollKey(fx.db, fx.acme.orgId, row!.id, 0);
    await fx.db.query("delete from api_keys where key_hash = $1", [hashApiKey(deleted)]);
    expect(await until(() => cached(a!, rolled) === undefined && cached(a!, deleted) === undefined)).toBe(
      true,
    );
    // Both heard (maybe a third for the successor's own row, never for last_used_at): the idle key stays cached.
    expect(a!.broadcast.heard - heard).toBeGreaterThanOrEqual(2);
    expect(cached(a!, idle)).toBeTruthy();
    expect((await lookupKey(a!.db, a!.cache, rolled))?.expiresAt).toBeLessThanOrEqual(Date.now());
    expect(await lookupKey(a!.db, a!.cache, deleted)).toBeNull();
  });
});

// PGlite is the process's own database: its listening never breaks (db/client.ts), so this case is Postgres's alone.
describe("key changes broadcast on pg, the listening connection lost", () => {
  let fx: ApiFixture;
  let a: Instance;

  beforeAll(async () => {
    fx = await setupApi("pg");
    const db = await openPg(fx.databaseUrl!, 2);
    const cache = new KeyCache(TTL_MS, 1000);
    a = { db, cache, broadcast: new KeyBroadcast(cache) };
    await a.broadcast.start(db);
  });
  afterAll(async () => {
    await a?.broadcast.stop();
    await a?.db.close();
    await fx?.close();
  });
  const cached = (i: Instance, key: string) => i.cache.get(hashApiKey(key), Date.now());

  it("forgets every key once it listens again, then hears revocations as before", async () => {
    const key = await insertKey(fx.db, fx.acme.orgId, ["products:read"]);
    await lookupKey(a.db, a.cache, key);
    expect(a.cache.size).toBeGreaterThan(0);
    const resets = a.broadcast.resets;
    // Every listening connection of this database is cut (the server restarted, a network blip).
    await fx.db.query(
      `select pg_terminate_backend(pid) from pg_stat_activity
        where datname = current_database() and query like 'LISTEN %' and pid <> pg_backend_pid()`,
    );
    expect(await until(() => a.broadcast.resets > resets, 15_000)).toBe(true);
    expect(cached(a, key)).toBeUndefined();
    // Listening again: a revocation is heard as before.
    await lookupKey(a.db, a.cache, key);
    await fx.db.query("update api_keys set revoked_at = now() where key_hash = $1", [hashApiKey(key)]);
    expect(await until(() => cached(a, key) === undefined)).toBe(true);
  });
});
