import { z } from "zod";
import type { DbDriver } from "@/db/client";
import { PREVIEW_FEATURES, parsePreviewList, withNeeds, type PreviewFeature } from "@/lib/preview";

const bool = z
  .enum(["true", "false", "1", "0", "yes", "no", "on", "off"], {
    error: "expected true or false",
  })
  .transform((v) => v === "true" || v === "1" || v === "yes" || v === "on");

const int = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, { error: `expected a whole number from ${min} to ${max}` })
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

const postgresUrl = z
  .string()
  .regex(/^postgres(ql)?:\/\/.+/, { error: "expected a postgres:// or postgresql:// URL" });

const httpUrl = z.string().regex(/^https?:\/\/[^\s/]+/, { error: "expected an http:// or https:// URL" });

// Every environment variable the service reads, with its default. `.env.example` mirrors this list.
export const configSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: int(1, 65535).default(3000),
  PUBLIC_BASE_URL: httpUrl.optional(),
  DATA_DIR: z.string().min(1).default(".data"),
  DATABASE_URL: postgresUrl.optional(),
  POSTGRES_URL: postgresUrl.optional(),
  DB_POOL_SIZE: int(1, 200).default(10),
  /** Longest wait for a pooled connection (opening one included) before the request answers 503. */
  DB_CONNECT_TIMEOUT_MS: int(100, 60_000).default(1000),
  /** Longest a statement may run before the request answers 503 (server statement_timeout and client query_timeout). */
  DB_STATEMENT_TIMEOUT_MS: int(100, 600_000).default(1000),
  /** Longest an exact count may run: shared by concurrent requests and remembered, it may outlast a request. */
  DB_COUNT_TIMEOUT_MS: int(100, 3_600_000).default(30_000),
  /** The public API's admission (lib/public-api/admission.ts): requests at work at once (default: 4 per pooled
   * connection, DB_POOL_SIZE × 4), at most API_MAX_QUEUE waiting for a place, each at most API_QUEUE_TIMEOUT_MS,
   * none let in once the oldest waiting has waited half of it; past these, 503 with Retry-After at once. */
  API_MAX_CONCURRENT: int(1, 100_000).optional(),
  API_MAX_QUEUE: int(0, 1_000_000).default(256),
  API_QUEUE_TIMEOUT_MS: int(10, 60_000).default(1000),
  /**
   * Row-level security on the public API's catalog reads (migration 0025, lib/catalog/row-security.ts): each runs as
   * the role catalog_reader, which sees the key's organization's rows only. off (the default: page 1 pays more for
   * it than the 10 % the decision allowed): as the connecting role. Measured: bench/README.md#row-level-security
   */
  DB_ROW_SECURITY: bool.default(false),
  /** Local testing of @vercel/postgres only: "host:port/path" of a WebSocket→TCP relay (neonConfig.wsProxy). */
  VERCEL_POSTGRES_WS_PROXY: z.string().min(1).optional(),
  /** Local testing of @vercel/postgres only: base URL of the HTTP /sql endpoint (neonConfig.fetchEndpoint). */
  VERCEL_POSTGRES_HTTP_ENDPOINT: httpUrl.optional(),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\/.+/, { error: "expected a redis:// or rediss:// URL" })
    .optional(),
  UPSTASH_REDIS_REST_URL: httpUrl.optional(),
  UPSTASH_REDIS_REST_TOKEN: z.string().min(1).optional(),
  RATE_LIMIT_ENABLED: bool.default(true),
  RATE_LIMIT_REQUESTS: int(1, 1_000_000).default(600),
  RATE_LIMIT_WINDOW_SECONDS: int(1, 86_400).default(60),
  AUTH_FAILURE_LIMIT: int(1, 1_000_000).default(100),
  AUTH_FAILURE_WINDOW_SECONDS: int(1, 86_400).default(60),
  RATE_LIMIT_ON_BACKEND_ERROR: z
    .enum(["allow", "refuse"], { error: "expected allow or refuse" })
    .default("allow"),
  RATE_LIMIT_TIMEOUT_MS: int(10, 10_000).default(250),
  /** false: the server writes the socket address as the client address; true: a proxy in front appends it to X-Forwarded-For. */
  TRUST_PROXY: bool.default(false),
  KEY_CACHE_TTL_SECONDS: int(0, 300).default(5),
  KEY_CACHE_MAX_ENTRIES: int(10, 1_000_000).default(10_000),
  /** The page cache of list answers: most entries and most bytes per instance; 0 entries: off. */
  PAGE_CACHE_MAX_ENTRIES: int(0, 1_000_000).default(5_000),
  PAGE_CACHE_MAX_BYTES: int(0, 4_294_967_296).default(64 * 1024 * 1024),
  /** Products kept in memory per instance, all organizations together (about 250 bytes each, 500 once its item was
   * served; 0: none), and the fewest an organization needs for its own (lib/catalog/memory). */
  CATALOG_MEMORY_MAX_PRODUCTS: int(0, 100_000_000).default(2_000_000),
  CATALOG_MEMORY_MIN_PRODUCTS: int(0, 100_000_000).default(20_000),
  /** Days the change log keeps an event; a feed cursor older than that is answered 410 (preview feature `changes`). */
  CHANGES_RETENTION_DAYS: int(1, 3650).default(30),
  /** Preview features on, by name: `all`, `none`, or a list such as `writes,details` (lib/preview.ts). */
  PUBLIC_API_PREVIEW: z
    .string()
    .refine((v) => "features" in parsePreviewList(v), {
      error: `expected all, none or a comma-separated list of ${PREVIEW_FEATURES.join(", ")}`,
    })
    .optional(),
  /** The first switch, kept as an alias: true turns on the `writes` preview feature. */
  PUBLIC_API_WRITE_PREVIEW: bool.default(false),
  /** Webhooks (preview `webhooks`): true lets an endpoint be http:// and on a private or loopback address (tests,
   * local development); false: https only, public addresses only, checked at registration and at each connection. */
  WEBHOOKS_ALLOW_PRIVATE_URLS: bool.default(false),
  /** Which process dispatches the feed's events and POSTs them (preview `webhooks`): `worker`, npm start on Postgres
   * runs a delivery worker process beside the server (lib/server/webhooks-worker.ts), so that deliveries never take
   * the API's event loop, and the server only queues (redeliveries, replays); anywhere else (next start, the
   * embedded PGlite, a test's runtime) as `inline`: the process holding the runtime delivers. `elsewhere`: this
   * process only queues, another delivers (npm start's worker, or `npm run webhooks:worker`). */
  WEBHOOKS_DELIVERY: z
    .enum(["worker", "inline", "elsewhere"], { error: "expected worker, inline or elsewhere" })
    .default("worker"),
  AUTH_SECRET: z.string().min(32, { error: "expected at least 32 characters" }).optional(),
  /** OpenID Connect sign-in for the console: issuer, client id and secret go together (all three or none). */
  AUTH_OIDC_ISSUER: httpUrl.optional(),
  AUTH_OIDC_CLIENT_ID: z.string().min(1).optional(),
  AUTH_OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  /** Failed console sign-ins allowed per client address and per account per window. */
  SIGN_IN_FAILURE_LIMIT: int(1, 1_000_000).default(10),
  SIGN_IN_FAILURE_WINDOW_SECONDS: int(1, 86_400).default(900),
  /** Mail: an SMTP server through which invitations are also mailed (nodemailer); unset, nothing is mailed
   * and the console shows the link to copy. */
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/[^\s/]+/, { error: "expected an smtp:// or smtps:// URL" })
    .optional(),
  /** The From of mailed invitations (default: no-reply at the public base URL's host). */
  SMTP_FROM: z.string().min(3).optional(),
  /** Usage per key and hour: counted in memory, written every USAGE_FLUSH_MS; false: not counted. */
  USAGE_ENABLED: bool.default(true),
  /** The request log of each organization's last requests; false: not kept. */
  REQUEST_LOG_ENABLED: bool.default(true),
  /** How often usage and the request log are written (ms); the log also as soon as a tenth of its queue waits. */
  USAGE_FLUSH_MS: int(50, 600_000).default(15_000),
  /** Days usage hours are kept. */
  USAGE_RETENTION_DAYS: int(1, 3650).default(30),
  /** Most (key, hour) buckets waiting in memory (about 400 bytes each); past it, while flushes fail, not counted. */
  USAGE_MAX_PENDING: int(100, 10_000_000).default(50_000),
  /** Most rows of the request log per organization (the newest are kept). */
  REQUEST_LOG_MAX_PER_ORG: int(100, 10_000_000).default(10_000),
  /** Days the request log keeps a row. */
  REQUEST_LOG_MAX_AGE_DAYS: int(1, 365).default(7),
  /** Entries of one organization logged per second at most; the others are counted as dropped. */
  REQUEST_LOG_MAX_PER_SECOND: int(1, 1_000_000).default(200),
  /** Most entries waiting in memory for the next flush (about 1 KB each at most); past it, counted as dropped. */
  REQUEST_LOG_QUEUE_MAX: int(10, 1_000_000).default(20_000),
  DEMO_SEED: z.enum(["auto", "never"], { error: "expected auto or never" }).default("auto"),
});

