import { readdirSync, readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Database } from "./client";

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");
const LOCK_ID = 7_420_611; // pg_advisory_lock id shared by every migrating process

// One migration file: "0001_init.sql" → version "0001", name "init".
export interface Migration {
  version: string;
  name: string;
  sql: string;
  checksum: string;
}

// A migration's statements without its comments, whitespace collapsed: what its checksum covers, so that rewording
// a comment of a migration already applied changes nothing a database checks. Quoted text is kept as it is.
export function migrationStatements(sql: string): string {
  let out = "";
  for (let i = 0; i < sql.length;) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < sql.length && !(sql[j] === c && sql[j + 1] !== c)) j += sql[j] === c ? 2 : 1;
      out += sql.slice(i, j + 1);
      i = j + 1;
    } else if (c === "-" && sql[i + 1] === "-") {
      while (i < sql.length && sql[i] !== "\n") i++;
    } else if (c === "/" && sql[i + 1] === "*") {
      const end = sql.indexOf("*/", i + 2);
      i = end < 0 ? sql.length : end + 2;
    } else if (/\s/.test(c)) {
      if (out !== "" && !out.endsWith(" ")) out += " ";
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return out.trim();
}

// The checksums databases recorded before checksums covered statements only (a hash of the file's whole text), for
// the migrations whose comments were reworded since: such a database's record is recognised and brought up to date.
const EARLIER_CHECKSUMS: Readonly<Record<string, string>> = JSON.parse(
  readFileSync(path.join(MIGRATIONS_DIR, "earlier-checksums.json"), "utf8"),
);

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

// Whether a checksum a database recorded for a migration is one of its earlier forms: the whole text's hash (the
// file unchanged since), or the one listed for it in earlier-checksums.json.
function earlierChecksum(m: Migration, recorded: string): boolean {
  return recorded === sha256(m.sql) || EARLIER_CHECKSUMS[m.version] === recorded;
}

// The migrations shipped with the code, in order.
export function listMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((file) => {
      const sql = readFileSync(path.join(dir, file), "utf8");
      const [, version, name] = /^(\d{4})_(.+)\.sql$/.exec(file)!;
      return {
        version: version!,
        name: name!,
        sql,
        checksum: sha256(migrationStatements(sql)),
      };
    });
}

// Applies every pending migration in order, in one transaction that holds an advisory lock on server drivers
// (released on commit or rollback, on the connection that did the work); returns the versions applied.
export async function migrate(db: Database, migrations = listMigrations()): Promise<string[]> {
  return db.transaction(async (tx) => {
    if (db.driver !== "pglite") await tx.query("select pg_advisory_xact_lock($1)", [LOCK_ID]);
    await tx.exec(`create table if not exists schema_migrations (
      version text primary key,
      name text not null,
      checksum text not null,
      applied_at timestamptz(3) not null default now()
    )`);
    const applied = new Map(
      (
        await tx.query<{ version: string; checksum: string }>(
          "select version, checksum from schema_migrations",
        )
      ).map((r) => [r.version, r.checksum]),
    );
    const done: string[] = [];
    for (const m of migrations) {
      const known = applied.get(m.version);
      if (known) {
        if (known !== m.checksum && earlierChecksum(m, known)) {
          await tx.query("update schema_migrations set checksum = $1 where version = $2", [
            m.checksum,
            m.version,
          ]);
        } else if (known !== m.checksum) {
          throw new Error(
            `Migration ${m.version}_${m.name} was changed after it was applied; add a new migration instead.`,
          );
        }
        continue;
      }
      await tx.exec(m.sql);
      await tx.query("insert into schema_migrations (version, name, checksum) values ($1, $2, $3)", [
        m.version,
        m.name,
        m.checksum,
      ]);
      done.push(m.version);
    }
    return done;
  });
}
