// The "Keeping a copy in sync" guide while the export and the change feed are on (its preview version; with either
// off, the V1 guide as it was: tests/portal/sync-guide.test.ts and the snapshots), and its five samples, taken from
// the rendered page and run as written, as child processes with only PCA_API_KEY and PCA_BASE_URL set: two with
// the API's clients (JavaScript with @public-catalog/client, packed and installed offline into the sample's
// directory; Python with pca_client.py copied beside it) and three without (curl in bash, JavaScript with fetch,
// Python's standard library), against an HTTP server in front of the real router (a freshly seeded demo on PGlite,
// PUBLIC_API_PREVIEW=changes,export). Each exports the products (the server cuts that export once, and deletes a
// product already sent before the client resumes after the last id read: following the feed from the resumed
// part's cursor would keep it), follows the feed (a 503 first: it waits and asks again), prints that deletion and
// the update, deletion and creation written meanwhile with plain SQL, and keeps a copy equal to a fresh export; run
// again, it goes on from its saved cursor, and on a 410 exports again.
import { spawn, type ChildProcess } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { resetConfig } from "@/lib/config";
import { applyChange } from "@/lib/demo/catalog-activity";
import { getGuide } from "@/lib/portal/guides";
import { publicApi } from "@/lib/public-api/router";
import { readExport, setupApi, type ApiFixture } from "../support/api";
import { installTypeScriptClient } from "../support/client-package";
import { guideSamples } from "../support/guide-samples";

const SLUG = "keeping-in-sync";
// The samples with a client ("client-…") and without.
type Lang = "client-js" | "client-python" | "bash" | "js" | "python";
const LANGS = ["client-js", "client-python", "bash", "js", "python"] as const;
const FILES: Record<Lang, string> = {
  "client-js": "mirror-products.mjs",
  "client-python": "mirror_products.py",
  bash: "mirror-products.sh",
  js: "mirror-products.mjs",
  python: "mirror_products.py",
};
const PYTHON_CLIENT = path.resolve(import.meta.dirname, "../../clients/python/pca_client.py");

function preview(features: string) {
  vi.stubEnv("PUBLIC_API_PREVIEW", features);
  vi.stubEnv("PUBLIC_BASE_URL", "https://catalog.example.test");
  resetConfig();
}

describe("the guide", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    resetConfig();
  });

  it("is the V1 guide unless both the export and the feed are on", () => {
    for (const features of ["", "changes", "export", "writes,details"]) {
      preview(features);
      const guide = getGuide(SLUG)!;
      expect(guide.title, features).toBe("Keeping a copy in sync");
      expect(guide.markdown, features).toContain("updatedSince");
      expect(guide.markdown, features).not.toContain("/public/v1/export/");
    }
    preview("changes,export");
    const guide = getGuide(SLUG)!;
    expect(guide.title).toBe("Keeping a copy in sync (preview)");
    expect(guide.markdown).toContain("GET /public/v1/export/products");
    expect(guide.markdown).toContain("PUBLIC_API_CURSOR_EXPIRED");
    // The clients first, then the HTTP.
    const headings = [...guide.markdown.matchAll(/^##+ (.+)$/gm)].map((m) => m[1]!);
    expect(headings.indexOf("With the client")).toBe(1);
    expect(headings.indexOf("Without a client: the HTTP")).toBeGreaterThan(
      headings.indexOf("With the client"),
    );
  });

  it("takes its values from code: base URL, retention, rate limit", () => {
    preview("all");
    vi.stubEnv("RATE_LIMIT_REQUESTS", "120");
    vi.stubEnv("CHANGES_RETENTION_DAYS", "9");
    resetConfig();
    const md = getGuide(SLUG)!.markdown;
    expect(md).not.toMatch(/\{\{|\}\}/);
    expect(md).toContain("keeps events 9 days");
    expect(md).toContain("A cursor older than 9 days answers **410**");
    expect(md).toContain("limit of 120 requests per 60 seconds");
    expect(md).toContain('BASE_URL="${PCA_BASE_URL:-https://catalog.example.test}"');
  });
});

type Fault = "cut" | "503" | "410";

// Runs a guide's client until stopped: its output so far, and how to wait for a line of it.
interface Running {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
  stop(): Promise<void>;
}

