// The "Webhooks (preview)" guide (lib/portal/guides/webhooks.preview.md): listed only while the preview `webhooks`
// is on, and its four receivers, two with the API's clients (JavaScript with @public-catalog/client's verifyWebhook,
// the package packed and installed offline into the receiver's directory; Python with pca_client.py's
// verify_webhook, the module copied beside it) and two without (JavaScript with node:crypto, Python with the
// standard library), taken from the rendered page and run as written as child processes, receive real deliveries:
// POSTed by postWebhook, signed by signWebhook, as the engine sends them. Each accepts a signed delivery (204, the event printed once however often
// it comes), either secret of a roll, a body with non-ASCII characters, and rejects (401) a tampered body, id or
// timestamp, another secret, and a delivery older than five minutes.
import { attemptWaits, RETRY_LIMIT, scheduleSummary } from "@/lib/webhooks/schedule";
import { spawn, type ChildProcess } from "node:child_process";
import { copyFileSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { resetConfig } from "@/lib/config";
import { getGuide, getGuides } from "@/lib/portal/guides";
import { postWebhook } from "@/lib/webhooks/outbound";
import { newWebhookSecret, signWebhook } from "@/lib/webhooks/signing";
import { installTypeScriptClient } from "../support/client-package";
import { guideSamples } from "../support/guide-samples";

const SLUG = "webhooks";

function preview(features: string) {
  vi.stubEnv("PUBLIC_API_PREVIEW", features);
  resetConfig();
}

describe("the guide", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    resetConfig();
  });

  it("is listed only while the preview webhooks is on", () => {
    for (const features of ["", "changes,export", "writes,details"]) {
      preview(features);
      expect(getGuide(SLUG), features).toBeUndefined();
      expect(getGuides().map((g) => g.slug)).not.toContain(SLUG);
    }
    for (const features of ["webhooks", "all"]) {
      preview(features);
      const guide = getGuide(SLUG)!;
      expect(guide.title).toBe("Webhooks (preview)");
      expect(guide.markdown).not.toMatch(/\{\{|\}\}/);
    }
    // The clients first, then verifying by hand.
    const headings = [...getGuide(SLUG)!.markdown.matchAll(/^## (.+)$/gm)].map((m) => m[1]!);
    expect(headings[0]).toBe("With the client");
    expect(headings).toContain("Without a client: verifying a delivery");
  });

  it("says what the engine does: headers, schedule, private URLs switch, retention", () => {
    preview("webhooks");
    vi.stubEnv("CHANGES_RETENTION_DAYS", "9");
    resetConfig();
    const md = getGuide(SLUG)!.markdown;
    for (const header of ["webhook-id", "webhook-timestamp", "webhook-signature"])
      expect(md).toContain(header);
    expect(md).toContain("the event's **cursor**");
    expect(md).toContain("WEBHOOKS_ALLOW_PRIVATE_URLS=true");
    expect(md).toContain("The feed keeps events 9 days");
    // The engine's own schedule (lib/webhooks/schedule.ts, what the worker computes), not a table written apart.
    const schedule = [...md.matchAll(/^\| (\d+) \| ([^|]+) \|$/gm)].map((m) => m[2]!.trim());
    expect(schedule).toEqual(attemptWaits().map((a) => a.wait));
    expect(schedule[0]).toBe("immediately");
    expect(schedule).toHaveLength(RETRY_LIMIT + 1);
    expect(md).toContain(scheduleSummary());
    expect(scheduleSummary()).toMatch(/^15 attempts over 26\.5 to 32\.5 hours/);
  });
});

// The receivers with a client ("client-…") and without.
type Lang = "client-js" | "client-python" | "js" | "python";
const LANGS = ["client-js", "client-python", "js", "python"] as const;
const FILES: Record<Lang, string> = {
  "client-js": "webhook-receiver.mjs",
  "client-python": "webhook_receiver.py",
  js: "webhook-receiver.mjs",
  python: "webhook_receiver.py",
};
const PYTHON_CLIENT = path.resolve(import.meta.dirname, "../../clients/python/pca_client.py");

// A receiver from the guide, running: its port, its output, how to wait for a line of it.
interface Receiver {
  child: ChildProcess;
  port: number;
  stdout(): string;
  // Resolves once the output has `n` lines matching `line` (a child's output may come after its HTTP answer).
  waitForLines(line: string | RegExp, n?: number): Promise<void>;
  stop(): Promise<void>;
}

