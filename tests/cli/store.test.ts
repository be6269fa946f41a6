import { mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createApiKey,
  findOrganizationBySlug,
  InvalidScopeError,
  listApiKeys,
  revokeApiKey,
  validateScopes,
} from "@/lib/keys/store";
import { openPglite, type Database } from "@/db/client";
import { migrate } from "@/db/migrate";
import {
  addMembership,
  createUser,
  findUserByEmail,
  verifyPassword,
  verifyUserCredentials,
} from "@/db/users";
import { findKeyByHash } from "@/lib/keys/cache";
import { readDemoKeys, type DemoUser } from "@/lib/keys/demo-keys";
import { hashApiKey, isWellFormedApiKey } from "@/lib/keys/format";
import { READ_SCOPES } from "@/lib/keys/scopes";
import { buildReason } from "@/scripts/lib/build";
import { parseDuration } from "@/scripts/lib/duration";
import { DEMO_USERS, describeStartData, prepareStartData, type SeedDemo } from "@/scripts/lib/first-start";
import { removePidFile, runningServerPid, writePidFile } from "@/scripts/lib/pid-file";

// The key and user store (lib/keys/store.ts, db/users.ts) and the start script's parts, on in-memory PGlite.

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
let db: Database;

async function addOrg(slug: string): Promise<string> {
  const id = `org_store_${slug}`;
  await db.query("insert into organizations (id, slug, name) values ($1, $2, $2) on conflict do nothing", [
    id,
    slug,
  ]);
  return id;
}

beforeAll(async () => {
  db = await openPglite("memory://");
  await migrate(db);
});
afterAll(async () => {
  await db?.close();
});

describe("lib/keys/store", () => {
  it("validates scopes: known ones only, write only with the preview, never empty; portal order", () => {
    expect(validateScopes(["media:read", "products:read", "media:read"])).toEqual([
      "products:read",
      "media:read",
    ]);
    expect(() => validateScopes(["products:read", "orders:read"])).toThrow(/Unknown scope "orders:read"/);
    expect(() => validateScopes(["products:write"])).toThrow(InvalidScopeError);
    expect(validateScopes(["products:write"], true)).toEqual(["products:write"]);
    expect(() => validateScopes([" ", ""])).toThrow(/At least one scope/);
  });

  it("creates a key with every read scope by default, stored as its hash, timestamps in ISO with ms", async () => {
    const orgId = await addOrg("acme");
    const k = await createApiKey(db, { orgId, name: "  Default  " });
    expect(isWellFormedApiKey(k.key)).toBe(true);
    expect(k).toMatchObject({ name: "Default", scopes: [...READ_SCOPES], expiresAt: null });
    expect(k.id).toMatch(/^key_[0-9A-Za-z]{16}$/);
    expect(k.prefix).toBe(k.key.slice(0, 12));
    expect(k.createdAt).toMatch(ISO_MS);
    const [row] = await db.query<{ key_hash: string }>("select key_hash from api_keys where id = $1", [k.id]);
    expect(row!.key_hash).toBe(hashApiKey(k.key));
    // The pipeline finds it by hash.
    expect(await findKeyByHash(db, hashApiKey(k.key))).toMatchObject({ id: k.id, orgId, orgSlug: "acme" });
  });

  it("refuses unknown scopes, bad names and unknown organizations", async () => {
    const orgId = await addOrg("acme");
    await expect(createApiKey(db, { orgId, name: "x", scopes: ["nope:read"] })).rejects.toThrow(
      /"nope:read"/,
    );
    await expect(createApiKey(db, { orgId, name: " " })).rejects.toThrow(/name/);
    await expect(createApiKey(db, { orgId: "org_missing", name: "x" })).rejects.toThrow();
  });

  it("lists keys newest first with status active / expired / revoked", async () => {
    const orgId = await addOrg("listing");
    const active = await createApiKey(db, {
      orgId,
      name: "active",
      expiresAt: new Date(Date.now() + 3_600_000),
    });
    const expired = await createApiKey(db, {
      orgId,
      name: "expired",
      expiresAt: new Date(Date.now() - 1000),
    });
    const revoked = await createApiKey(db, { orgId, name: "revoked", scopes: ["families:read"] });
    await revokeApiKey(db, revoked.id);
    await db.query("update api_keys set last_used_at = now() where id = $1", [active.id]);
    // created_at keeps milliseconds: keys made within one millisecond tie (then the random id decides), so the
    // test spaces them one second apart to check the order.
    for (const [i, k] of [active, expired, revoked].entries()) {
      await db.query("update api_keys set created_at = now() - make_interval(secs => $2) where id = $1", [
        k.id,
        3 - i,
      ]);
    }
    const list = await listApiKeys(db, orgId);
    expect(list.map((k) => [k.name, k.status])).toEqual([
      ["revoked", "revoked"],
      ["expired", "expired"],
      ["active", "active"],
    ]);
    const a = list.find((k) => k.id === active.id)!;
    expect(a.expiresAt).toMatch(ISO_MS);
    expect(a.lastUsedAt).toMatch(ISO_MS);
    expect(a.revokedAt).toBeNull();
    expect(list.find((k) => k.id === revoked.id)!).toMatchObject({ scopes: ["families:read"] });
    expect(list.find((k) => k.id === revoked.id)!.revokedAt).toMatch(ISO_MS);
    expect(JSON.stringify(list)).not.toContain(active.key);
    expect(expired.expiresAt! < new Date().toISOString()).toBe(true);
    expect(await listApiKeys(db, "org_nobody")).toEqual([]);
  });

  it("revokes by key or id, within an organization when given; keeps the first revocation time", async () => {
    const acme = await addOrg("acme");
    const globex = await addOrg("globex");
    const k1 = await createApiKey(db, { orgId: acme, name: "k1" });
    const k2 = await createApiKey(db, { orgId: acme, name: "k2" });
    expect(await revokeApiKey(db, k1.id, globex)).toBeNull();
    expect(await revokeApiKey(db, "pca_notakey")).toBeNull();
    expect(await revokeApiKey(db, "key_unknown")).toBeNull();
    const r1 = await revokeApiKey(db, k1.key);
    expect(r1).toMatchObject({ id: k1.id, orgId: acme, status: "revoked" });
    const again = await revokeApiKey(db, k1.id);
    expect(again!.revokedAt).toBe(r1!.revokedAt);
    expect(await revokeApiKey(db, ` ${k2.id} `, acme)).toMatchObject({ id: k2.id, status: "revoked" });
    expect((await findKeyByHash(db, hashApiKey(k2.key)))!.revokedAt).not.toBeNull();
  });

  it("finds organizations by slug", async () => {
    const id = await addOrg("acme");
    expect(await findOrganizationBySlug(db, "acme")).toEqual({ id, slug: "acme", name: "acme" });
    expect(await findOrganizationBySlug(db, "ACME")).toBeNull();
  });
});

