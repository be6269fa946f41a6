// The "Keeping a copy in sync" guide: its JavaScript and Python samples, read from the guide's rendered HTML, run as
// written (node, python3) as child processes against an HTTP server in front of the real list routes (PGlite,
// seeded). After a first run, changes made in the database between two passes (an update, a creation, a deletion),
// a change made while a sample walks the pages, a 429 and a 503, the copy each sample keeps equals a fresh full walk
// of the list; a poll with nothing changed is a single 304. The curl (bash) sample, which needs jq, is checked for
// syntax.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as attributes from "@/app/public/v1/attributes/route";
import * as categories from "@/app/public/v1/categories/route";
import * as families from "@/app/public/v1/families/route";
import * as media from "@/app/public/v1/media/route";
import * as products from "@/app/public/v1/products/route";
import { newId } from "@/db/schema";
import { resetConfig } from "@/lib/config";
import { getGuide } from "@/lib/portal/guides";
import { renderMarkdown } from "@/lib/portal/markdown";
import { call, setupApi, type ApiFixture } from "../support/api";

const SLUG = "keeping-in-sync";
const ROUTES: Record<string, Record<string, unknown>> = { products, families, attributes, categories, media };

type Product = { id: string; updatedAt: string } & Record<string, unknown>;

// The code blocks of the guide as its page shows them (rendered HTML, entities decoded), by language.
function renderedSamples(): Record<"bash" | "js" | "python", string> {
  vi.stubEnv("PUBLIC_BASE_URL", "https://catalog.example.test");
  resetConfig();
  try {
    const guide = getGuide(SLUG);
    expect(guide, SLUG).toBeDefined();
    const html = renderMarkdown(guide!.markdown);
    const blocks = [
      ...html.matchAll(/<pre[^>]*><code class="language-(\w+)">([\s\S]*?)<\/code><\/pre>/g),
    ].map((m) => ({
      lang: m[1]!,
      code: m[2]!
        .replace(/&lt;/g, "<")
        .replace(/&gt;/g, ">")
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&amp;/g, "&"),
    }));
    const find = (lang: string, start: string) => {
      const found = blocks.filter((b) => b.lang === lang && b.code.startsWith(start));
      expect(found, start).toHaveLength(1);
      return found[0]!.code;
    };
    return {
      bash: find("bash", "#!/usr/bin/env bash\n# sync-products.sh"),
      js: find("js", "// sync-products.mjs"),
      python: find("python", "# sync_products.py"),
    };
  } finally {
    vi.unstubAllEnvs();
    resetConfig();
  }
}

describe("the guide", () => {
  it("takes its base URL from the configuration and has the three samples", () => {
    const code = renderedSamples();
    expect(code.bash).toContain('BASE_URL="${PCA_BASE_URL:-https://catalog.example.test}"');
    expect(code.js).toContain('process.env.PCA_BASE_URL ?? "https://catalog.example.test"');
    expect(code.python).toContain('os.environ.get("PCA_BASE_URL", "https://catalog.example.test")');
  });

  it("has a curl sample that is well-formed bash", () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "sync-guide-")), "sync-products.sh");
    writeFileSync(file, renderedSamples().bash);
    execFileSync("bash", ["-n", file]);
  });
});

type Fault = "429" | "503";

interface Seen {
  url: URL;
  ifNoneMatch: string | null;
  status: number;
}