describe("the guide's receivers, given real deliveries", { timeout: 60_000 }, () => {
  let code: Record<Lang, string>;
  const secret = newWebhookSecret();
  const running: Receiver[] = [];

  beforeAll(() => {
    preview("webhooks");
    code = guideSamples(getGuide(SLUG)!.markdown, {
      "client-js": "// webhook-receiver.mjs: with @public-catalog/client",
      "client-python": "# webhook_receiver.py: with pca_client",
      js: "// webhook-receiver.mjs: verifies",
      python: "# webhook_receiver.py: verifies",
    });
    vi.unstubAllEnvs();
    resetConfig();
  });

  afterAll(async () => {
    await Promise.all(running.map((r) => r.stop()));
  });

  // Starts a receiver with only its secret, PORT=0 (the system picks a free one: it prints it) and a PATH set; one
  // with a client gets it first, as the guide says: the package installed from its tarball, the module copied.
  async function start(lang: Lang): Promise<Receiver> {
    const dir = mkdtempSync(path.join(os.tmpdir(), `webhook-guide-${lang}-`));
    if (lang === "client-js") await installTypeScriptClient(dir);
    if (lang === "client-python") copyFileSync(PYTHON_CLIENT, path.join(dir, "pca_client.py"));
    const file = FILES[lang];
    writeFileSync(path.join(dir, file), code[lang]);
    const child = spawn(file.endsWith(".py") ? "python3" : process.execPath, [file], {
      cwd: dir,
      env: {
        ...({} as NodeJS.ProcessEnv),
        PATH: process.env.PATH,
        HOME: dir,
        WEBHOOK_SECRET: secret,
        PORT: "0",
      },
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d) => (stdout += d));
    child.stderr!.on("data", (d) => (stderr += d));
    const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
    let port = 0;
    for (let i = 0; i < 200 && !port; i++) {
      port = Number(stdout.match(/^listening on http:\/\/localhost:(\d+)$/m)?.[1] ?? 0);
      if (!port) {
        if (child.exitCode !== null) break;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    if (!port) throw new Error(`${lang}: did not start:\n${stdout}\n${stderr}`);
    const r: Receiver = {
      child,
      port,
      stdout: () => stdout,
      async waitForLines(line, n = 1) {
        const count = () =>
          stdout.split("\n").filter((l) => (typeof line === "string" ? l === line : line.test(l))).length;
        for (let i = 0; i < 100 && count() < n; i++) await new Promise((r) => setTimeout(r, 20));
        expect(count(), `${lang}: ${line} in:\n${stdout}`).toBe(n);
      },
      async stop() {
        if (child.exitCode === null) child.kill("SIGTERM");
        await exited;
      },
    };
    running.push(r);
    return r;
  }

  const event = (cursor: string, label: string) =>
    JSON.stringify({
      cursor,
      type: "products",
      id: `prd_guide${cursor}`,
      op: "upsert",
      at: "2026-06-07T09:30:12.345Z",
      item: { id: `prd_guide${cursor}`, identifier: `ACM-${cursor}`, label, status: "draft" },
    });

  // One delivery as the engine sends it: the event's cursor as webhook-id, signed now (or at `at`).
  async function deliver(
    r: Receiver,
    body: string,
    o: {
      id: string;
      secrets?: string[];
      at?: number;
      tamper?: (h: Record<string, string>) => void;
      /** A body sent instead of the one signed. */
      send?: string;
    },
  ) {
    const ts = o.at ?? Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = {
      "webhook-id": o.id,
      "webhook-timestamp": String(ts),
      "webhook-signature": signWebhook(o.secrets ?? [secret], o.id, ts, body),
    };
    o.tamper?.(headers);
    return postWebhook(`http://127.0.0.1:${r.port}/hooks/catalog`, headers, o.send ?? body, {
      allowPrivate: true,
      timeoutMs: 5000,
    });
  }

  describe.each(LANGS)("%s", (lang) => {
    let r: Receiver;
    beforeAll(async () => {
      r = await start(lang);
    }, 180_000);

    it("accepts a signed delivery and handles its event once, however often it comes", async () => {
      const body = event("4711", "Chaise « Crème brûlée » — 40 €");
      for (let i = 0; i < 3; i++) {
        const res = await deliver(r, body, { id: "4711" });
        expect(res, `delivery ${i + 1}`).toMatchObject({ ok: true, status: 204 });
      }
      await r.waitForLines("upsert products prd_guide4711 (cursor 4711)", 1);
      // Still once a moment later: no second line on its way.
      await new Promise((resolve) => setTimeout(resolve, 200));
      await r.waitForLines("upsert products prd_guide4711 (cursor 4711)", 1);
    });

    it("accepts either secret of a roll (two signatures in the header)", async () => {
      const other = newWebhookSecret();
      const a = await deliver(r, event("4712", "Roll A"), { id: "4712", secrets: [other, secret] });
      expect(a).toMatchObject({ ok: true, status: 204 });
      const b = await deliver(r, event("4713", "Roll B"), { id: "4713", secrets: [secret, other] });
      expect(b).toMatchObject({ ok: true, status: 204 });
      await r.waitForLines("upsert products prd_guide4712 (cursor 4712)");
      await r.waitForLines("upsert products prd_guide4713 (cursor 4713)");
    });

    it("rejects a tampered body, id or timestamp, another secret and an old delivery (401, not handled)", async () => {
      const body = event("4720", "Original");
      const plus1 = (v: string | undefined) => String(Number(v) + 1);
      const cases = {
        body: () => deliver(r, body, { id: "4720", send: body.replace("Original", "Tampered") }),
        id: () => deliver(r, body, { id: "4720", tamper: (h) => (h["webhook-id"] = "4721") }),
        timestamp: () =>
          deliver(r, body, {
            id: "4720",
            tamper: (h) => (h["webhook-timestamp"] = plus1(h["webhook-timestamp"])),
          }),
        secret: () => deliver(r, body, { id: "4720", secrets: [newWebhookSecret()] }),
        old: () => deliver(r, body, { id: "4720", at: Math.floor(Date.now() / 1000) - 301 }),
        unsigned: () => deliver(r, body, { id: "4720", tamper: (h) => delete h["webhook-signature"] }),
      };
      for (const [name, send] of Object.entries(cases)) {
        expect(await send(), name).toMatchObject({ ok: false, status: 401 });
      }
      // One line per refusal (the earlier tests' deliveries all verified).
      await r.waitForLines(/^rejected/, Object.keys(cases).length);
      expect(r.stdout()).not.toContain("prd_guide4720");
      // The untouched delivery is accepted.
      expect(await deliver(r, body, { id: "4720" })).toMatchObject({ ok: true, status: 204 });
      await r.waitForLines("upsert products prd_guide4720 (cursor 4720)");
    });
  });
});