describe("db/users", () => {
  it("hashes passwords with scrypt and a salt, and verifies them", async () => {
    const u = await createUser(db, {
      email: " Alice@Example.COM ",
      name: "Alice",
      password: "correct horse",
    });
    expect(u).toMatchObject({ email: "alice@example.com", name: "Alice", isStaff: false });
    expect(u.createdAt).toMatch(ISO_MS);
    const stored = (await findUserByEmail(db, "ALICE@example.com"))!;
    expect(stored.passwordHash).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(stored.passwordHash).not.toContain("correct horse");
    expect(await verifyPassword("correct horse", stored.passwordHash)).toBe(true);
    expect(await verifyPassword("correct horsE", stored.passwordHash)).toBe(false);
    expect(await verifyPassword("correct horse", "scrypt$1$2$3$$")).toBe(false);
    expect(await verifyPassword("correct horse", null)).toBe(false);
    const bob = await createUser(db, { email: "bob@example.com", name: "Bob", password: "correct horse" });
    const bobHash = (await findUserByEmail(db, bob.email))!.passwordHash;
    expect(bobHash).not.toBe(stored.passwordHash); // salted
    expect(await verifyUserCredentials(db, "alice@example.com", "correct horse")).toMatchObject({ id: u.id });
    expect(await verifyUserCredentials(db, "alice@example.com", "wrong password")).toBeNull();
    expect(await verifyUserCredentials(db, "nobody@example.com", "correct horse")).toBeNull();
    await expect(
      createUser(db, { email: "alice@example.com", name: "A", password: "12345678" }),
    ).rejects.toThrow();
    await expect(createUser(db, { email: "x@y", name: "X", password: "short" })).rejects.toThrow(
      /8 characters/,
    );
  });

  it("adds memberships and updates the role of an existing member", async () => {
    const orgId = await addOrg("members");
    const u = await createUser(db, { email: "carol@example.com", name: "Carol", password: "password1" });
    await addMembership(db, { userId: u.id, orgId, role: "member" });
    await addMembership(db, { userId: u.id, orgId, role: "admin" });
    expect(await db.query("select role from memberships where user_id = $1", [u.id])).toEqual([
      { role: "admin" },
    ]);
  });
});

