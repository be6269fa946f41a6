// `npm run mirror` against a server on a Postgres database (the embedded database's twin is mirror-command.test.ts):
// the property (random writes while it follows, stopped and restarted, its tables equal to a fresh export at the
// end), a run as the README says it (npm run mirror, no --follow: catches up and exits 0), a rerun that resumes, a
// refused key (nothing created), and a cursor past the feed's retention (410: loaded again, and said).
import { describe, expect, it } from "vitest";
import { pruneChanges } from "@/lib/catalog/feed/change-retention";
import { applyChange } from "@/lib/demo/catalog-activity";
import {
  expectMirrorEqualsExport,
  feedHead,
  hasSchema,
  mirrorArgs,
  mirrorCursor,
  mirrorProperty,
  runMirrorToEnd,
  useMirrorServer,
} from "./mirror-command-support";

describe("npm run mirror, the server on Postgres", () => {
  const fx = useMirrorServer("pg");

  it("random writes while it follows, stopped and restarted: its tables equal a fresh export", async () => {
    await mirrorProperty(fx, 10);
  }, 240_000);

  it("run as the README says, without --follow: loads, catches up and exits 0; run again, it resumes", async () => {
    const target = await fx.newTarget();
    const first = await runMirrorToEnd(mirrorArgs(fx, target.url), { npm: true });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/mirror: products: \d+ items loaded/);
    expect(first.stderr).toContain("mirror: caught up at cursor");
    await expectMirrorEqualsExport(target.db, fx.checkKey);

    // Changes since, then a second run: it goes on from the stored cursor, no export again.
    for (const kind of ["relabel", "delete", "create", "family-relabel"] as const)
      await applyChange(fx.server.fx.db, fx.org.id, { kind, pick: 7, salt: 11 });
    const second = await runMirrorToEnd(mirrorArgs(fx, target.url));
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/mirror: resuming .* from cursor \d+/);
    expect(second.stderr).not.toContain("items loaded");
    expect(second.stderr).toMatch(
      /caught up at cursor \d+: [1-9][\d,]* events applied in this run \(\d+ upserts, [1-9]\d* deletes\)/,
    );
    expect(await mirrorCursor(target.db)).toBe(await feedHead(fx.server.fx.db, fx.org.id));
    await expectMirrorEqualsExport(target.db, fx.checkKey);
  }, 120_000);

  it("a refused key: exit 1, a clear message, nothing created", async () => {
    const target = await fx.newTarget();
    for (const key of ["pca_not_a_key", fx.server.fx.globex.revoked]) {
      const run = await runMirrorToEnd(["--base-url", fx.server.baseUrl, "--key", key, "--to", target.url]);
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toContain("mirror: The key was refused (401 ");
      expect(run.stderr).not.toContain("    at "); // no stack
      expect(run.stderr).not.toContain(key);
    }
    expect(await hasSchema(target.db)).toBe(false);
  });

  it("a mirror of another organization in the same schema is refused", async () => {
    const target = await fx.newTarget();
    expect((await runMirrorToEnd(mirrorArgs(fx, target.url))).code).toBe(0);
    const acme = ["--base-url", fx.server.baseUrl, "--key", fx.server.fx.acme.full, "--to", target.url];
    const other = await runMirrorToEnd(acme);
    expect(other.code, other.stderr).toBe(1);
    expect(other.stderr).toContain("mirrors another organization");
    // In a schema of its own, it is a mirror of its own.
    const own = await runMirrorToEnd([...acme, "--schema", "acme_mirror"]);
    expect(own.code, own.stderr).toBe(0);
    await expectMirrorEqualsExport(target.db, fx.server.fx.acme.full, "acme_mirror");
  }, 120_000);

  // Last: it prunes globex's feed.
  it("a stored cursor past the feed's retention (410): it says so, loads again and goes on", async () => {
    const api = fx.server.fx;
    const target = await fx.newTarget();
    expect((await runMirrorToEnd(mirrorArgs(fx, target.url))).code).toBe(0);
    const stored = await mirrorCursor(target.db);
    await applyChange(api.db, fx.org.id, { kind: "delete", pick: 3, salt: 1 });
    await applyChange(api.db, fx.org.id, { kind: "relabel", pick: 5, salt: 2 });
    // Every event of the organization committed 40 days ago: the retention (30 days) prunes them all.
    await api.db.query(
      "update catalog_change_commits set at = now() - interval '40 days' where org_id = $1",
      [fx.org.id],
    );
    expect(await pruneChanges(api.db, api.config.CHANGES_RETENTION_DAYS)).toBeGreaterThan(0);
    const run = await runMirrorToEnd(mirrorArgs(fx, target.url));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      `the stored cursor ${stored} is past the change feed's retention (410 PUBLIC_API_CURSOR_EXPIRED): exporting the catalog again`,
    );
    expect(run.stderr).toMatch(/mirror: products: \d+ items loaded/);
    await expectMirrorEqualsExport(target.db, fx.checkKey);
  }, 120_000);
});