describe("the guide's samples keep an exact copy", { timeout: 120_000 }, () => {
  let fx: ApiFixture;
  let server: http.Server;
  let base = "";
  let code: Record<"bash" | "js" | "python", string>;
  let faults: Fault[] = [];
  let seen: Seen[] = [];
  // Called before the route answers each request (a change made while a sample walks).
  let beforeAnswer: ((url: URL) => Promise<void>) | undefined;

  beforeAll(async () => {
    code = renderedSamples();
    fx = await setupApi("pglite");
    server = http.createServer(async (req, res) => {
      const url = new URL(req.url ?? "/", "http://api.test");
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
      const fault = faults.shift();
      if (fault) {
        seen.push({ url, ifNoneMatch: headers.get("if-none-match"), status: Number(fault) });
        res.writeHead(Number(fault), {
          "content-type": "application/json; charset=utf-8",
          "retry-after": "1",
        });
        res.end(JSON.stringify({ statusCode: Number(fault), code: "INJECTED", error: "x", message: "x" }));
        return;
      }
      await beforeAnswer?.(url);
      const route = ROUTES[url.pathname.replace(/^\/public\/v1\//, "")];
      const handler = route?.[req.method ?? "GET"] as ((r: Request) => Promise<Response>) | undefined;
      if (!handler) {
        res.writeHead(404).end();
        return;
      }
      const answer = await handler(new Request(url, { method: req.method, headers }));
      seen.push({ url, ifNoneMatch: headers.get("if-none-match"), status: answer.status });
      const body = Buffer.from(await answer.arrayBuffer());
      res.writeHead(answer.status, Object.fromEntries(answer.headers));
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 120_000);

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await fx?.close();
  });

  const key = () => fx.globex.full;
  const org = () => fx.globex.orgId;

  // A fresh full walk of the list, in-process: id → product.
  async function freshWalk(): Promise<Record<string, Product>> {
    const out: Record<string, Product> = {};
    for (let page = 1, pages = 1; page <= pages; page++) {
      const res = await call(`/public/v1/products?sort=updatedAt.asc&perPage=100&page=${page}`, {
        key: key(),
      });
      expect(res.status).toBe(200);
      pages = res.body.pagination.totalPages;
      for (const p of res.body.data as Product[]) out[p.id] = p;
    }
    return out;
  }

  // Runs one sample once in `dir` (where it keeps its copy and state); the server answers `plan` first.
  async function run(lang: "js" | "python", dir: string, plan: Fault[] = []) {
    const file = { js: "sync-products.mjs", python: "sync_products.py" }[lang];
    writeFileSync(path.join(dir, file), code[lang]);
    const command = { js: process.execPath, python: "python3" }[lang];
    faults = [...plan];
    seen = [];
    const child = spawn(command, [file], {
      cwd: dir,
      env: { ...process.env, PCA_BASE_URL: base, PCA_API_KEY: key() },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const exit = await new Promise<number | null>((resolve) => child.on("close", resolve));
    return { exit, stdout, stderr, requests: [...seen] };
  }

  const copyIn = (dir: string) =>
    JSON.parse(readFileSync(path.join(dir, "products.json"), "utf8")) as Record<string, Product>;

  // A product of the organization, by its rank in updatedAt order (0: the least recently updated).
  async function productAt(rank: number): Promise<string> {
    const [row] = await fx.db.query<{ id: string }>(
      "select id from products where org_id = $1 order by updated_at, id offset $2 limit 1",
      [org(), rank],
    );
    return row!.id;
  }

  const touch = (id: string, label: string) =>
    fx.db.query("update products set label = $2, updated_at = now() where id = $1", [id, label]);

  async function create(label: string): Promise<string> {
    const id = newId("prd");
    await fx.db.query(
      `insert into products (id, org_id, identifier, label, status, family_id, category_id)
       select $1, org_id, $2, $3, 'draft', family_id, category_id from products where org_id = $4 limit 1`,
      [id, `SYNC-${id}`, label, org()],
    );
    return id;
  }

  describe.each(["js", "python"] as const)("%s", (lang) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), `sync-guide-${lang}-`));

    it("walks everything on the first run, then a poll with nothing changed is one 304", async () => {
      const first = await run(lang, dir);
      expect(first.exit, first.stderr).toBe(0);
      const fresh = await freshWalk();
      expect(first.stdout).toContain(`full walk: ${Object.keys(fresh).length} products`);
      expect(copyIn(dir)).toEqual(fresh);
      expect(first.requests.every((r) => r.url.searchParams.get("sort") === "updatedAt.asc")).toBe(true);
      expect(first.requests.every((r) => r.url.searchParams.get("perPage") === "100")).toBe(true);
      // The second run reads from a minute before the last updatedAt seen and learns its request's ETag…
      const second = await run(lang, dir);
      expect(second.exit, second.stderr).toBe(0);
      expect(second.requests[0]!.url.searchParams.get("updatedSince")).toBeTruthy();
      expect(copyIn(dir)).toEqual(fresh);
      // …so that the third, with nothing changed, is a single 304.
      const third = await run(lang, dir);
      expect(third.exit, third.stderr).toBe(0);
      expect(third.stdout.trim()).toBe("unchanged (304)");
      expect(third.requests).toHaveLength(1);
      expect(third.requests[0]).toMatchObject({ status: 304 });
      expect(third.requests[0]!.ifNoneMatch).toMatch(/^"[\w-]{32}"$/);
    });

    it("waits Retry-After on a 429 and a 503, then retries the same request", async () => {
      const t0 = Date.now();
      const r = await run(lang, dir, ["429", "503"]);
      expect(r.exit, r.stderr).toBe(0);
      expect(r.stdout.trim()).toBe("unchanged (304)");
      expect(r.requests.map((x) => x.status)).toEqual([429, 503, 304]);
      expect(new Set(r.requests.map((x) => `${x.url} ${x.ifNoneMatch}`)).size).toBe(1);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(2000);
    });

    it("after an update and a creation, one pass of updatedSince makes the copy a fresh walk", async () => {
      const updated = await productAt(10);
      await touch(updated, `Mis à jour (${lang})`);
      const created = await create(`Créé (${lang})`);
      const r = await run(lang, dir);
      expect(r.exit, r.stderr).toBe(0);
      const copy = copyIn(dir);
      expect(copy[updated]!.label).toBe(`Mis à jour (${lang})`);
      expect(copy[created]!.label).toBe(`Créé (${lang})`);
      expect(copy).toEqual(await freshWalk());
      // Only what changed was read: every list request had updatedSince, but the one total.
      const unfiltered = r.requests.filter((x) => !x.url.searchParams.has("updatedSince"));
      expect(unfiltered.map((x) => x.url.search)).toEqual(["?perPage=1"]);
      expect(r.stdout).not.toContain("walked again");
    });

    it("after a deletion (and an update), the copy drops the deleted product", async () => {
      const deleted = await productAt(20);
      await fx.db.query("delete from products where id = $1", [deleted]);
      await touch(await productAt(30), `Encore (${lang})`);
      expect(copyIn(dir)[deleted]).toBeDefined();
      const r = await run(lang, dir);
      expect(r.exit, r.stderr).toBe(0);
      expect(r.stdout).toContain("walked again after deletions");
      const copy = copyIn(dir);
      expect(copy[deleted]).toBeUndefined();
      expect(copy).toEqual(await freshWalk());
      // Until the next change, polls are 304s again (once the new `since` has its ETag).
      expect((await run(lang, dir)).exit).toBe(0);
      const poll = await run(lang, dir);
      expect(poll.stdout.trim()).toBe("unchanged (304)");
      expect(copyIn(dir)).toEqual(await freshWalk());
    });

    it("a change while it walks the pages: it walks again and misses nothing", async () => {
      const fresh = mkdtempSync(path.join(os.tmpdir(), `sync-guide-${lang}-walk-`));
      // Once page 1 is read, the least recently updated product (on page 1) moves to the end: every later product
      // moves up one place, so the first product of page 2 would slip onto page 1, unseen.
      const moved = await productAt(0);
      const slipping = await productAt(100);
      let changed = false;
      beforeAnswer = async (url) => {
        if (!changed && url.searchParams.get("page") === "2") {
          changed = true;
          await touch(moved, `Déplacé (${lang})`);
        }
      };
      try {
        const r = await run(lang, fresh);
        expect(r.exit, r.stderr).toBe(0);
        expect(changed).toBe(true);
        const pageOnes = r.requests.filter((x) => x.url.searchParams.get("page") === "1");
        // page 1, its check (200: changed), page 1 of the second walk, its check (304).
        expect(pageOnes.map((x) => x.status)).toEqual([200, 200, 200, 304]);
        const copy = copyIn(fresh);
        expect(copy[slipping]).toBeDefined();
        expect(copy[moved]!.label).toBe(`Déplacé (${lang})`);
        expect(copy).toEqual(await freshWalk());
      } finally {
        beforeAnswer = undefined;
        rmSync(fresh, { recursive: true, force: true });
      }
    });

    // A tag names its page's bytes: a change that leaves page 1 as it was leaves its tag valid, so the check must
    // revalidate every page read, not page 1 alone.
    it("a change on a later page while it walks: it walks again and misses nothing", async () => {
      const fresh = mkdtempSync(path.join(os.tmpdir(), `sync-guide-${lang}-later-`));
      // Once pages 1 and 2 are read, a product of page 2 moves to the end: the first product of page 3 slips onto
      // page 2, unseen; page 1 stays as it was.
      const moved = await productAt(150);
      const slipping = await productAt(200);
      let changed = false;
      beforeAnswer = async (url) => {
        if (!changed && url.searchParams.get("page") === "3") {
          changed = true;
          await touch(moved, `Déplacé plus loin (${lang})`);
        }
      };
      try {
        const r = await run(lang, fresh);
        expect(r.exit, r.stderr).toBe(0);
        expect(changed).toBe(true);
        const copy = copyIn(fresh);
        expect(copy[slipping]).toBeDefined();
        expect(copy[moved]!.label).toBe(`Déplacé plus loin (${lang})`);
        expect(copy).toEqual(await freshWalk());
      } finally {
        beforeAnswer = undefined;
        rmSync(fresh, { recursive: true, force: true });
      }
    });
  });
});