describe("first start (prepareStartData)", () => {
  const seedTwoOrgs: SeedDemo = async (target, opts) => {
    const orgs = [];
    for (const [i, slug] of ["acme", "globex"].entries()) {
      const orgId = `org_demo_${slug}`;
      await target.query("insert into organizations (id, slug, name) values ($1, $2, $2)", [orgId, slug]);
      opts?.onProgress?.({ step: "organizations", done: i + 1, total: 2 });
      orgs.push({ slug, orgId });
    }
    return { orgs };
  };

  it("seeds an empty embedded database once: demo keys, four demo accounts with generated passwords, 0600 demo file", async () => {
    const fresh = await openPglite("memory://");
    const dataDir = mkdtempSync(path.join(tmpdir(), "first-start-"));
    try {
      await migrate(fresh);
      const lines: string[] = [];
      const data = await prepareStartData(
        fresh,
        { DEMO_SEED: "auto", DATA_DIR: dataDir },
        { seed: async () => seedTwoOrgs, log: (l) => lines.push(l) },
      );
      if (data.kind !== "seeded") throw new Error(`expected seeded, got ${data.kind}`);
      expect(lines.join("\n")).toContain("seeding organizations 100% (2/2)");
      expect(data.keys.map((k) => k.org)).toEqual(["acme", "globex"]);
      for (const k of data.keys) {
        expect(isWellFormedApiKey(k.key)).toBe(true);
        expect(await findKeyByHash(fresh, hashApiKey(k.key))).toMatchObject({
          orgSlug: k.org,
          revokedAt: null,
        });
        expect(k).toMatchObject({ name: "Demo key", scopes: [...READ_SCOPES] });
      }
      const file = path.join(dataDir, "demo-keys.json");
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readDemoKeys(dataDir)!.keys).toEqual(data.keys);
      expect(JSON.parse(readFileSync(file, "utf8")).keys[0].key).toBe(data.keys[0]!.key);

      // Four accounts with generated passwords: acme's owner, globex's owner, an acme member, the product team.
      expect(data.users.map(({ password: _p, ...u }) => u)).toEqual([
        { email: "owner@acme.example", name: "Acme owner", org: "acme", role: "owner", isStaff: false },
        { email: "owner@globex.example", name: "Globex owner", org: "globex", role: "owner", isStaff: false },
        { email: "member@acme.example", name: "Acme member", org: "acme", role: "member", isStaff: false },
        { email: "team@catalog.example", name: "Product team", org: null, role: null, isStaff: true },
      ]);
      expect(data.users.map((u) => u.email)).toEqual(DEMO_USERS.map((u) => u.email));
      expect(new Set(data.users.map((u) => u.password)).size).toBe(4);
      const saved = readDemoKeys(dataDir)!.users!;
      expect(saved).toEqual(data.users);
      const memberships = await fresh.query<{ email: string; slug: string; role: string }>(
        `select u.email, o.slug, m.role from memberships m join users u on u.id = m.user_id
           join organizations o on o.id = m.org_id order by u.email, o.slug`,
      );
      expect(memberships).toEqual([
        { email: "member@acme.example", slug: "acme", role: "member" },
        { email: "owner@acme.example", slug: "acme", role: "owner" },
        { email: "owner@globex.example", slug: "globex", role: "owner" },
      ]);
      for (const u of saved) {
        expect(u.password).toMatch(/^[A-Za-z0-9_-]{16}$/);
        const user = await verifyUserCredentials(fresh, u.email, u.password);
        expect(user, u.email).toMatchObject({ email: u.email, isStaff: u.isStaff });
        expect(await verifyUserCredentials(fresh, u.email, `${u.password}x`)).toBeNull();
      }
      // Each demo key was created by its organization's owner.
      const creators = await fresh.query<{ slug: string; email: string }>(
        `select o.slug, u.email from api_keys k join organizations o on o.id = k.org_id
           join users u on u.id = k.created_by order by o.slug`,
      );
      expect(creators).toEqual([
        { slug: "acme", email: "owner@acme.example" },
        { slug: "globex", email: "owner@globex.example" },
      ]);

      // What npm start prints: the console, acme's owner and the product team with their passwords, and the file.
      const config = { dbDriver: "pglite" as const, DATA_DIR: dataDir, baseUrl: "http://localhost:3000" };
      const printed = describeStartData(config, data);
      const [acmeOwner, globexOwner, member, team] = data.users as [DemoUser, DemoUser, DemoUser, DemoUser];
      expect(printed).toContain("http://localhost:3000/console");
      expect(printed).toMatch(
        new RegExp(`owner@acme\\.example\\s+${acmeOwner.password}\\s+\\(owner of acme\\)`),
      );
      expect(printed).toMatch(
        new RegExp(`team@catalog\\.example\\s+${team.password}\\s+\\(product team, staff\\)`),
      );
      expect(printed).not.toContain(globexOwner.password);
      expect(printed).not.toContain(member.password);
      expect(printed).toContain(`in ${data.keysFile} (mode 0600`);
      expect(printed).toContain(
        "also owner@globex.example (owner of globex), member@acme.example (member of acme).",
      );
      for (const k of data.keys) expect(printed).toContain(k.key);
      expect(describeStartData(config, { kind: "existing", orgSlugs: ["acme", "globex"] })).toContain(
        `Demo keys and accounts of the first start (emails and passwords): ${data.keysFile}`,
      );

      // A later start reuses the data and seeds nothing.
      let seededAgain = false;
      const later = await prepareStartData(
        fresh,
        { DEMO_SEED: "auto", DATA_DIR: dataDir },
        { seed: async () => ((seededAgain = true), seedTwoOrgs), log: () => undefined },
      );
      expect(later).toEqual({ kind: "existing", orgSlugs: ["acme", "globex"] });
      expect(seededAgain).toBe(false);
    } finally {
      await fresh.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("never seeds with DEMO_SEED=never, nor a server database", async () => {
    const fresh = await openPglite("memory://");
    try {
      await migrate(fresh);
      const never = () => Promise.reject(new Error("must not seed"));
      const opts = { DEMO_SEED: "never" as const, DATA_DIR: "/nonexistent" };
      expect(await prepareStartData(fresh, opts, { seed: never })).toEqual({
        kind: "empty",
        reason: "never",
      });
      const asServer: Database = { ...fresh, driver: "pg" };
      expect(await prepareStartData(asServer, { ...opts, DEMO_SEED: "auto" }, { seed: never })).toEqual({
        kind: "empty",
        reason: "server",
      });
    } finally {
      await fresh.close();
    }
  });
});

describe("start script helpers", () => {
  it("parses --expires-in durations", () => {
    expect(parseDuration("30s")).toBe(30_000);
    expect(parseDuration("90m")).toBe(90 * 60_000);
    expect(parseDuration("12h")).toBe(12 * 3_600_000);
    expect(parseDuration("30d")).toBe(30 * 86_400_000);
    expect(parseDuration("2w")).toBe(14 * 86_400_000);
    for (const bad of ["0d", "30", "d", "1.5h", "-1d", "30 days", ""]) expect(parseDuration(bad)).toBeNull();
  });

  it("tracks the running server through server.pid (live pid only)", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "pid-"));
    try {
      expect(runningServerPid(dir)).toBeNull();
      writePidFile(dir, process.ppid);
      expect(runningServerPid(dir)).toBe(process.ppid);
      writeFileSync(path.join(dir, "server.pid"), "not a pid");
      expect(runningServerPid(dir)).toBeNull();
      writeFileSync(path.join(dir, "server.pid"), "2147483646\n");
      expect(runningServerPid(dir)).toBeNull();
      writePidFile(dir, process.ppid);
      removePidFile(dir, 12345); // not ours: kept
      expect(runningServerPid(dir)).toBe(process.ppid);
      removePidFile(dir, process.ppid);
      expect(runningServerPid(dir)).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("asks for a build when BUILD_ID is missing or older than a source file", () => {
    const root = mkdtempSync(path.join(tmpdir(), "build-"));
    try {
      mkdirSync(path.join(root, "app", "deep"), { recursive: true });
      mkdirSync(path.join(root, ".next"));
      writeFileSync(path.join(root, "package.json"), "{}");
      writeFileSync(path.join(root, "app", "deep", "page.tsx"), "");
      expect(buildReason(root)).toMatch(/BUILD_ID is missing/);
      const t = Date.now() / 1000;
      writeFileSync(path.join(root, ".next", "BUILD_ID"), "x");
      utimesSync(path.join(root, ".next", "BUILD_ID"), t, t);
      utimesSync(path.join(root, "package.json"), t - 60, t - 60);
      utimesSync(path.join(root, "app", "deep", "page.tsx"), t - 60, t - 60);
      // The server's own compiled modules are part of the build.
      expect(buildReason(root)).toBe(".next/server-bundle/server.mjs is missing");
      mkdirSync(path.join(root, ".next", "server-bundle"));
      writeFileSync(path.join(root, ".next", "server-bundle", "server.mjs"), "");
      // Each of them: the webhooks' worker too.
      expect(buildReason(root)).toBe(".next/server-bundle/webhooks-worker.mjs is missing");
      writeFileSync(path.join(root, ".next", "server-bundle", "webhooks-worker.mjs"), "");
      expect(buildReason(root)).toBeNull();
      utimesSync(path.join(root, "app", "deep", "page.tsx"), t + 5, t + 5);
      expect(buildReason(root)).toBe(`${path.join("app", "deep", "page.tsx")} changed after the last build`);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
