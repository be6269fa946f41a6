// The "Creating products (preview)" guide: listed only while the write preview is on, every value it takes from code
// filled, and its three retry loops (curl in bash, JavaScript, Python) run as written, as child processes, against
// an HTTP server in front of the real route handler (PGlite), which can answer a 503 first, lose the first answer
// after creating the product, or say the key is in use: each loop retries with the same Idempotency-Key, creates
// exactly one product, and stops at once on a refusal.
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import * as products from "@/app/public/v1/products/route";
import { resetConfig } from "@/lib/config";
import { getGuide, getGuides } from "@/lib/portal/guides";
import { renderMarkdown } from "@/lib/portal/markdown";
import { WRITE_ERROR_CODES } from "@/lib/public-api/api-errors";
import { call } from "../support/api";
import { postProduct, setupWritePreview, type WriteFixture } from "../support/write-preview";

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

// The three samples, as the guide shows them.
function samples(markdown: string): Record<"bash" | "js" | "python", string> {
  const blocks = [...markdown.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => m[2]!);
  const find = (start: string) => {
    const found = blocks.filter((b) => b.startsWith(start));
    expect(found, start).toHaveLength(1);
    return found[0]!;
  };
  return {
    bash: find("#!/usr/bin/env bash\n# create-product.sh"),
    js: find("// create-product.mjs"),
    python: find("# create_product.py"),
  };
}

type Fault = "503" | "lose" | "in-use";

describe("the guide's retry loops, run against the route", { timeout: 60_000 }, () => {
  let w: WriteFixture;
  let server: http.Server;
  let base = "";
  let code: Record<"bash" | "js" | "python", string>;
  let faults: Fault[] = [];
  let seen: (string | null)[] = [];

  const unavailable = (res: http.ServerResponse, status: number, body: Record<string, unknown>) => {
    res.writeHead(status, { "content-type": "application/json; charset=utf-8", "retry-after": "1" });
    res.end(JSON.stringify(body));
  };

  beforeAll(async () => {
    preview(true);
    code = samples(getGuide(SLUG)!.markdown);
    vi.unstubAllEnvs();
    resetConfig();
    w = await setupWritePreview("pglite");
    server = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
      seen.push(headers.get("idempotency-key"));
      const fault = faults.shift();
      if (fault === "503")
        return unavailable(res, 503, {
          statusCode: 503,
          code: "PUBLIC_API_UNAVAILABLE",
          error: "x",
          message: "x",
        });
      if (fault === "in-use")
        return unavailable(res, 409, {
          statusCode: 409,
          code: "PUBLIC_API_IDEMPOTENCY_KEY_IN_USE",
          error: "Conflict",
          message: "x",
        });
      const answer = await products.POST(
        new Request(`http://api.test${req.url}`, {
          method: req.method,
          headers,
          body: Buffer.concat(chunks),
        }),
      );
      const body = Buffer.from(await answer.arrayBuffer());
      // The product is created, but its answer is lost on the way back.
      if (fault === "lose")
        return unavailable(res, 503, {
          statusCode: 503,
          code: "PUBLIC_API_UNAVAILABLE",
          error: "x",
          message: "x",
        });
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

  // Runs one sample in a folder of its own with product.json; the server answers per `plan`.
  async function run(lang: "bash" | "js" | "python", product: unknown, plan: Fault[] = []) {
    const dir = mkdtempSync(path.join(os.tmpdir(), "guide-"));
    writeFileSync(path.join(dir, "product.json"), JSON.stringify(product));
    const file = { bash: "create-product.sh", js: "create-product.mjs", python: "create_product.py" }[lang];
    writeFileSync(path.join(dir, file), code[lang]);
    const command = { bash: "bash", js: process.execPath, python: "python3" }[lang];
    faults = [...plan];
    seen = [];
    const child = spawn(command, [file], {
      cwd: dir,
      env: { ...process.env, PCA_BASE_URL: base, PCA_API_KEY: w.writer },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const exit = await new Promise<number | null>((resolve) => child.on("close", resolve));
    return { exit, stdout, stderr, requests: [...seen] };
  }

  async function countSku(sku: string): Promise<number> {
    const listed = await call(`/public/v1/products?q=${encodeURIComponent(sku)}`, { key: w.f.acme.full });
    expect(listed.status).toBe(200);
    return listed.body.pagination.total as number;
  }

  describe.each(["bash", "js", "python"] as const)("%s", (lang) => {
    it("creates the product in one request", async () => {
      const product = w.body();
      const r = await run(lang, product);
      expect(r.exit, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/created: .*prd_/);
      expect(r.requests).toHaveLength(1);
      expect(r.requests[0]).toMatch(/^[\x21-\x7e]{16,255}$/);
      expect(await countSku(product.values.sku as string)).toBe(1);
    });

    it.each([
      ["a 503", "503"],
      ["a 409 key in use", "in-use"],
      ["a lost answer (created, then a 503 on the way back)", "lose"],
    ] as const)("after %s, retries with the same key and creates exactly one product", async (_, fault) => {
      const product = w.body();
      const r = await run(lang, product, [fault]);
      expect(r.exit, r.stderr).toBe(0);
      expect(r.requests).toHaveLength(2);
      expect(r.requests[1]).toBe(r.requests[0]);
      if (fault === "lose" && lang !== "bash") expect(r.stdout).toContain("(replayed)");
      expect(await countSku(product.values.sku as string)).toBe(1);
    });

    it.each([
      ["a 422 (a required attribute missing)", "PUBLIC_API_UNPROCESSABLE"],
      ["a 409 (SKU already used)", "PUBLIC_API_CONFLICT"],
    ])("stops at once on %s", async (_, expected) => {
      const product = w.body();
      if (expected === "PUBLIC_API_UNPROCESSABLE") delete product.values.price;
      else expect((await postProduct(w.writer, product)).status).toBe(201);
      const r = await run(lang, product);
      expect(r.exit).toBe(1);
      expect(r.requests).toHaveLength(1);
      expect(r.stderr).toContain(expected);
    });
  });
});
