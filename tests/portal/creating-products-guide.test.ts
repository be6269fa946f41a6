// The "Creating products (preview)" guide: listed only while the write preview is on, every value it takes from code
// filled, and its three clients (curl in bash, JavaScript, Python), taken from the rendered page, run as written, as
// child processes with only PCA_API_KEY and PCA_BASE_URL set, against an HTTP server in front of the real router and
// route handler (a freshly seeded demo on PGlite, PUBLIC_API_PREVIEW=writes): each finds a family, its required
// attributes, an option of each choice and a category through the API, builds its body of them and gets a 201 for a
// product of its own. The server can also answer a POST with a 503 first, lose the first answer after creating the
// product, say the key is in use, or refuse the body: each loop retries with the same Idempotency-Key, creates
// exactly one product, and stops at once on a refusal.
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import * as products from "@/app/public/v1/products/route";
import { publicApi } from "@/lib/public-api/router";
import { resetConfig } from "@/lib/config";
import { getGuide, getGuides } from "@/lib/portal/guides";
import { renderMarkdown } from "@/lib/portal/markdown";
import { WRITE_ERROR_CODES } from "@/lib/public-api/api-errors";
import { call } from "../support/api";
import { guideSamples } from "../support/guide-samples";
import { setupWritePreview, type WriteFixture } from "../support/write-preview";

const SLUG = "creating-products";

function preview(on: boolean) {
  vi.stubEnv("PUBLIC_API_WRITE_PREVIEW", String(on));
  vi.stubEnv("PUBLIC_BASE_URL", "https://catalog.example.test");
  resetConfig();
}

describe("the guide", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    resetConfig();
  });

  it("the roadmap says 405 in V1 and points to this guide while the preview is on", () => {
    preview(false);
    const off = getGuide("versioning")!.markdown;
    expect(off).toContain("`POST /public/v1/products`, today 405");
    expect(off).not.toContain("/docs/creating-products");
    preview(true);
    const on = getGuide("versioning")!.markdown;
    expect(on).toContain("`POST /public/v1/products`, in preview on this server");
    expect(on).toContain("[Creating products (preview)](/docs/creating-products)");
  });

  it("is listed only while the write preview is on", () => {
    preview(false);
    expect(getGuides().map((g) => g.slug)).not.toContain(SLUG);
    expect(getGuide(SLUG)).toBeUndefined();
    preview(true);
    expect(getGuides().map((g) => g.slug)).toContain(SLUG);
    expect(getGuide(SLUG)!.title).toBe("Creating products (preview)");
  });

  it("takes its values from code: value types, write errors, limits, base URL", () => {
    preview(true);
    const md = getGuide(SLUG)!.markdown;
    expect(md).not.toMatch(/\{\{|\}\}/);
    for (const type of [
      "TEXT",
      "TEXTAREA",
      "NUMBER",
      "PRICE",
      "BOOLEAN",
      "DATE",
      "SELECT",
      "MULTI_SELECT",
      "MEDIA",
    ])
      expect(md).toMatch(new RegExp(`^\\| \`${type}\` \\| [^ |].+ \\| \`.+\` \\|$`, "m"));
    for (const code of WRITE_ERROR_CODES) expect(md).toContain(`| \`${code}\` |`);
    expect(md).toContain("at most 64 KB");
    expect(md).toContain("remembered 24 hours");
    expect(md).toContain('BASE_URL="${PCA_BASE_URL:-https://catalog.example.test}"');
    const html = renderMarkdown(md);
    expect(html).toContain("<h2");
    expect(html).not.toContain("{{");
  });
});

// The three clients, as the rendered page shows them (code blocks, entities decoded), checked against the markdown.
function samples(markdown: string): Record<"bash" | "js" | "python", string> {
  return guideSamples(markdown, {
    bash: "#!/usr/bin/env bash\n# create-product.sh",
    js: "// create-product.mjs",
    python: "# create_product.py",
  });
}

type Fault = "503" | "lose" | "in-use" | "unprocessable" | "conflict";

