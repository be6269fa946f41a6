import { spawnSync } from "node:child_process";
import { readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { displayPrefix, hashApiKey, isWellFormedApiKey } from "@/lib/keys/format";
import { READ_SCOPES } from "@/lib/keys/scopes";
import { pgliteBackend, postgresBackend, type Backend } from "./backends";
import { lastLine, runScript } from "./run";

// The keys CLI run as a real child process, on a Postgres server database and on the embedded default.

function keyId(stdout: string): string {
  const m = /^\s*id:\s+(key_[0-9A-Za-z]+)\s*$/m.exec(stdout);
  if (!m) throw new Error(`no key id in:\n${stdout}`);
  return m[1]!;
}

function snapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(`${path.relative(dir, p)} ${statSync(p).size} ${statSync(p).mtimeMs}`);
    }
  };
  walk(dir);
  return out.sort();
}

function keysSuite(label: string, open: () => Promise<Backend>) {
  // Each step runs the CLI as a process (a PGlite boot each on the embedded default): slow on a loaded machine.
  describe(`keys CLI on ${label}`, { timeout: 240_000 }, () => {
    let b: Backend;
    const keys = (args: string[], env: Record<string, string> = {}) =>
      runScript("scripts/keys.ts", args, { ...b.env, ...env });
    let keyA = "";
    let idA = "";
    let keyB = "";
    let idB = "";

    beforeAll(async () => {
      b = await open();
    });
    afterAll(async () => {
      await b?.close();
    });

    it("prints help, and refuses bad usage with exit code 2 before touching the database", async () => {
      const help = await keys(["--help"]);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain("Usage: npm run keys");
      // The write preview is off: the help says nothing about writing.
      expect(help.stdout).not.toMatch(/write|preview/i);
      const bad = await Promise.all(
        [
          [],
          ["frobnicate"],
          ["create"],
          ["create", "--org", "acme", "--bogus"],
          ["create", "--org", "acme", "--expires-in", "tomorrow"],
          ["create", "--org", "acme", "--scopes", "products:read,orders:read"],
          ["create", "--org", "acme", "--scopes", "products:write"],
          ["revoke"],
        ].map((args) => keys(args)),
      );
      for (const r of bad) {
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toContain("npm run keys -- --help");
        expect(r.stdout).not.toMatch(/pca_/);
      }
      expect(bad[4]!.stderr).toContain("--expires-in");
      expect(bad[5]!.stderr).toContain('"orders:read"');
      expect(bad[6]!.stderr).toContain("PUBLIC_API_PREVIEW=writes");
    });

    it("refuses an unknown organization with exit code 1 and names it", async () => {
      const r = await keys(["create", "--org", "initech"]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('Unknown organization "initech"');
      expect(r.stderr).toContain("acme, globex");
    });

    it("creates keys: the key is the last line, well-formed, stored only as its SHA-256", async () => {
      const a = await keys(["create", "--org", "acme", "--name", "Integration A"]);
      expect(a.code, a.stderr).toBe(0);
      keyA = lastLine(a.stdout);
      expect(isWellFormedApiKey(keyA)).toBe(true);
      idA = keyId(a.stdout);
      expect(a.stdout).toMatch(/org:\s+acme/);
      expect(a.stdout).toContain(READ_SCOPES.join(", "));
      expect(a.stdout).toMatch(/expires:\s+never/);
      // The key appears once, on the last line only.
      expect(a.stdout.split(keyA)).toHaveLength(2);

      const before = Date.now();
      const bOut = await keys([
        "create",
        "--org",
        "acme",
        "--name",
        "Partner feed",
        "--scopes",
        "media:read, products:read",
        "--expires-in",
        "30d",
      ]);
      const after = Date.now();
      expect(bOut.code, bOut.stderr).toBe(0);
      keyB = lastLine(bOut.stdout);
      idB = keyId(bOut.stdout);
      expect(isWellFormedApiKey(keyB)).toBe(true);
      expect(keyB).not.toBe(keyA);

      await b.withDb(async (db) => {
        const rows = await db.query<Record<string, unknown>>(
          "select * from api_keys order by created_at, id",
        );
        expect(rows).toHaveLength(2);
        const dump = JSON.stringify(rows);
        for (const k of [keyA, keyB]) {
          expect(dump).not.toContain(k);
          expect(dump).not.toContain(k.slice(4, 34)); // the secret part either
        }
        const [ra, rb] = await Promise.all(
          [idA, idB].map(async (id) => {
            const [r] = await db.query<{
              org_id: string;
              name: string;
              key_hash: string;
              prefix: string;
              scopes: string[];
              expires_ms: number | null;
              revoked_at: unknown;
            }>(
              `select org_id, name, key_hash, prefix, scopes, revoked_at,
                      (extract(epoch from expires_at) * 1000)::float8 as expires_ms
                 from api_keys where id = $1`,
              [id],
            );
            return r!;
          }),
        );
        expect(ra).toMatchObject({
          org_id: "org_cli_acme",
          name: "Integration A",
          key_hash: hashApiKey(keyA),
          prefix: displayPrefix(keyA),
          scopes: [...READ_SCOPES],
          expires_ms: null,
          revoked_at: null,
        });
        expect(rb).toMatchObject({ key_hash: hashApiKey(keyB), scopes: ["products:read", "media:read"] });
        const thirtyDays = 30 * 86_400_000;
        expect(rb!.expires_ms).toBeGreaterThanOrEqual(before + thirtyDays - 1000);
        expect(rb!.expires_ms).toBeLessThanOrEqual(after + thirtyDays + 1000);
      });
    });

    it("lists the keys by display prefix, with scopes and status", async () => {
      const r = await keys(["list", "--org", "acme"]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).not.toContain(keyA);
      const lineA = r.stdout.split("\n").find((l) => l.startsWith(idA)) ?? "";
      const lineB = r.stdout.split("\n").find((l) => l.startsWith(idB)) ?? "";
      expect(lineA).toContain(`${displayPrefix(keyA)}…`);
      expect(lineA).toMatch(/Integration A\s+active\s+all read/);
      expect(lineB).toContain(`${displayPrefix(keyB)}…`);
      expect(lineB).toMatch(/Partner feed\s+active\s+products:read,media:read/);
      const other = await keys(["list", "--org", "globex"]);
      expect(other.code).toBe(0);
      expect(other.stdout).toContain("No API keys for globex");
    });

    it("revokes by full key and by id (only within --org when given); unknown keys exit 1", async () => {
      const wrongOrg = await keys(["revoke", idB, "--org", "globex"]);
      expect(wrongOrg.code).toBe(1);
      expect(wrongOrg.stderr).toContain("No API key matches");
      const unknown = await keys(["revoke", "key_doesnotexist00000"]);
      expect(unknown.code).toBe(1);

      const byKey = await keys(["revoke", keyA]);
      expect(byKey.code, byKey.stderr).toBe(0);
      expect(byKey.stdout).toContain(idA);
      const byId = await keys(["revoke", idB, "--org", "acme"]);
      expect(byId.code, byId.stderr).toBe(0);
      expect(byId.stdout).toContain(idB);

      const list = await keys(["list", "--org", "acme"]);
      expect(list.stdout.split("\n").filter((l) => /\srevoked\s/.test(l))).toHaveLength(2);
      await b.withDb(async (db) => {
        const rows = await db.query<{ id: string; revoked: boolean }>(
          "select id, revoked_at is not null as revoked from api_keys order by id",
        );
        expect(rows.every((r) => r.revoked)).toBe(true);
      });
    });

    it("grants products:write only with the write preview on", async () => {
      const r = await keys(["create", "--org", "globex", "--scopes", "products:write,products:read"], {
        PUBLIC_API_WRITE_PREVIEW: "true",
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain("products:read, products:write");
      const id = keyId(r.stdout);
      // One process at a time: the embedded database is opened by one process only.
      const on = { PUBLIC_API_WRITE_PREVIEW: "true" };
      const help = await keys(["--help"], on);
      const listed = await keys(["list", "--org", "globex"], on);
      // Without --scopes, a key gets the read scopes only, switch on or not.
      const plain = await keys(["create", "--org", "globex", "--name", "reader"], on);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/--scopes may also name products:write/);
      expect(listed.stdout.split("\n").find((l) => l.startsWith(id))).toMatch(
        /active\s+products:read,products:write\s/,
      );
      expect(plain.code, plain.stderr).toBe(0);
      expect(plain.stdout).toMatch(new RegExp(`scopes:\\s+${READ_SCOPES.join(", ")}\n`));
    });

    if (label.startsWith("the embedded")) {
      it("refuses to open the data folder while the server runs, and leaves it untouched", async () => {
        const pidFile = path.join(b.dataDir, "server.pid");
        const before = snapshot(path.join(b.dataDir, "pglite"));
        writeFileSync(pidFile, `${process.pid}\n`); // this test process: alive
        try {
          for (const args of [
            ["list", "--org", "acme"],
            ["create", "--org", "acme"],
          ]) {
            const r = await keys(args);
            expect(r.code).toBe(1);
            expect(r.stderr).toContain(`in use by the running server (pid ${process.pid})`);
            expect(r.stderr).toContain("Ctrl+C");
            expect(r.stderr).toContain("DATABASE_URL");
            expect(r.stdout).not.toMatch(/pca_/);
          }
          expect(snapshot(path.join(b.dataDir, "pglite"))).toEqual(before);

          // A pid file left by a server that died does not block.
          const dead = spawnSync(process.execPath, ["-e", ""]).pid;
          writeFileSync(pidFile, `${dead}\n`);
          const r = await keys(["list", "--org", "acme"]);
          expect(r.code, r.stderr).toBe(0);
        } finally {
          rmSync(pidFile, { force: true });
        }
      });
    } else {
      it("ignores server.pid when the database is a server (nothing to protect)", async () => {
        writeFileSync(path.join(b.dataDir, "server.pid"), `${process.pid}\n`);
        const r = await keys(["list", "--org", "acme"]);
        expect(r.code, r.stderr).toBe(0);
      });
    }
  });
}

keysSuite("a Postgres server (DATABASE_URL)", () => postgresBackend("keys"));
keysSuite("the embedded default (PGlite under DATA_DIR)", () => pgliteBackend("keys"));
