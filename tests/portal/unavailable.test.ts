// The portal with its database unreachable: the changelog feeds answer 503 in the public API's error shape, the
// proxy answers /changelog with a 503 page (Retry-After, readable HTML) and lets the pages that need no database
// through; the health check's cache, with time and probe injected.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { NextRequest } from "next/server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GET as atomFeed } from "@/app/changelog/atom.xml/route";
import { GET as rssFeed } from "@/app/changelog/rss.xml/route";
import { migrate } from "@/db/migrate";
import { getConfig, resetConfig } from "@/lib/config";
import { createRuntime, getRuntime } from "@/lib/runtime";
import { swapRuntime } from "../support/api";
import { DOWN_FRESH_MS, UP_FRESH_MS, databaseReachable, resetDatabaseHealth } from "@/lib/portal/unavailable";
import { proxy } from "@/proxy";
import { freePort } from "../support/ports";

const saved = { DATABASE_URL: process.env.DATABASE_URL, DATA_DIR: process.env.DATA_DIR };

// Points the process's runtime (whose database the pages and feeds use) at this environment.
async function useDatabase(env: { DATABASE_URL?: string; DATA_DIR?: string }): Promise<void> {
  for (const key of ["DATABASE_URL", "DATA_DIR"] as const) {
    if (env[key] === undefined) delete process.env[key];
    else process.env[key] = env[key];
  }
  resetConfig();
  await swapRuntime(createRuntime(getConfig()));
  resetDatabaseHealth();
}

afterEach(async () => {
  await useDatabase(saved);
});

function page(pathname: string): NextRequest {
  return new NextRequest(new URL(pathname, "http://127.0.0.1:3000"), { headers: { accept: "text/html" } });
}

describe("database unreachable", () => {
  beforeEach(async () => {
    await useDatabase({ DATABASE_URL: `postgres://postgres@127.0.0.1:${await freePort()}/postgres` });
  });

  it.each([
    ["rss.xml", rssFeed],
    ["atom.xml", atomFeed],
  ])(
    "/changelog/%s: 503 PUBLIC_API_UNAVAILABLE with Retry-After, nothing internal, not cacheable",
    async (_, GET) => {
      const started = Date.now();
      const res = await GET();
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(res.status).toBe(503);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      const text = await res.text();
      const body = JSON.parse(text) as Record<string, unknown>;
      expect(body).toEqual({
        statusCode: 503,
        message: "Service momentanément indisponible, réessayez plus tard.",
        error: "Service Unavailable",
        code: "PUBLIC_API_UNAVAILABLE",
        requestId: expect.any(String),
      });
      expect(res.headers.get("x-request-id")).toBe(body.requestId);
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(res.headers.get("cache-control")).toMatch(/no-store/);
      expect(text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
    },
  );

  it("the proxy answers /changelog with a readable 503 page and Retry-After, under the portal's CSP", async () => {
    const res = await proxy(page("/changelog"));
    expect(res.status).toBe(503);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const csp = res.headers.get("content-security-policy") ?? "";
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    const html = await res.text();
    expect(html).toContain("This page is temporarily unavailable");
    expect(html).toContain(`<style nonce="${nonce}">`);
    expect(html).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
    // A trailing slash is the same page.
    expect((await proxy(page("/changelog/"))).status).toBe(503);
  });

  it("the pages that need no database go through the proxy to Next.js as usual", async () => {
    for (const pathname of [
      "/",
      "/docs",
      "/docs/getting-started",
      "/reference",
      "/reference/products",
      "/search",
    ]) {
      const res = await proxy(page(pathname));
      expect(res.status, pathname).toBe(200);
      expect(res.headers.get("x-middleware-next"), pathname).toBe("1");
      expect(res.headers.get("content-security-policy"), pathname).toContain("'nonce-");
    }
  });
});

describe("database reachable", () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), "pca-portal-"));
    await useDatabase({ DATA_DIR: dataDir });
    await migrate(await getRuntime().db());
  });
  afterEach(async () => {
    await swapRuntime(undefined);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("the feeds answer 200 with the entries, and the proxy lets /changelog through", async () => {
    const rss = await rssFeed();
    expect(rss.status).toBe(200);
    expect(rss.headers.get("content-type")).toBe("application/rss+xml; charset=utf-8");
    expect(await rss.text()).toContain("First public documentation base");
    const atom = await atomFeed();
    expect(atom.status).toBe(200);
    expect(await atom.text()).toContain("<feed");
    const res = await proxy(page("/changelog"));
    expect(res.status).toBe(200);
    expect(res.headers.get("x-middleware-next")).toBe("1");
  });
});

describe("the health check's cache", () => {
  beforeEach(() => resetDatabaseHealth());

  // A probe whose answers the test decides, counting its calls.
  function scriptedProbe(answers: boolean[]) {
    const probe = async () => {
      probe.calls++;
      return answers.shift() ?? true;
    };
    probe.calls = 0;
    return probe;
  }

  it("an 'up' answer is trusted for UP_FRESH_MS, then checked again", async () => {
    let now = 1_000_000;
    const probe = scriptedProbe([true, false]);
    expect(await databaseReachable(probe, () => now)).toBe(true);
    now += UP_FRESH_MS - 1;
    expect(await databaseReachable(probe, () => now)).toBe(true);
    expect(probe.calls).toBe(1);
    now += 1;
    expect(await databaseReachable(probe, () => now)).toBe(false);
    expect(probe.calls).toBe(2);
  });

  it("concurrent callers share one probe", async () => {
    let release!: (v: boolean) => void;
    let calls = 0;
    const probe = () => {
      calls++;
      return new Promise<boolean>((resolve) => (release = resolve));
    };
    const answers = Promise.all([
      databaseReachable(probe),
      databaseReachable(probe),
      databaseReachable(probe),
    ]);
    release(true);
    expect(await answers).toEqual([true, true, true]);
    expect(calls).toBe(1);
  });

  it("while down: false at once, one background probe at a time once stale, up again when it answers", async () => {
    let now = 5_000_000;
    const clock = () => now;
    const first = scriptedProbe([false]);
    expect(await databaseReachable(first, clock)).toBe(false);
    now += DOWN_FRESH_MS - 1;
    expect(await databaseReachable(first, clock)).toBe(false);
    expect(first.calls).toBe(1);

    now += 1;
    let release!: (v: boolean) => void;
    let calls = 0;
    const slow = () => {
      calls++;
      return new Promise<boolean>((resolve) => (release = resolve));
    };
    // Stale "down": answered without waiting for the probe it starts; a second caller starts no other probe.
    expect(await databaseReachable(slow, clock)).toBe(false);
    expect(await databaseReachable(slow, clock)).toBe(false);
    expect(calls).toBe(1);
    release(true);
    await new Promise((r) => setTimeout(r, 0));
    expect(await databaseReachable(slow, clock)).toBe(true);
    expect(calls).toBe(1);
  });

  it("a probe that throws counts as down", async () => {
    expect(
      await databaseReachable(async () => {
        throw new Error("boom");
      }),
    ).toBe(false);
  });
});
