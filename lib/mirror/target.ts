// The database the mirror writes to: a Postgres server (a postgres:// URL) or an embedded PGlite in a folder,
// opened through the repository's db layer and proven reachable before anything else is done.
import path from "node:path";
import { openPg, openPglite, type Database } from "@/db/client";
import { describeFailure, MirrorError } from "./failures";

// The target opened, and how to name it in messages (never its password).
export interface Target {
  db: Database;
  describe: string;
}

// Whether `to` names a Postgres server (else it is a folder for an embedded PGlite).
export function isPostgresUrl(to: string): boolean {
  return /^postgres(ql)?:\/\//i.test(to);
}

// The target without credentials: `postgres host:port/name`, or `PGlite in <folder>`.
export function describeTarget(to: string): string {
  if (!isPostgresUrl(to)) return `embedded PGlite in ${path.resolve(to)}`;
  try {
    const url = new URL(to);
    return `Postgres ${url.hostname}${url.port ? `:${url.port}` : ""}${url.pathname}`;
  } catch {
    return "Postgres (an URL that does not parse)";
  }
}

// Opens the target and runs one statement on it; a MirrorError when it cannot be reached.
export async function openTarget(to: string): Promise<Target> {
  const describe = describeTarget(to);
  let db: Database | undefined;
  try {
    // Two connections: the load's or a page's transaction, and the state's reads; no statement bound (a load's
    // batch on a cold server may take seconds), a bounded wait for a connection.
    db = isPostgresUrl(to)
      ? await openPg(to, { max: 2, connectTimeoutMs: 10_000, statementTimeoutMs: 0 })
      : await openPglite(path.resolve(to));
    await db.query("select 1");
    return { db, describe };
  } catch (err) {
    await db?.close().catch(() => undefined);
    throw new MirrorError(
      `Cannot open the target database (${describe}): ${describeFailure(err)}.\n` +
        "Check --to (MIRROR_DATABASE_URL): a Postgres URL (postgres://user:password@host:port/database) or a folder.",
      { cause: err },
    );
  }
}
