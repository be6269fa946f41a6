import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startConsoleSession } from "@/db/console-sessions";
import { findUserByEmail, verifyUserCredentials } from "@/db/users";
import { pgliteBackend, postgresBackend, type Backend } from "./backends";
import { lastLine, runScript } from "./run";

// The users CLI run as a real child process, on a Postgres server database and on the embedded default.

function usersSuite(label: string, open: () => Promise<Backend>) {
  // Each step runs the CLI as a process (a PGlite boot each on the embedded default): slow on a loaded machine.
  describe(`users CLI on ${label}`, { timeout: 240_000 }, () => {
    let b: Backend;
    const users = (args: string[], input?: string) =>
      runScript("scripts/users.ts", args, b.env, 60_000, input);
    const verify = (email: string, password: string) =>
      b.withDb((db) => verifyUserCredentials(db, email, password));
    const rolesOf = (email: string) =>
      b.withDb((db) =>
        db.query<{ slug: string; role: string }>(
          `select o.slug, m.role from memberships m join organizations o on o.id = m.org_id
             join users u on u.id = m.user_id where u.email = $1 order by o.slug`,
          [email],
        ),
      );
    let ownerPassword = "";
    // A console session of the account started now (as a sign-in does), and how many of its sessions are live (a
    // password reset and a weaker role end them).
    const startSession = (email: string) =>
      b.withDb(async (db) => {
        const user = await findUserByEmail(db, email);
        return startConsoleSession(db, {
          userId: user!.id,
          ipAddress: "10.0.0.1",
          userAgent: "",
          maxAgeSeconds: 3600,
        });
      });
    const liveSessions = (email: string) =>
      b.withDb(async (db) => {
        const [row] = await db.query<{ n: number }>(
          `select count(*)::int as n from console_sessions s join users u on u.id = s.user_id
            where u.email = $1 and s.ended_at is null`,
          [email],
        );
        return row!.n;
      });

    beforeAll(async () => {
      b = await open();
    });
    afterAll(async () => {
      await b?.close();
    });

    it("prints help, and refuses bad usage with exit code 2 before touching the database", async () => {
      const help = await users(["--help"]);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain("Usage: npm run users");
      const cases: [string[], string | undefined, string][] = [
        [[], undefined, "missing command"],
        [["frobnicate"], undefined, 'unknown command "frobnicate"'],
        [["create", "--name", "X"], undefined, "create needs --email"],
        [["create", "--email", "x@acme.example"], undefined, "create needs --name"],
        [["create", "--email", "not-an-email", "--name", "X"], undefined, "is not an email address"],
        [
          ["create", "--email", "x@acme.example", "--name", "X", "--org", "acme"],
          undefined,
          "--org and --role",
        ],
        [
          ["create", "--email", "x@acme.example", "--name", "X", "--org", "acme", "--role", "boss"],
          undefined,
          '--role "boss": expected one of owner, admin, member',
        ],
        [
          ["create", "--email", "x@acme.example", "--name", "X", "--password-stdin"],
          "short12\n",
          "at least 8",
        ],
        [
          ["create", "--email", "x@acme.example", "--name", "X", "--password-stdin"],
          "",
          "standard input was empty",
        ],
        [["create", "--email", "x@acme.example", "--name", "X", "--bogus"], undefined, "--bogus"],
        [["add", "--email", "x@acme.example", "--org", "acme"], undefined, "add needs --role"],
        [["add", "--email", "x@acme.example", "--org", "acme", "--role", "king"], undefined, '"king"'],
        [["reset-password"], undefined, "reset-password needs --email"],
        [
          ["reset-password", "--email", "x@acme.example", "--role", "owner"],
          undefined,
          "does not take --role",
        ],
      ];
      const results = await Promise.all(cases.map(([args, input]) => users(args, input)));
      results.forEach((r, i) => {
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toContain(cases[i]![2]);
        expect(r.stderr).toContain("npm run users -- --help");
        expect(r.stdout).toBe("");
      });
      await b.withDb(async (db) => expect(await db.query("select id from users")).toEqual([]));
    });

    it("creates an owner with a generated password, printed once as the last line, that verifies", async () => {
      const r = await users([
        "create",
        "--email",
        "Owner@Acme.example",
        "--name",
        "Acme Owner",
        "--org",
        "acme",
        "--role",
        "owner",
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('Created user "Acme Owner".');
      expect(r.stdout).toMatch(/email:\s+owner@acme\.example/);
      expect(r.stdout).toMatch(/member:\s+acme \(owner\)/);
      expect(r.stdout).toMatch(/staff:\s+no/);
      ownerPassword = lastLine(r.stdout);
      expect(ownerPassword).toMatch(/^[A-Za-z0-9_-]{16}$/);
      expect(r.stdout.split(ownerPassword)).toHaveLength(2);
      expect(await verify("owner@acme.example", ownerPassword)).toMatchObject({ isStaff: false });
      expect(await verify("owner@acme.example", `${ownerPassword}x`)).toBeNull();
      expect(await rolesOf("owner@acme.example")).toEqual([{ slug: "acme", role: "owner" }]);
      await b.withDb(async (db) => {
        const dump = JSON.stringify(await db.query("select * from users"));
        expect(dump).not.toContain(ownerPassword);
      });
    });

    it("creates a staff account with the password from standard input (not printed)", async () => {
      const password = "correct horse battery staple";
      const r = await users(
        [
          "create",
          "--email",
          "team@catalog.example",
          "--name",
          "Product team",
          "--staff",
          "--password-stdin",
        ],
        `${password}\n`,
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/staff:\s+yes/);
      expect(r.stdout).toMatch(/member:\s+of no organization/);
      expect(r.stdout).toContain("standard input");
      expect(r.stdout).not.toContain(password);
      expect(await verify("team@catalog.example", password)).toMatchObject({ isStaff: true });
      expect(await rolesOf("team@catalog.example")).toEqual([]);
    });

    it("refuses a duplicate email, an unknown organization and an unknown user with exit code 1", async () => {
      const dup = await users(["create", "--email", "OWNER@acme.example", "--name", "Again"]);
      expect(dup.code).toBe(1);
      expect(dup.stderr).toContain('A user with the email "owner@acme.example" already exists');
      expect(dup.stdout).toBe("");

      const org = await users([
        "create",
        "--email",
        "new@initech.example",
        "--name",
        "New",
        "--org",
        "initech",
        "--role",
        "member",
      ]);
      expect(org.code).toBe(1);
      expect(org.stderr).toContain('Unknown organization "initech". Organizations: acme, globex.');
      const addOrg = await users([
        "add",
        "--email",
        "owner@acme.example",
        "--org",
        "initech",
        "--role",
        "admin",
      ]);
      expect(addOrg.code).toBe(1);
      expect(addOrg.stderr).toContain('Unknown organization "initech"');

      for (const args of [
        ["add", "--email", "nobody@acme.example", "--org", "acme", "--role", "member"],
        ["reset-password", "--email", "nobody@acme.example"],
      ]) {
        const r = await users(args);
        expect(r.code).toBe(1);
        expect(r.stderr).toContain('Unknown user "nobody@acme.example"');
      }
      // Nothing half-made: the refused create left no account behind.
      await b.withDb(async (db) =>
        expect(await db.query("select email from users order by email")).toEqual([
          { email: "owner@acme.example" },
          { email: "team@catalog.example" },
        ]),
      );
    });

    it("adds a membership, changes its role, and says when nothing changed", async () => {
      const added = await users([
        "add",
        "--email",
        "owner@acme.example",
        "--org",
        "globex",
        "--role",
        "member",
      ]);
      expect(added.code, added.stderr).toBe(0);
      expect(added.stdout).toContain("Added owner@acme.example to globex as member.");
      const changed = await users([
        "add",
        "--email",
        "owner@acme.example",
        "--org",
        "globex",
        "--role",
        "admin",
      ]);
      expect(changed.code, changed.stderr).toBe(0);
      expect(changed.stdout).toContain("from member to admin");
      expect(changed.stdout).not.toContain("sessions have ended");
      await startSession("owner@acme.example");
      const live = await liveSessions("owner@acme.example");
      expect(live).toBeGreaterThan(0);
      const same = await users([
        "add",
        "--email",
        "owner@acme.example",
        "--org",
        "globex",
        "--role",
        "admin",
      ]);
      expect(same.code, same.stderr).toBe(0);
      expect(same.stdout).toContain("nothing changed");
      expect(await liveSessions("owner@acme.example")).toBe(live);
      // A weaker role ends the account's console sessions.
      const demoted = await users([
        "add",
        "--email",
        "owner@acme.example",
        "--org",
        "globex",
        "--role",
        "member",
      ]);
      expect(demoted.code, demoted.stderr).toBe(0);
      expect(demoted.stdout).toContain("from admin to member");
      expect(demoted.stdout).toContain("Its console sessions have ended.");
      expect(await liveSessions("owner@acme.example")).toBe(0);
      await users(["add", "--email", "owner@acme.example", "--org", "globex", "--role", "admin"]);
      expect(await rolesOf("owner@acme.example")).toEqual([
        { slug: "acme", role: "owner" },
        { slug: "globex", role: "admin" },
      ]);
    });

    it("resets a password: a new generated one verifies, the old one no longer does, and the sessions end", async () => {
      await startSession("owner@acme.example");
      expect(await liveSessions("owner@acme.example")).toBe(1);
      const r = await users(["reset-password", "--email", "owner@acme.example"]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain("New password set for owner@acme.example.");
      expect(r.stdout).toContain("Its console sessions have ended.");
      expect(await liveSessions("owner@acme.example")).toBe(0);
      const fresh = lastLine(r.stdout);
      expect(fresh).toMatch(/^[A-Za-z0-9_-]{16}$/);
      expect(fresh).not.toBe(ownerPassword);
      expect(await verify("owner@acme.example", fresh)).not.toBeNull();
      expect(await verify("owner@acme.example", ownerPassword)).toBeNull();

      const piped = await users(
        ["reset-password", "--email", "owner@acme.example", "--password-stdin"],
        "s3cret-enough\r\n",
      );
      expect(piped.code, piped.stderr).toBe(0);
      expect(await verify("owner@acme.example", "s3cret-enough")).not.toBeNull();
      expect(await verify("owner@acme.example", fresh)).toBeNull();
    });

    if (label.startsWith("the embedded")) {
      it("refuses to open the data folder while the server runs", async () => {
        const pidFile = path.join(b.dataDir, "server.pid");
        writeFileSync(pidFile, `${process.pid}\n`); // this test process: alive
        try {
          const r = await users(["reset-password", "--email", "owner@acme.example"]);
          expect(r.code).toBe(1);
          expect(r.stderr).toContain(`in use by the running server (pid ${process.pid})`);
          expect(r.stdout).toBe("");
        } finally {
          rmSync(pidFile, { force: true });
        }
      });
    }
  });
}

usersSuite("a Postgres server (DATABASE_URL)", () => postgresBackend("users"));
usersSuite("the embedded default (PGlite under DATA_DIR)", () => pgliteBackend("users"));
