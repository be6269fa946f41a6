// `npm run demo:activity` as a real child process, on a Postgres server database and on the embedded default: a few
// changes of a small seeded catalog, each printed with its cursors, land in the change log (catalog_change_commits
// and the objects of catalog_changes) with a delete among them; Ctrl-C stops it between two changes; an embedded
// database held by a running server is refused with what to do instead.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedOrganization } from "@/db/seed";
import { pgliteBackend, postgresBackend, type Backend } from "./backends";
import { cleanEnv, ROOT, runScript } from "./run";

const SCRIPT = "scripts/demo-activity.ts";

// A printed change: its object and its cursors.
interface Line {
  type: string;
  id: string;
  text: string;
  first: string;
  last: string;
}

function lines(stdout: string): Line[] {
  return stdout
    .trim()
    .split("\n")
    .map((l) => {
      const m = /^\S+ {2}#\d+ {2}(\w+) (\S+) {2}(.*) {2}\(cursors? (\d+)(?:-(\d+))?\)$/.exec(l);
      if (!m) throw new Error(`not a change line: ${l}`);
      return { type: m[1]!, id: m[2]!, text: m[3]!, first: m[4]!, last: m[5] ?? m[4]! };
    });
}

function suite(label: string, open: () => Promise<Backend>) {
  describe(`demo:activity on ${label}`, { timeout: 180_000 }, () => {
    let b: Backend;
    let orgId = "";

    beforeAll(async () => {
      b = await open();
      // acme exists without a catalog (backends.ts): a small one of its own.
      orgId = await b.withDb(
        async (db) => (await seedOrganization(db, { slug: "acme", name: "Acme", products: 20 })).orgId,
      );
    });
    afterAll(async () => {
      await b?.close();
    });

    it("prints each change with its cursors, and each lands in the change log, a delete included", async () => {
      const r = await runScript(
        SCRIPT,
        ["--org", "acme", "--rate", "50", "--count", "8", "--seed", "7"],
        b.env,
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain("8 change(s) in");
      const printed = lines(r.stdout);
      expect(printed).toHaveLength(8);
      expect(printed.some((l) => l.text.startsWith("deleted "))).toBe(true);
      await b.withDb(async (db) => {
        for (const l of printed) {
          // The transaction's commit row, and its events name the object printed.
          const events = await db.query<{ type: string; id: string }>(
            `select ch.type, ch.id from catalog_change_commits cm
               join catalog_changes ch on ch.org_id = cm.org_id and ch.txid = cm.txid
                and ch.ordinal between cm.ord_from and cm.ord_to
              where cm.org_id = $1 and cm.first_cursor = $2 and cm.last_cursor = $3`,
            [orgId, l.first, l.last],
          );
          expect(events.length, l.text).toBe(Number(l.last) - Number(l.first) + 1);
          expect(events, l.text).toContainEqual({ type: l.type, id: l.id });
        }
        const deleted = printed.find((l) => l.text.startsWith("deleted "))!;
        const [gone] = await db.query<{ n: number }>(
          "select count(*)::int as n from products where id = $1",
          [deleted.id],
        );
        expect(gone!.n).toBe(0);
      });
    });

    it("stops between two changes on Ctrl-C", async () => {
      // The npm script's command, in a process group of its own that gets the SIGINT as a terminal's Ctrl-C sends
      // it (to every process of the group). node runs it without tsx's CLI, whose relay kills a child that does not
      // acknowledge a signal within 60 ms: PGlite's statements keep the event loop busy longer than that.
      const command = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).scripts[
        "demo:activity"
      ];
      expect(command).toBe(`node --import tsx ${SCRIPT}`);
      const child = spawn(process.execPath, ["--import", "tsx", SCRIPT, "--org", "acme", "--rate", "5"], {
        cwd: ROOT,
        env: cleanEnv(b.env),
        detached: true,
      });
      let stdout = "";
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      const exit = new Promise<number | null>((resolve) => child.on("close", resolve));
      await new Promise<void>((resolve) =>
        child.stdout.on("data", (d: Buffer) => {
          stdout += d.toString();
          if (stdout.split("\n").length > 2) resolve();
        }),
      );
      process.kill(-child.pid!, "SIGINT");
      expect(await exit, stderr).toBe(0);
      const printed = lines(stdout);
      expect(printed.length).toBeGreaterThanOrEqual(2);
      expect(stderr).toContain(`${printed.length} change(s) in`);
    });
  });
}

suite("a Postgres server", () => postgresBackend("activity"));
suite("the embedded PGlite", () => pgliteBackend("activity"));

describe("demo:activity's refusals", () => {
  it("exits 2 with the usage on a bad option", async () => {
    const r = await runScript(SCRIPT, ["--rate", "fast"], {});
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      '--rate: expected a number of changes per second from 0.1 to 100 (got "fast")',
    );
    expect(r.stderr).toContain("Usage:\n  npm run demo:activity");
  });

  it("refuses an embedded database held by a running server, and says how to run both", async () => {
    const b = await pgliteBackend("activity_busy");
    try {
      mkdirSync(b.dataDir, { recursive: true });
      // A live pid (this process) in the data folder's server.pid: the server holds the database.
      writeFileSync(path.join(b.dataDir, "server.pid"), `${process.pid}\n`);
      const r = await runScript(SCRIPT, ["--count", "1"], b.env);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`is in use by the running server (pid ${process.pid})`);
      expect(r.stderr).toContain("DATABASE_URL");
      expect(r.stdout).toBe("");
    } finally {
      await b.close();
    }
  });
});