// The parsed configuration object.
export type Config = z.infer<typeof configSchema> & {
  /** Absolute public base URL without a trailing slash, used for every absolute link. */
  baseUrl: string;
  /** Which database driver the configuration selects. */
  dbDriver: DbDriver;
  /** The preview features on (PUBLIC_API_PREVIEW, and `writes` if PUBLIC_API_WRITE_PREVIEW), in their order. */
  preview: readonly PreviewFeature[];
};

// A configuration value that stops start-up; its message names the variable.
export class ConfigError extends Error {
  constructor(
    readonly variables: string[],
    message: string,
  ) {
    super(message);
    this.name = "ConfigError";
  }
}

// Parses an environment (process.env by default) into a Config, or throws ConfigError naming each bad variable.
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const input: Record<string, string> = {};
  for (const key of Object.keys(configSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== "") input[key] = value;
  }
  const parsed = configSchema.safeParse(input);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? "?");
      return `${name}=${JSON.stringify(input[name] ?? "")}: ${issue.message}`;
    });
    const names = [...new Set(parsed.error.issues.map((i) => String(i.path[0] ?? "?")))];
    throw new ConfigError(names, `Invalid configuration:\n  ${lines.join("\n  ")}`);
  }
  const c = parsed.data;
  if (c.DATABASE_URL && c.POSTGRES_URL) {
    throw new ConfigError(
      ["DATABASE_URL", "POSTGRES_URL"],
      "Invalid configuration:\n  DATABASE_URL and POSTGRES_URL are both set: choose one database driver",
    );
  }
  if (Boolean(c.UPSTASH_REDIS_REST_URL) !== Boolean(c.UPSTASH_REDIS_REST_TOKEN)) {
    const missing = c.UPSTASH_REDIS_REST_URL ? "UPSTASH_REDIS_REST_TOKEN" : "UPSTASH_REDIS_REST_URL";
    throw new ConfigError(
      [missing],
      `Invalid configuration:\n  ${missing}: required with ${missing === "UPSTASH_REDIS_REST_URL" ? "UPSTASH_REDIS_REST_TOKEN" : "UPSTASH_REDIS_REST_URL"}`,
    );
  }
  const oidc = ["AUTH_OIDC_ISSUER", "AUTH_OIDC_CLIENT_ID", "AUTH_OIDC_CLIENT_SECRET"] as const;
  const oidcMissing = oidc.filter((name) => !c[name]);
  if (oidcMissing.length > 0 && oidcMissing.length < oidc.length) {
    const given = oidc.filter((name) => c[name]);
    throw new ConfigError(
      oidcMissing,
      `Invalid configuration:\n  ${oidcMissing.join(", ")}: required with ${given.join(", ")} (OpenID Connect needs all three)`,
    );
  }
  const baseUrl = (c.PUBLIC_BASE_URL ?? `http://localhost:${c.PORT}`).replace(/\/+$/, "");
  const dbDriver = c.DATABASE_URL ? "pg" : c.POSTGRES_URL ? "vercel" : "pglite";
  const listed = c.PUBLIC_API_PREVIEW ? parsePreviewList(c.PUBLIC_API_PREVIEW) : { features: [] };
  const named = "features" in listed ? listed.features : [];
  const preview = withNeeds(c.PUBLIC_API_WRITE_PREVIEW ? [...named, "writes"] : named);
  return { ...c, baseUrl, dbDriver, preview };
}

// The configuration parsed from process.env, kept at module level on purpose rather than in the runtime: getRuntime()
// builds the runtime from it (reading it back from the runtime would be a cycle), getConfig() is the environment's
// configuration, which a runtime built from another one (tests, servers embedding the pipeline) does not replace, and
// reading it (the root layout on every page) builds nothing else. A copy per bundle costs nothing: each parses the
// same environment into the same values.
let cached: Config | undefined;

// The process-wide configuration, parsed on first use.
export function getConfig(): Config {
  cached ??= loadConfig();
  return cached;
}

// Forgets the cached configuration (tests change the environment between suites).
export function resetConfig(): void {
  cached = undefined;
}
