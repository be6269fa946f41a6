// The export's code samples on its reference page (lib/portal/code-samples.ts streamSamples): curl in bash,
// JavaScript and Python, run as written, as child processes with only PCA_API_KEY set, against npm start's host of
// the real router (gzip on: curl asks for it, fetch and requests ask by default) on a seeded demo with
// PUBLIC_API_PREVIEW=export. Each reads the whole stream and reports the end line's count and cursor; a stream cut
// before its end line is reported as cut, with the id to resume after.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { streamSamples } from "@/lib/portal/code-samples";
import { publicApi } from "@/lib/public-api/router";
import { createApiHost } from "@/lib/server/api-host";
import { setupApi, type ApiFixture } from "../support/api";

let fx: ApiFixture;
let server: http.Server;
let base = "";
let head = "";
// The answer is cut after this many bytes (the connection destroyed), when set.
let cutAfter: number | undefined;

beforeAll(async () => {
  fx = await setupApi("pglite", { PUBLIC_API_PREVIEW: "export" });
  const [row] = await fx.db.query<{ head: string }>(
    "select head::text from catalog_change_heads where org_id = $1",
    [fx.acme.orgId],
  );
  head = row!.head;
  const host = createApiHost((request) => publicApi.answer(request), { compress: true });
  server = http.createServer((req, res) => {
    if (cutAfter !== undefined) {
      // A connection lost half-way: the headers and the first `cutAfter` bytes of the body (mid-line), then nothing.
      let sent = 0;
      const write = res.write.bind(res) as (chunk: Uint8Array) => boolean;
      res.write = ((chunk: Uint8Array) => {
        if (sent + chunk.length <= cutAfter!) {
          sent += chunk.length;
          return write(chunk);
        }
        write(chunk.subarray(0, cutAfter! - sent));
        sent = cutAfter!;
        setTimeout(() => res.destroy(), 50);
        return false;
      }) as typeof res.write;
      req.headers["accept-encoding"] = "identity";
    }
    host(req, res, req.url!);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  await new Promise((r) => server?.close(r));
  await fx?.close();
});

// Runs one sample in a folder of its own with only the key set.
async function run(lang: "curl" | "javascript" | "python") {
  const code = streamSamples({
    baseUrl: base,
    path: "/public/v1/export/products",
    query: [],
    key: "$PCA_API_KEY",
  })[lang];
  const dir = mkdtempSync(path.join(os.tmpdir(), "export-sample-"));
  const file = { curl: "export.sh", javascript: "export.mjs", python: "export.py" }[lang];
  writeFileSync(path.join(dir, file), code);
  const command = { curl: "bash", javascript: process.execPath, python: "python3" }[lang];
  const child = spawn(command, [file], {
    cwd: dir,
    env: { ...({} as NodeJS.ProcessEnv), PATH: process.env.PATH, HOME: dir, PCA_API_KEY: fx.acme.full },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const exit = await new Promise<number | null>((resolve) => child.on("close", resolve));
  return { exit, stdout, stderr, dir };
}

describe("the export's code samples", () => {
  it("curl saves the whole stream, decompressed; its last line is the end line", async () => {
    const r = await run("curl");
    expect(r.exit, r.stderr).toBe(0);
    const lines = readFileSync(path.join(r.dir, "products.ndjson"), "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(3_001);
    expect(JSON.parse(lines.at(-1)!)).toEqual({ end: true, cursor: head, count: 3_000 });
    expect(r.stdout.trim()).toBe(lines.at(-1));
  });

  it.each(["javascript", "python"] as const)("%s reads every line and reports the end line", async (lang) => {
    const r = await run(lang);
    expect(r.exit, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^3000 items; the change feed continues from cursor ${head}\\n$`));
  });

  it.each(["javascript", "python"] as const)(
    "%s says a stream cut before its end line is cut, and the id to resume after",
    async (lang) => {
      cutAfter = 100_000;
      try {
        const r = await run(lang);
        expect(r.exit).not.toBe(0);
        expect(r.stdout).toBe("");
        const after = /export cut: ask again with after=(\w+)/.exec(r.stderr)?.[1];
        expect(after, r.stderr).toMatch(/^prd_/);
      } finally {
        cutAfter = undefined;
      }
    },
  );
});
