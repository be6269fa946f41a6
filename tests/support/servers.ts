import { randomBytes } from "node:crypto";
import pg from "pg";

// The Postgres server URL the suites use; `npm test` starts one and sets it when it is not given.
export function serverDatabaseUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url)
    throw new Error(
      "TEST_DATABASE_URL is not set: run the suites with `npm test`, which starts Postgres and Redis",
    );
  return url;
}

// The Redis server URL the suites use; `npm test` starts one and sets it when it is not given.
export function serverRedisUrl(): string {
  const url = process.env.TEST_REDIS_URL;
  if (!url)
    throw new Error(
      "TEST_REDIS_URL is not set: run the suites with `npm test`, which starts Postgres and Redis",
    );
  return url;
}

// Creates an empty database of its own on the test server (one per suite, so suites run in parallel); returns its URL and a drop function.
export async function createTestDatabase(label = "t"): Promise<{ url: string; drop: () => Promise<void> }> {
  const serverUrl = serverDatabaseUrl();
  const name = `${label.replace(/[^a-z0-9_]/gi, "_").toLowerCase()}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`drop database if exists "${name}" with (force)`);
      await c.end();
    },
  };
}
