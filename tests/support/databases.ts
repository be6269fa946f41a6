import { openPg, openPglite, type Database } from "@/db/client";
import { createTestDatabase } from "./servers";

export type Driver = "pglite" | "pg";

// An empty database of the given kind: in-memory PGlite, or a database of its own on the test server; close()
// closes it and drops the server database.
export async function openEmptyDatabase(
  driver: Driver,
  label: string,
  poolSize = 3,
): Promise<{ db: Database; close: () => Promise<void> }> {
  if (driver === "pglite") {
    const db = await openPglite("memory://");
    return { db, close: () => db.close() };
  }
  const t = await createTestDatabase(label);
  const db = await openPg(t.url, poolSize);
  return {
    db,
    close: async () => {
      await db.close();
      await t.drop();
    },
  };
}
