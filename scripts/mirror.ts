// `npm run mirror`: keeps a copy of an organization's catalog in a database, through the public API (the TypeScript
// client): loaded once from the export, then kept equal to the catalog, deletions included, by the change feed.
import { parseArgs } from "node:util";
import { MirrorError } from "../lib/mirror/failures";
import { runMirror } from "../lib/mirror/run";
import { DEFAULT_SCHEMA, validSchemaName } from "../lib/mirror/tables";
import { CliError, runCli, UsageError } from "./lib/cli";
import { loadEnvFiles } from "./lib/env";

const USAGE = `Usage:
  npm run mirror -- --base-url <url> --key <key> --to <postgres url | folder> [--follow] [--schema <name>]

Copies the catalog that the key reads into the database --to: one table per resource (products, families,
attributes, categories, media, channels: the items as the API reads them), and the change feed's cursor in a table
of its own (feed_state), in the schema --schema. A first run loads the catalog from the export (one transaction),
then applies the change feed from the export's cursor, deletions included, each page with its cursor in one
transaction. Run again, it goes on from the stored cursor; a cursor past the feed's retention (410) loads the
catalog again. The server needs PUBLIC_API_PREVIEW=changes,export (or all).

Options:
  --base-url <url>    the API's server, e.g. http://localhost:3000 (default PCA_BASE_URL)
  --key <key>         an API key of the organization, with the read scopes (default PCA_API_KEY)
  --to <target>       a Postgres URL (postgres://user:password@host:port/database), or a folder for an embedded
                      PGlite (default MIRROR_DATABASE_URL)
  --schema <name>     the schema of the tables (default ${DEFAULT_SCHEMA}), created if absent
  --follow            follow the feed until stopped (Ctrl-C), long polling; without it: catch up and exit
  --wait <seconds>    the long poll's wait while following, 1 to 30 (default 30)
  -h, --help          this help

Progress goes to standard error: items loaded per resource, events applied, the lag behind the catalog.
Exit codes: 0 caught up (or stopped with Ctrl-C), 1 failure (nothing half-written), 2 bad usage.`;

interface Args {
  baseUrl: string;
  key: string;
  to: string;
  schema: string;
  follow: boolean;
  waitSeconds: number;
}

// Parses the command line, the environment giving the defaults; throws UsageError on anything unexpected.
function parse(argv: string[]): Args | "help" {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        "base-url": { type: "string" },
        key: { type: "string" },
        to: { type: "string" },
        schema: { type: "string" },
        follow: { type: "boolean" },
        wait: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const v = parsed.values;
  if (v.help) return "help";
  const env = process.env;
  const baseUrl = v["base-url"] ?? env.PCA_BASE_URL;
  const key = v.key ?? env.PCA_API_KEY;
  const to = v.to ?? env.MIRROR_DATABASE_URL;
  if (!baseUrl) throw new UsageError("--base-url is required (or PCA_BASE_URL)");
  if (!/^https?:\/\/[^/]/.test(baseUrl))
    throw new UsageError(`--base-url: expected an http:// or https:// URL (got "${baseUrl}")`);
  if (!key) throw new UsageError("--key is required (or PCA_API_KEY)");
  if (!to) throw new UsageError("--to is required (or MIRROR_DATABASE_URL): a Postgres URL or a folder");
  const schema = v.schema ?? DEFAULT_SCHEMA;
  if (!validSchemaName(schema))
    throw new UsageError(`--schema: expected a lower-case SQL name (letters, digits, _) (got "${schema}")`);
  const wait = v.wait ?? "30";
  const waitSeconds = /^\d+$/.test(wait) ? Number(wait) : NaN;
  if (!(waitSeconds >= 1 && waitSeconds <= 30))
    throw new UsageError(`--wait: expected a whole number of seconds from 1 to 30 (got "${wait}")`);
  return { baseUrl, key, to, schema, follow: v.follow ?? false, waitSeconds };
}

async function main(): Promise<void> {
  loadEnvFiles();
  const args = parse(process.argv.slice(2));
  if (args === "help") {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  // Ctrl-C or SIGTERM: the run stops (a load under way is rolled back, a page being applied is committed first);
  // a second one exits at once (the database rolls back what was not committed).
  const stop = new AbortController();
  const onSignal = () => {
    if (stop.signal.aborted) process.exit(1);
    console.error("mirror: stopping (Ctrl-C again to exit at once)");
    stop.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    await runMirror({ ...args, signal: stop.signal });
  } catch (err) {
    if (err instanceof MirrorError) throw new CliError(`mirror: ${err.message}`);
    throw err;
  }
}

void runCli(main, {
  usage: (message) => `mirror: ${message}\n\n${USAGE}`,
  unexpected: (err) => `\nmirror failed: ${err instanceof Error ? err.message : String(err)}`,
});
