import { mkdirSync } from "node:fs";
import { setLocalSql, type Database, type Queryable } from "../database";

// PGlite (Postgres in WASM) persisted in a folder, or in memory when dataDir is "memory://".
export async function openPglite(dataDir: string): Promise<Database> {
  const [{ PGlite }, { pg_trgm }, { unaccent }, { btree_gin }] = await Promise.all([
    import("@electric-sql/pglite"),
    import("@electric-sql/pglite/contrib/pg_trgm"),
    import("@electric-sql/pglite/contrib/unaccent"),
    import("@electric-sql/pglite/contrib/btree_gin"),
  ]);
  if (!dataDir.startsWith("memory://")) mkdirSync(dataDir, { recursive: true });
  const pg = await PGlite.create(dataDir, { extensions: { pg_trgm, unaccent, btree_gin } });
  const run = async <R>(q: { query: typeof pg.query }, text: string, params?: readonly unknown[]) =>
    (await q.query<R>(text, params as unknown[] | undefined)).rows;
  const query: Queryable["query"] = (text, params) => run(pg, text, params);
  return {
    driver: "pglite",
    query,
    exec: async (sql) => {
      await pg.exec(sql);
    },
    transaction: (fn) =>
      pg.transaction((tx) =>
        fn({
          query: (text, params) => run(tx, text, params),
          exec: async (sql) => {
            await tx.exec(sql);
          },
        }),
      ),
    withStatementTimeout: () => ({ query }),
    withLocalSettings: (settings) => {
      const set = setLocalSql(settings);
      return {
        query: (text, params) =>
          pg.transaction(async (tx) => {
            await tx.exec(set);
            return run(tx, text, params);
          }),
      };
    },
    // PGlite is the process's own database: its notifications never stop.
    listen: async (channel, onPayload, onStatus) => {
      const unlisten = await pg.listen(channel, onPayload);
      onStatus?.(true);
      return () => unlisten();
    },
    close: () => pg.close(),
  };
}
