// `npm run mirror` against a server on the embedded database (PGlite; its Postgres twin is mirror-command-pg.test.ts):
// the property (random creates, updates, relabels and deletions through SQL and the write preview while
// `mirror --follow` runs, stopped and restarted midway; at the end its tables equal a fresh export), a mirror into an
// embedded PGlite folder (--to <folder>), and a target database that cannot be reached.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openPglite } from "@/db/client";
import { applyChange } from "@/lib/demo/catalog-activity";
import {
  expectMirrorEqualsExport,
  feedHead,
  mirrorArgs,
  mirrorCursor,
  mirrorProperty,
  runMirrorToEnd,
  useMirrorServer,
} from "./mirror-command-support";

describe("npm run mirror, the server on the embedded database", () => {
  const fx = useMirrorServer("pglite");
  const folder = mkdtempSync(path.join(os.tmpdir(), "mirror-pglite-"));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it("random writes while it follows, stopped and restarted: its tables equal a fresh export", async () => {
    await mirrorProperty(fx, 10);
  }, 240_000);

  it("into an embedded PGlite folder: loads, catches up, resumes", async () => {
    const to = path.join(folder, "copy");
    const first = await runMirrorToEnd(mirrorArgs(fx, to));
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(`into embedded PGlite in ${to}`);
    for (const kind of ["delete", "category-relabel", "media-visibility", "create"] as const)
      await applyChange(fx.server.fx.db, fx.org.id, { kind, pick: 3, salt: 5 });
    const second = await runMirrorToEnd(mirrorArgs(fx, to));
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain("mirror: resuming");
    expect(second.stderr).not.toContain("items loaded");
    const db = await openPglite(to);
    try {
      expect(await mirrorCursor(db)).toBe(await feedHead(fx.server.fx.db, fx.org.id));
      await expectMirrorEqualsExport(db, fx.checkKey);
    } finally {
      await db.close();
    }
  }, 120_000);

  it("a target database that cannot be reached: exit 1 and a clear message", async () => {
    const run = await runMirrorToEnd(mirrorArgs(fx, "postgres://postgres@127.0.0.1:1/nowhere"));
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain("mirror: Cannot open the target database (Postgres 127.0.0.1:1/nowhere): ");
    expect(run.stderr).toContain("ECONNREFUSED");
    expect(run.stderr).not.toContain("    at ");
  });
});
