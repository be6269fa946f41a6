// The TypeScript client is usable from another project: built (tsc, tsconfig.build.json), packed (npm pack), the
// tarball installed into a fresh project offline (it has no dependencies), then a plain `node` ESM script there
// imports @public-catalog/client, lists a resource from a real server and verifies a webhook signature; a consumer's
// .ts file typechecks against the installed package's declarations.
import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newWebhookSecret, signWebhook } from "@/lib/webhooks/signing";
import { startApiServer, type ApiServer } from "../support/api-server";

const root = path.resolve(import.meta.dirname, "../..");
const packageDir = path.join(root, "clients/typescript");
const tsc = path.join(root, "node_modules/.bin/tsc");

let api: ApiServer;
let work: string;
let consumer: string;

// The environment of the commands: npm kept to the temp dir (its cache; no registry is needed).
function envOf(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    npm_config_cache: path.join(work, "npm-cache"),
    npm_config_update_notifier: "false",
    ...extra,
  };
}

// Runs a command that needs no server in this process; returns stdout.
function run(cmd: string, args: string[], cwd: string): string {
  return execFileSync(cmd, args, { cwd, encoding: "utf8", env: envOf(), stdio: ["ignore", "pipe", "pipe"] });
}

// Runs a command that calls the server in this process (which must keep answering meanwhile); returns stdout.
async function runAsync(
  cmd: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<string> {
  const { stdout } = await promisify(execFile)(cmd, args, { cwd, env: envOf(env), timeout: 60_000 });
  return stdout;
}

beforeAll(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), "pca-ts-package-"));
  // The package's own files, built into a copy of its directory (the checkout's dist/ is left alone).
  const pkg = path.join(work, "package");
  mkdirSync(pkg);
  for (const f of ["package.json", "README.md"]) cpSync(path.join(packageDir, f), path.join(pkg, f));
  run(tsc, ["-p", path.join(packageDir, "tsconfig.build.json"), "--outDir", path.join(pkg, "dist")], root);
  run("npm", ["pack", "--pack-destination", work], pkg);
  const tarball = readdirSync(work).find((f) => f.endsWith(".tgz"))!;
  consumer = path.join(work, "consumer");
  mkdirSync(consumer);
  writeFileSync(
    path.join(consumer, "package.json"),
    JSON.stringify({ name: "consumer", version: "1.0.0", private: true, type: "module" }),
  );
  run("npm", ["install", "--offline", "--no-audit", "--no-fund", path.join(work, tarball)], consumer);
  api = await startApiServer("pglite", { PUBLIC_API_PREVIEW: "all" });
}, 180_000);

afterAll(async () => {
  await api?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("the packed TypeScript client, installed in another project", () => {
  it("holds the built files only, and declares no dependency", () => {
    const files = readdirSync(path.join(consumer, "node_modules/@public-catalog/client/dist"));
    expect(files).toEqual(expect.arrayContaining(["index.js", "index.d.ts", "openapi.d.ts", "webhooks.js"]));
    const lock = run("npm", ["ls", "--all", "--json"], consumer);
    expect(Object.keys(JSON.parse(lock).dependencies)).toEqual(["@public-catalog/client"]);
  });

  it("lists a resource from a real server and verifies a webhook, under plain node", async () => {
    const secret = newWebhookSecret();
    const body = JSON.stringify({
      cursor: "7",
      type: "media",
      id: "med_x",
      op: "delete",
      at: "x",
      item: null,
    });
    const ts = Math.floor(Date.now() / 1000);
    const headers = { "webhook-id": "msg_7", "webhook-timestamp": String(ts) };
    const signature = signWebhook([secret], "msg_7", ts, body);
    writeFileSync(
      path.join(consumer, "main.mjs"),
      `import { CatalogClient, verifyWebhook, WebhookVerificationError } from "@public-catalog/client";
const client = new CatalogClient({ baseUrl: process.env.BASE_URL, key: process.env.KEY });
const ids = [];
for await (const family of client.families.list({ perPage: 3 })) ids.push(family.id);
const { pagination } = await client.families.page({ perPage: 1 });
const headers = { ...JSON.parse(process.env.HEADERS), "webhook-signature": process.env.SIGNATURE };
const event = await verifyWebhook(process.env.SECRET, headers, process.env.BODY);
const refused = await verifyWebhook(process.env.SECRET, headers, process.env.BODY + " ").catch((e) => e);
console.log(JSON.stringify({ ids, total: pagination.total, event, refused: refused instanceof WebhookVerificationError }));
`,
    );
    const out = await runAsync("node", ["main.mjs"], consumer, {
      BASE_URL: api.baseUrl,
      KEY: api.fx.acme.full,
      SECRET: secret,
      HEADERS: JSON.stringify(headers),
      SIGNATURE: signature,
      BODY: body,
    });
    const result = JSON.parse(out) as { ids: string[]; total: number; event: unknown; refused: boolean };
    expect(result.total).toBeGreaterThan(3);
    expect(result.ids).toHaveLength(result.total);
    expect(new Set(result.ids).size).toBe(result.total);
    expect(result.event).toEqual(JSON.parse(body));
    expect(result.refused).toBe(true);
  });

  it("typechecks a consumer's TypeScript against the installed declarations", () => {
    writeFileSync(
      path.join(consumer, "consumer.ts"),
      `import { CatalogApiError, CatalogClient, verifyWebhook, type ListItem, type ProductDetail } from "@public-catalog/client";
export async function labels(client: CatalogClient): Promise<string[]> {
  const out: string[] = [];
  for await (const p of client.products.list({ sort: "identifier.asc" })) out.push(p.label satisfies ListItem<"products">["label"]);
  const detail: ProductDetail = await client.products.get("prd_x");
  for await (const line of client.export("media")) if ("end" in line) out.push(line.cursor);
  for await (const page of client.follow({ after: "0", wait: 1 })) out.push(...page.data.map((e) => e.op));
  const event = await verifyWebhook("whsec_x", new Headers(), "{}");
  try { await client.changes({ after: "0" }); } catch (e) { if (e instanceof CatalogApiError && e.code === "PUBLIC_API_CURSOR_EXPIRED") out.push(e.message); }
  return [...out, detail.identifier, event.type];
}
`,
    );
    writeFileSync(
      path.join(consumer, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          lib: ["ES2023", "DOM"],
          module: "NodeNext",
          moduleResolution: "NodeNext",
          types: [],
          strict: true,
          noEmit: true,
          skipLibCheck: false,
        },
        files: ["consumer.ts"],
      }),
    );
    expect(run(tsc, ["-p", "tsconfig.json"], consumer)).toBe("");
  });
});