describe("the guide's clients, run against the API", { timeout: 120_000 }, () => {
  let fx: ApiFixture;
  let server: http.Server;
  let base = "";
  let code: Record<Lang, string>;
  let faults: Fault[] = [];
  let requests: string[] = [];
  // The export requests of the run, each with its answer's X-Export-Cursor.
  let exports: { url: string; cursor: string | null }[] = [];
  // The product deleted while a cut export waits to be resumed (one already sent), per run.
  let deletedInCut: string | undefined;
  // The clients' connections to the server, open now.
  const sockets = new Set<Socket>();

  beforeAll(async () => {
    preview("changes,export");
    code = guideSamples(getGuide(SLUG)!.markdown, {
      "client-js": "// mirror-products.mjs: with @public-catalog/client",
      "client-python": "# mirror_products.py: with pca_client",
      bash: "#!/usr/bin/env bash\n# mirror-products.sh",
      js: "// mirror-products.mjs: node",
      python: "# mirror_products.py: python3",
    });
    vi.unstubAllEnvs();
    resetConfig();
    fx = await setupApi("pglite", { PUBLIC_API_PREVIEW: "changes,export" });
    server = http.createServer(async (req, res) => {
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
      const url = new URL(req.url!, "http://api.test");
      requests.push(req.url!);
      const fault =
        (url.pathname === "/public/v1/export/products" && faults[0] === "cut") ||
        (url.pathname === "/public/v1/changes" && (faults[0] === "503" || faults[0] === "410"))
          ? faults.shift()
          : undefined;
      if (fault === "503" || fault === "410") {
        const code = fault === "503" ? "PUBLIC_API_UNAVAILABLE" : "PUBLIC_API_CURSOR_EXPIRED";
        res.writeHead(Number(fault), {
          "content-type": "application/json; charset=utf-8",
          "retry-after": "1",
        });
        res.end(JSON.stringify({ statusCode: Number(fault), code, error: "x", message: "x" }));
        return;
      }
      const answer = await publicApi.fetch(new Request(url, { method: req.method, headers }));
      if (url.pathname.startsWith("/public/v1/export/"))
        exports.push({ url: req.url!, cursor: answer.headers.get("x-export-cursor") });
      res.writeHead(answer.status, Object.fromEntries(answer.headers));
      const reader = answer.body?.getReader();
      if (!reader) return res.end();
      // The stream as it comes; a cut export ends after 50 lines and half of the next one, the connection lost.
      let lines = 0;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return res.end();
        if (fault !== "cut") {
          res.write(value);
          continue;
        }
        const text = Buffer.from(value);
        let at = -1;
        while (lines < 50 && (at = text.indexOf(10, at + 1)) >= 0) lines++;
        if (lines < 50) {
          res.write(text);
          continue;
        }
        await reader.cancel(); // the export's snapshot ends: PGlite is free for the writes to come
        // What was written reaches the client before the connection is lost.
        await new Promise((resolve) => res.write(text.subarray(0, at + 20), resolve));
        await new Promise((resolve) => setTimeout(resolve, 50));
        // Before the client resumes, a product it has read goes: the resumed part's snapshot no longer has it.
        deletedInCut = await productAt(10);
        await fx.db.query("delete from products where id = $1", [deletedInCut]);
        res.socket?.destroy();
        return;
      }
    });
    server.on("connection", (socket: Socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 120_000);

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await fx?.close();
  });

  const key = () => fx.globex.full;
  const org = () => fx.globex.orgId;

  // Starts a client in `dir` with only the key and the base URL set (and a PATH to find curl and jq), in a process
  // group of its own (bash's curl and sleep are stopped with it).
  function start(lang: Lang, dir: string, plan: Fault[]): Running {
    const file = FILES[lang];
    writeFileSync(path.join(dir, file), code[lang]);
    const command = file.endsWith(".sh") ? "bash" : file.endsWith(".py") ? "python3" : process.execPath;
    faults = [...plan];
    requests = [];
    exports = [];
    deletedInCut = undefined;
    const child = spawn(command, [file], {
      cwd: dir,
      detached: true,
      env: {
        ...({} as NodeJS.ProcessEnv),
        PATH: process.env.PATH,
        HOME: dir,
        PCA_BASE_URL: base,
        PCA_API_KEY: key(),
      },
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d) => (stdout += d));
    child.stderr!.on("data", (d) => (stderr += d));
    const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
    return {
      child,
      stdout: () => stdout,
      stderr: () => stderr,
      async waitFor(pattern) {
        for (let i = 0; i < 600; i++) {
          const m = stdout.match(pattern);
          if (m) return m;
          if (child.exitCode !== null) break;
          await new Promise((r) => setTimeout(r, 100));
        }
        throw new Error(`${lang}: no ${pattern} in:\n${stdout}\nstderr:\n${stderr}`);
      },
      async stop() {
        if (child.exitCode === null) process.kill(-child.pid!, "SIGTERM");
        await exited;
        // Every connection of the stopped client closed, so its last request was read and answered: a request still
        // unread in a socket when its curl was killed (a loaded machine: CI 09:22) was taken later as the next run's,
        // and took the fault planned for it.
        for (let i = 0; i < 100 && sockets.size > 0; i++) await new Promise((r) => setTimeout(r, 50));
      },
    };
  }

  const head = async () =>
    (
      await fx.db.query<{ head: string }>(
        "select coalesce((select head from catalog_change_heads where org_id = $1), 0)::text as head",
        [org()],
      )
    )[0]!.head;

  // The client's copy once it has followed the feed to its head.
  async function copyAtHead(lang: Lang, dir: string): Promise<Record<string, unknown>> {
    const target = await head();
    for (let i = 0; i < 300; i++) {
      try {
        const state = JSON.parse(readFileSync(path.join(dir, "mirror.json"), "utf8"));
        if (state.cursor === target) return state.products;
      } catch {
        // not written yet
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${lang}: mirror.json never reached cursor ${target}`);
  }

  // A fresh export of the products, by id.
  async function freshExport(): Promise<Record<string, unknown>> {
    const { items, end } = await readExport("/public/v1/export/products", key());
    expect(end).toBeDefined();
    return Object.fromEntries(items.map((p) => [p.id, p]));
  }

  const productAt = async (rank: number) =>
    (
      await fx.db.query<{ id: string }>(
        "select id from products where org_id = $1 order by id offset $2 limit 1",
        [org(), rank],
      )
    )[0]!.id;

  describe.each(LANGS)("%s", (lang) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), `mirror-guide-${lang}-`));

    beforeAll(async () => {
      // What the guide tells an integrator to get: the package installed from its tarball, the module copied.
      if (lang === "client-js") await installTypeScriptClient(dir);
      if (lang === "client-python") copyFileSync(PYTHON_CLIENT, path.join(dir, "pca_client.py"));
    }, 180_000);

    it("exports (resuming a cut export), follows the feed and prints what was written meanwhile", async () => {
      const run = start(lang, dir, ["cut", "503"]);
      try {
        const exported = await run.waitFor(/exported (\d+) products \(cursor (\d+)\)/);
        const [{ n }] = (await fx.db.query<{ n: number }>(
          "select count(*)::int as n from products where org_id = $1",
          [org()],
        )) as [{ n: number }];
        // Every product, and the one deleted during the cut (read before it), until the feed's delete.
        expect(deletedInCut).toBeDefined();
        expect(Number(exported[1])).toBe(n + 1);
        // The products' export was cut, then resumed after the last id read. The cursor followed is the first
        // export request's: the channels' one, read first without a client; the products' first part's with one
        // (not the resumed part's, a later snapshot).
        const urls = exports.map((e) => e.url);
        const products = urls.indexOf("/public/v1/export/products");
        expect(urls.slice(0, products)).toEqual(
          lang.startsWith("client-") ? [] : ["/public/v1/export/channels"],
        );
        expect(urls[products + 1]).toMatch(/^\/public\/v1\/export\/products\?after=prd_\w+$/);
        expect(urls).toHaveLength(products + 2);
        expect(exported[2]).toBe(exports[0]!.cursor);
        expect(Number(exports.at(-1)!.cursor)).toBeGreaterThan(Number(exported[2]));
        await run.waitFor(new RegExp(`^delete products ${deletedInCut}$`, "m"));
        // Written with plain SQL while it follows the feed (after the 503, which it waited out).
        const relabelled = await productAt(3);
        const deleted = await productAt(4);
        const label = `Relabellisé (${lang})`;
        await fx.db.query("update products set label = $2, updated_at = now() where id = $1", [
          relabelled,
          label,
        ]);
        await fx.db.query("delete from products where id = $1", [deleted]);
        const created = await applyChange(fx.db, org(), { kind: "create", pick: 0, salt: 42 });
        await run.waitFor(
          new RegExp(`^upsert products ${relabelled} “${label.replace(/[()]/g, "\\$&")}”$`, "m"),
        );
        await run.waitFor(new RegExp(`^delete products ${deleted}$`, "m"));
        await run.waitFor(new RegExp(`^upsert products ${created!.id} “Nouveauté 42”$`, "m"));
        expect(requests.filter((r) => r.startsWith("/public/v1/changes")).length).toBeGreaterThanOrEqual(2);
        expect(run.stderr()).toMatch(/503/);
        expect(await copyAtHead(lang, dir)).toEqual(await freshExport());
      } finally {
        await run.stop();
      }
    });

    it("run again, goes on from its saved cursor; on a 410 it exports again", async () => {
      const saved = JSON.parse(readFileSync(path.join(dir, "mirror.json"), "utf8")).cursor as string;
      const run = start(lang, dir, ["410"]);
      try {
        await run.waitFor(new RegExp(`^cursor ${saved} expired: exporting again$`, "m"));
        expect(requests[0]).toMatch(new RegExp(`^/public/v1/changes\\?after=${saved}&`));
        await run.waitFor(/exported \d+ products \(cursor \d+\)/);
        const relabelled = await productAt(5);
        await fx.db.query("update products set label = $2, updated_at = now() where id = $1", [
          relabelled,
          `Encore (${lang})`,
        ]);
        await run.waitFor(new RegExp(`^upsert products ${relabelled} “Encore \\(${lang}\\)”$`, "m"));
        expect(await copyAtHead(lang, dir)).toEqual(await freshExport());
      } finally {
        await run.stop();
      }
    });
  });
});
