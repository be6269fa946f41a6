// `npm run mirror` where it cannot work: a server without the export and the change feed (the previews off: 404,
// and the message names PUBLIC_API_PREVIEW=changes,export), a server that cannot be reached; and its command line
// (--help, bad usage: exit 2). Nothing is created in the target database.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPg, type Database } from "@/db/client";
import { startApiServer, type ApiServer } from "../support/api-server";
import { freePort } from "../support/ports";
import { createTestDatabase } from "../support/servers";
import { hasSchema, runMirrorToEnd } from "./mirror-command-support";

describe("npm run mirror where it cannot work", () => {
  let server: ApiServer;
  let target: { url: string; drop: () => Promise<void> };
  let db: Database;
  beforeAll(async () => {
    server = await startApiServer("pglite", { PUBLIC_API_PREVIEW: "details" });
    target = await createTestDatabase("mirror");
    db = await openPg(target.url, 2);
  });
  afterAll(async () => {
    await db?.close();
    await target?.drop();
    await server?.close();
  });

  it("a server without the previews: exit 1, the message names PUBLIC_API_PREVIEW=changes,export", async () => {
    const run = await runMirrorToEnd([
      "--base-url",
      server.baseUrl,
      "--key",
      server.fx.acme.full,
      "--to",
      target.url,
    ]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain("has no export or change feed (404 PUBLIC_API_NOT_FOUND");
    expect(run.stderr).toContain("PUBLIC_API_PREVIEW=changes,export");
    expect(await hasSchema(db)).toBe(false);
  });

  it("a server that cannot be reached: exit 1 and a clear message", async () => {
    const port = await freePort();
    const run = await runMirrorToEnd([
      "--base-url",
      `http://127.0.0.1:${port}`,
      "--key",
      server.fx.acme.full,
      "--to",
      target.url,
    ]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain(`mirror: Cannot reach the server at http://127.0.0.1:${port}: `);
    expect(run.stderr).not.toContain("    at ");
    expect(await hasSchema(db)).toBe(false);
  });

  it("--help prints the usage (exit 0); a bad command line exits 2", async () => {
    const help = await runMirrorToEnd(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain(
      "npm run mirror -- --base-url <url> --key <key> --to <postgres url | folder>",
    );
    const bad = [
      [[], "--base-url is required"],
      [["--base-url", "ftp://x", "--key", "k", "--to", "d"], "--base-url: expected an http://"],
      [["--base-url", "http://x", "--to", "d"], "--key is required"],
      [["--base-url", "http://x", "--key", "k"], "--to is required"],
      [["--base-url", "http://x", "--key", "k", "--to", "d", "--schema", "Bad-Name"], "--schema: expected"],
      [["--nope"], "Unknown option '--nope'"],
    ] as const;
    for (const [args, message] of bad) {
      const run = await runMirrorToEnd([...args]);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain(message);
      expect(run.stderr).toContain("Usage:");
    }
  }, 60_000);
});
