// `npm run db:migrate`: applies pending migrations to the configured database.
import { loadConfig } from "../lib/config";
import { runCli } from "./lib/cli";
import { describeDatabase, openMigratedDatabase } from "./lib/database";
import { loadEnvFiles } from "./lib/env";

async function main() {
  if (process.argv.slice(2).some((a) => a === "-h" || a === "--help")) {
    console.log(
      "Usage: npm run db:migrate\nApplies pending migrations to the configured database (DATABASE_URL, POSTGRES_URL or the embedded one under DATA_DIR).",
    );
    return;
  }
  loadEnvFiles();
  const config = loadConfig();
  const started = performance.now();
  const { db, applied } = await openMigratedDatabase(config);
  await db.close();
  const where = describeDatabase(config);
  const ms = Math.round(performance.now() - started);
  console.log(
    applied.length
      ? `Applied ${applied.join(", ")} to the ${where} in ${ms} ms.`
      : `The ${where} is up to date.`,
  );
}

void runCli(main, "Usage: npm run db:migrate");
