import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, configSchema, loadConfig } from "@/lib/config";
import { ROOT, runScript } from "./cli/run";

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe("loadConfig", () => {
  it("runs with no variable at all: embedded database, local base URL, documented defaults", () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      NODE_ENV: "development",
      PORT: 3000,
      DATA_DIR: ".data",
      DB_POOL_SIZE: 10,
      DB_CONNECT_TIMEOUT_MS: 1000,
      DB_STATEMENT_TIMEOUT_MS: 1000,
      DB_COUNT_TIMEOUT_MS: 30_000,
      DB_ROW_SECURITY: false,
      RATE_LIMIT_ENABLED: true,
      RATE_LIMIT_REQUESTS: 600,
      RATE_LIMIT_WINDOW_SECONDS: 60,
      AUTH_FAILURE_LIMIT: 100,
      AUTH_FAILURE_WINDOW_SECONDS: 60,
      RATE_LIMIT_ON_BACKEND_ERROR: "allow",
      RATE_LIMIT_TIMEOUT_MS: 250,
      TRUST_PROXY: false,
      KEY_CACHE_TTL_SECONDS: 5,
      KEY_CACHE_MAX_ENTRIES: 10_000,
      PUBLIC_API_WRITE_PREVIEW: false,
      WEBHOOKS_ALLOW_PRIVATE_URLS: false,
      WEBHOOKS_DELIVERY: "worker",
      USAGE_ENABLED: true,
      REQUEST_LOG_ENABLED: true,
      USAGE_FLUSH_MS: 15_000,
      USAGE_RETENTION_DAYS: 30,
      USAGE_MAX_PENDING: 50_000,
      REQUEST_LOG_MAX_PER_ORG: 10_000,
      REQUEST_LOG_MAX_AGE_DAYS: 7,
      REQUEST_LOG_MAX_PER_SECOND: 200,
      REQUEST_LOG_QUEUE_MAX: 20_000,
      DEMO_SEED: "auto",
      baseUrl: "http://localhost:3000",
      dbDriver: "pglite",
    });
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.REDIS_URL).toBeUndefined();
    expect(c.AUTH_SECRET).toBeUndefined();
  });

  it("treats empty values as unset and reads process.env by default", () => {
    expect(loadConfig({ PORT: "", DATABASE_URL: "" })).toMatchObject({ PORT: 3000, dbDriver: "pglite" });
    expect(loadConfig().dbDriver).toMatch(/^(pglite|pg|vercel)$/);
  });

  it("parses values, derives the base URL and picks the database driver", () => {
    expect(loadConfig({ PORT: "8080" }).baseUrl).toBe("http://localhost:8080");
    expect(loadConfig({ PUBLIC_BASE_URL: "https://api.example.com//" }).baseUrl).toBe(
      "https://api.example.com",
    );
    expect(loadConfig({ DATABASE_URL: "postgres://u@h/db" }).dbDriver).toBe("pg");
    expect(loadConfig({ POSTGRES_URL: "postgresql://u@h/db" }).dbDriver).toBe("vercel");
    for (const [text, value] of [
      ["true", true],
      ["1", true],
      ["yes", true],
      ["on", true],
      ["false", false],
      ["0", false],
      ["no", false],
      ["off", false],
    ] as const) {
      expect(loadConfig({ RATE_LIMIT_ENABLED: text }).RATE_LIMIT_ENABLED).toBe(value);
    }
    expect(loadConfig({ KEY_CACHE_TTL_SECONDS: "0" }).KEY_CACHE_TTL_SECONDS).toBe(0);
  });

  // One bad value per variable that can be wrong; each must stop start-up with a message naming it.
  const BAD: [string, string][] = [
    ["NODE_ENV", "staging"],
    ["PORT", "abc"],
    ["PORT", "0"],
    ["PORT", "65536"],
    ["PORT", "80.5"],
    ["PUBLIC_BASE_URL", "api.example.com"],
    ["DATABASE_URL", "mysql://u@h/db"],
    ["POSTGRES_URL", "https://neon.tech"],
    ["DB_POOL_SIZE", "0"],
    ["DB_POOL_SIZE", "500"],
    ["DB_CONNECT_TIMEOUT_MS", "50"],
    ["DB_STATEMENT_TIMEOUT_MS", "1s"],
    ["DB_COUNT_TIMEOUT_MS", "50"],
    ["API_MAX_CONCURRENT", "0"],
    ["API_MAX_QUEUE", "-1"],
    ["API_QUEUE_TIMEOUT_MS", "1s"],
    ["VERCEL_POSTGRES_HTTP_ENDPOINT", "localhost:4444"],
    ["REDIS_URL", "http://127.0.0.1:6379"],
    ["UPSTASH_REDIS_REST_URL", "redis://x.upstash.io"],
    ["RATE_LIMIT_ENABLED", "maybe"],
    ["RATE_LIMIT_REQUESTS", "-1"],
    ["RATE_LIMIT_REQUESTS", "lots"],
    ["RATE_LIMIT_WINDOW_SECONDS", "0"],
    ["AUTH_FAILURE_LIMIT", "0"],
    ["AUTH_FAILURE_WINDOW_SECONDS", "86401"],
    ["RATE_LIMIT_ON_BACKEND_ERROR", "ignore"],
    ["RATE_LIMIT_TIMEOUT_MS", "5"],
    ["TRUST_PROXY", "sometimes"],
    ["KEY_CACHE_TTL_SECONDS", "301"],
    ["KEY_CACHE_MAX_ENTRIES", "1"],
    ["PAGE_CACHE_MAX_ENTRIES", "-1"],
    ["PAGE_CACHE_MAX_BYTES", "1e6"],
    ["CATALOG_MEMORY_MAX_PRODUCTS", "-1"],
    ["CATALOG_MEMORY_MIN_PRODUCTS", "many"],
    ["CHANGES_RETENTION_DAYS", "0"],
    ["PUBLIC_API_WRITE_PREVIEW", "enabled"],
    ["WEBHOOKS_ALLOW_PRIVATE_URLS", "maybe"],
    ["WEBHOOKS_DELIVERY", "sometimes"],
    ["PUBLIC_API_PREVIEW", "writes,webhook"],
    ["AUTH_SECRET", "too-short"],
    ["AUTH_OIDC_ISSUER", "login.example.com"],
    ["SIGN_IN_FAILURE_LIMIT", "0"],
    ["SIGN_IN_FAILURE_WINDOW_SECONDS", "86401"],
    ["DEMO_SEED", "always"],
    ["SMTP_URL", "mail.example.com:25"],
    ["SMTP_FROM", "x"],
    ["USAGE_ENABLED", "maybe"],
    ["DB_ROW_SECURITY", "sometimes"],
    ["REQUEST_LOG_ENABLED", "2"],
    ["USAGE_FLUSH_MS", "10"],
    ["USAGE_RETENTION_DAYS", "0"],
    ["USAGE_MAX_PENDING", "5"],
    ["REQUEST_LOG_MAX_PER_ORG", "99"],
    ["REQUEST_LOG_MAX_AGE_DAYS", "366"],
    ["REQUEST_LOG_MAX_PER_SECOND", "0"],
    ["REQUEST_LOG_QUEUE_MAX", "1e4"],
  ];

  it.each(BAD)("refuses %s=%s with a ConfigError naming it", (name, value) => {
    const env: Record<string, string> = { [name]: value };
    if (name === "UPSTASH_REDIS_REST_URL") env.UPSTASH_REDIS_REST_TOKEN = "token";
    const err = configError(env);
    expect(err.variables).toEqual([name]);
    expect(err.message).toContain(`${name}=${JSON.stringify(value)}`);
  });

  it("covers every variable of the schema that can hold a bad value", () => {
    const free = new Set([
      "DATA_DIR",
      "VERCEL_POSTGRES_WS_PROXY",
      "UPSTASH_REDIS_REST_TOKEN",
      "AUTH_OIDC_CLIENT_ID",
      "AUTH_OIDC_CLIENT_SECRET",
    ]); // any non-empty text
    const tested = new Set(BAD.map(([n]) => n));
    expect(Object.keys(configSchema.shape).filter((k) => !free.has(k) && !tested.has(k))).toEqual([]);
  });

  it("names every bad variable at once", () => {
    const err = configError({ PORT: "x", DEMO_SEED: "y", REDIS_URL: "z" });
    expect(err.variables.sort()).toEqual(["DEMO_SEED", "PORT", "REDIS_URL"]);
    for (const n of err.variables) expect(err.message).toContain(n);
  });

  it("refuses DATABASE_URL and POSTGRES_URL together", () => {
    const err = configError({ DATABASE_URL: "postgres://a@h/db", POSTGRES_URL: "postgres://b@h/db" });
    expect(err.variables).toEqual(["DATABASE_URL", "POSTGRES_URL"]);
    expect(err.message).toMatch(/DATABASE_URL and POSTGRES_URL/);
  });

  it("refuses an Upstash URL without its token, and a token without its URL", () => {
    const noToken = configError({ UPSTASH_REDIS_REST_URL: "https://x.upstash.io" });
    expect(noToken.variables).toEqual(["UPSTASH_REDIS_REST_TOKEN"]);
    expect(noToken.message).toContain("UPSTASH_REDIS_REST_TOKEN");
    const noUrl = configError({ UPSTASH_REDIS_REST_TOKEN: "secret" });
    expect(noUrl.variables).toEqual(["UPSTASH_REDIS_REST_URL"]);
    expect(
      loadConfig({ UPSTASH_REDIS_REST_URL: "https://x.upstash.io", UPSTASH_REDIS_REST_TOKEN: "t" }),
    ).toMatchObject({ UPSTASH_REDIS_REST_TOKEN: "t" });
  });
});

describe("npm start with a bad configuration", () => {
  it("exits 1 naming the variable, before building or opening anything", async () => {
    const buildId = path.join(ROOT, ".next", "BUILD_ID");
    const builtBefore = existsSync(buildId) ? statSync(buildId).mtimeMs : null;
    const dataDir = path.join(ROOT, "tests", "artifacts", `never-created-${process.pid}`);
    const started = Date.now();
    const r = await runScript("scripts/start.ts", [], { PORT: "abc", DATA_DIR: dataDir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PORT="abc"');
    expect(r.stderr).toContain("expected a whole number");
    expect(r.stdout).not.toContain("Building");
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(existsSync(buildId) ? statSync(buildId).mtimeMs : null).toBe(builtBefore);
    expect(existsSync(dataDir)).toBe(false);
  });

  it("also refuses two database URLs at once", async () => {
    const r = await runScript("scripts/start.ts", [], {
      DATABASE_URL: "postgres://a@127.0.0.1:1/x",
      POSTGRES_URL: "postgres://b@127.0.0.1:1/x",
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("DATABASE_URL and POSTGRES_URL");
  });
});
