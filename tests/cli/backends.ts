import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openPg, openPglite, type Database } from "@/db/client";
import { migrate } from "@/db/migrate";
import { createTestDatabase } from "../support/servers";

// A database of the kind a CLI runs on, with the two demo-like organizations, and how to read it from a test.
export interface Backend {
  env: Record<string, string>;
  dataDir: string;
  /** Runs fn on the database the CLI uses (for PGlite: opened only while no CLI runs). */
  withDb<T>(fn: (db: Database) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

// The organizations every CLI suite starts with.
export const ORGS = [
  { id: "org_cli_acme", slug: "acme", name: "Acme" },
  { id: "org_cli_globex", slug: "globex", name: "Globex" },
];

async function insertOrgs(db: Database) {
  await migrate(db);
  for (const o of ORGS) {
    await db.query("insert into organizations (id, slug, name) values ($1, $2, $3)", [o.id, o.slug, o.name]);
  }
}

// A database of its own on the Postgres server (DATABASE_URL); `label` names it and its data folder.
export async function postgresBackend(label: string): Promise<Backend> {
  const t = await createTestDatabase(`cli_${label}`);
  const db = await openPg(t.url, 2);
  await insertOrgs(db);
  const dataDir = mkdtempSync(path.join(tmpdir(), `cli-${label}-pg-`));
  return {
    env: { DATABASE_URL: t.url, DATA_DIR: dataDir },
    dataDir,
    withDb: (fn) => fn(db),
    close: async () => {
      await db.close();
      await t.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

// The embedded default: PGlite under a DATA_DIR of its own.
export async function pgliteBackend(label: string): Promise<Backend> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `cli-${label}-pglite-`));
  const withDb = async <T>(fn: (db: Database) => Promise<T>) => {
    const db = await openPglite(path.join(dataDir, "pglite"));
    try {
      return await fn(db);
    } finally {
      await db.close();
    }
  };
  await withDb(insertOrgs);
  return {
    env: { DATA_DIR: dataDir },
    dataDir,
    withDb,
    close: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
}