describe("the guide's clients, run against the API", { timeout: 60_000 }, () => {
  let w: WriteFixture;
  let server: http.Server;
  let base = "";
  let code: Record<"bash" | "js" | "python", string>;
  let faults: Fault[] = [];
  let seen: (string | null)[] = [];
  let reads: string[] = [];

  const answerWith = (res: http.ServerResponse, status: number, code: string) => {
    res.writeHead(status, { "content-type": "application/json; charset=utf-8", "retry-after": "1" });
    res.end(JSON.stringify({ statusCode: status, code, error: "x", message: "x" }));
  };

  beforeAll(async () => {
    preview(true);
    code = samples(getGuide(SLUG)!.markdown);
    vi.unstubAllEnvs();
    resetConfig();
    w = await setupWritePreview("pglite", { PUBLIC_API_PREVIEW: "writes" });
    server = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
      const url = `http://api.test${req.url}`;
      if (req.method !== "POST") {
        // The reads the client builds its body from: the real router.
        reads.push(req.url!);
        const answer = await publicApi.fetch(new Request(url, { method: req.method, headers }));
        res.writeHead(answer.status, Object.fromEntries(answer.headers));
        res.end(Buffer.from(await answer.arrayBuffer()));
        return;
      }
      seen.push(headers.get("idempotency-key"));
      const fault = faults.shift();
      if (fault === "503") return answerWith(res, 503, "PUBLIC_API_UNAVAILABLE");
      if (fault === "in-use") return answerWith(res, 409, "PUBLIC_API_IDEMPOTENCY_KEY_IN_USE");
      if (fault === "unprocessable") return answerWith(res, 422, "PUBLIC_API_UNPROCESSABLE");
      if (fault === "conflict") return answerWith(res, 409, "PUBLIC_API_CONFLICT");
      const answer = await products.POST(
        new Request(url, { method: req.method, headers, body: Buffer.concat(chunks) }),
      );
      const body = Buffer.from(await answer.arrayBuffer());
      // The product is created, but its answer is lost on the way back.
      if (fault === "lose") return answerWith(res, 503, "PUBLIC_API_UNAVAILABLE");
      res.writeHead(answer.status, Object.fromEntries(answer.headers));
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 120_000);

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await w?.f.close();
  });

  // Runs one client in a folder of its own with only the key and the base URL set; the server answers per `plan`.
  async function run(lang: "bash" | "js" | "python", plan: Fault[] = []) {
    const dir = mkdtempSync(path.join(os.tmpdir(), "guide-"));
    const file = { bash: "create-product.sh", js: "create-product.mjs", python: "create_product.py" }[lang];
    writeFileSync(path.join(dir, file), code[lang]);
    const command = { bash: "bash", js: process.execPath, python: "python3" }[lang];
    faults = [...plan];
    seen = [];
    reads = [];
    const child = spawn(command, [file], {
      cwd: dir,
      // Only what a reader sets: the key and the base URL (and a PATH to find curl, jq and openssl).
      env: {
        ...({} as NodeJS.ProcessEnv),
        PATH: process.env.PATH,
        HOME: dir,
        PCA_BASE_URL: base,
        PCA_API_KEY: w.writer,
      },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const exit = await new Promise<number | null>((resolve) => child.on("close", resolve));
    const created = stdout.match(/created: .*?(prd_\w+).* \(SKU ([\w-]+)\)/);
    return {
      exit,
      stdout,
      stderr,
      requests: [...seen],
      reads: [...reads],
      id: created?.[1],
      sku: created?.[2],
    };
  }

  async function countSku(sku: string): Promise<number> {
    const listed = await call(`/public/v1/products?q=${encodeURIComponent(sku)}`, { key: w.f.acme.full });
    expect(listed.status).toBe(200);
    return listed.body.pagination.total as number;
  }

  it("each client builds its body from the API and gets a 201 for a product of its own", async () => {
    const ids = new Set<string>();
    const family = (await call("/public/v1/families?perPage=1", { key: w.f.acme.full })).body.data[0];
    const detail = (await call(`/public/v1/families/${family.id}`, { key: w.f.acme.full })).body;
    const required = detail.attributes.filter((a: { required: boolean }) => a.required);
    for (const lang of ["bash", "js", "python"] as const) {
      const r = await run(lang);
      expect(r.exit, `${lang}: ${r.stderr}`).toBe(0);
      expect(r.id, r.stdout).toMatch(/^prd_/);
      ids.add(r.id!);
      expect(r.requests).toHaveLength(1);
      // It read the family, each required attribute whole and a category.
      expect(r.reads).toEqual(
        expect.arrayContaining([
          "/public/v1/families?perPage=1",
          `/public/v1/families/${family.id}`,
          "/public/v1/categories?perPage=1",
          ...required.map((a: { id: string }) => `/public/v1/attributes/${a.id}`),
        ]),
      );
      const product = await call(`/public/v1/products/${r.id}`, { key: w.f.acme.full });
      expect(product.status).toBe(200);
      expect(product.body.identifier).toBe(r.sku);
      expect(product.body.family.id).toBe(family.id);
      expect(await countSku(r.sku!)).toBe(1);
    }
    expect(ids.size).toBe(3);
  });

  describe.each(["bash", "js", "python"] as const)("%s", (lang) => {
    it.each([
      ["a 503", "503"],
      ["a 409 key in use", "in-use"],
      ["a lost answer (created, then a 503 on the way back)", "lose"],
    ] as const)("after %s, retries with the same key and creates exactly one product", async (_, fault) => {
      const r = await run(lang, [fault]);
      expect(r.exit, r.stderr).toBe(0);
      expect(r.requests).toHaveLength(2);
      expect(r.requests[1]).toBe(r.requests[0]);
      if (fault === "lose" && lang !== "bash") expect(r.stdout).toContain("(replayed)");
      expect(await countSku(r.sku!)).toBe(1);
    });

    it.each([
      ["a 422 (a required attribute missing)", "unprocessable", "PUBLIC_API_UNPROCESSABLE"],
      ["a 409 (SKU already used)", "conflict", "PUBLIC_API_CONFLICT"],
    ] as const)("stops at once on %s", async (_, fault, expected) => {
      const r = await run(lang, [fault]);
      expect(r.exit).toBe(1);
      expect(r.requests).toHaveLength(1);
      expect(r.stderr).toContain(expected);
    });
  });
});
