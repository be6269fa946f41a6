import path from "node:path";
import { openDatabase, type Database, type Queryable } from "../../db/client";
import { migrate } from "../../db/migrate";
import type { Config } from "../../lib/config";
import { findOrganizationBySlug } from "../../lib/keys/store";
import { CliError } from "./cli";
import { runningServerPid } from "./pid-file";

// The embedded database folder is held by a running server: another process must not open it (a failure the user
// can act on: the message alone is printed).
export class DatabaseBusyError extends CliError {
  constructor(
    readonly pid: number,
    dataDir: string,
  ) {
    super(
      `The embedded database in ${path.resolve(dataDir, "pglite")} is in use by the running server (pid ${pid}); ` +
        `it cannot be opened by two processes.\n` +
        `Stop the server (Ctrl+C in its terminal, or kill ${pid}) and run this command again, ` +
        `or set DATABASE_URL to a Postgres server that both can share.`,
    );
    this.name = "DatabaseBusyError";
  }
}

// A short description of the configured database, without credentials.
export function describeDatabase(config: Config): string {
  if (config.dbDriver === "pglite") return `embedded PGlite in ${path.resolve(config.DATA_DIR, "pglite")}`;
  const url = new URL((config.dbDriver === "pg" ? config.DATABASE_URL : config.POSTGRES_URL)!);
  const where = `${url.hostname}${url.port ? `:${url.port}` : ""}${url.pathname}`;
  return config.dbDriver === "pg"
    ? `Postgres server ${where} (DATABASE_URL)`
    : `Vercel Postgres ${where} (POSTGRES_URL)`;
}

// Opens the configured database and applies pending migrations; refuses an embedded database held by a running server.
export async function openMigratedDatabase(config: Config): Promise<{ db: Database; applied: string[] }> {
  if (config.dbDriver === "pglite") {
    const pid = runningServerPid(config.DATA_DIR);
    if (pid !== null) throw new DatabaseBusyError(pid, config.DATA_DIR);
  }
  // No statement bound: a migration may build an index for minutes, or wait for another process's migration lock.
  const db = await openDatabase(config, { statementTimeoutMs: 0 });
  try {
    return { db, applied: await migrate(db) };
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
}

// Runs a CLI command on the configured database, migrated first (what was applied is said on stderr), then closed.
export async function withDatabase<T>(config: Config, fn: (db: Database) => Promise<T>): Promise<T> {
  const { db, applied } = await openMigratedDatabase(config);
  if (applied.length)
    console.error(`Applied migrations ${applied.join(", ")} to the ${describeDatabase(config)}.`);
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

// The organization of a slug, or a CliError that lists the known ones (or says how to get the demo).
export async function orgOrFail(db: Queryable, slug: string) {
  const org = await findOrganizationBySlug(db, slug);
  if (org) return org;
  const known = (
    await db.query<{ slug: string }>("select slug from organizations order by slug limit 20")
  ).map((r) => r.slug);
  throw new CliError(
    `Unknown organization "${slug}". ` +
      (known.length
        ? `Organizations: ${known.join(", ")}.`
        : "The database has no organizations yet: run `npm start` once (it seeds the demo) or `npm run db:seed`."),
  );
}
