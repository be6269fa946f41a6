// `npm run demo:activity`: changes a demo organization's catalog at a steady rate, with plain SQL on the configured
// database as the product-information application would (creates, relabels, values, status, media links, a family or
// category relabelled now and then, deletes), one line per change with the cursors its events got, so that a
// newcomer watches the change feed and the export move.
import path from "node:path";
import { parseArgs } from "node:util";
import type { Database } from "../db/client";
import { loadConfig, type Config } from "../lib/config";
import { ACTIVITY_ROUND, applyChange, changeCursors, type AppliedChange } from "../lib/demo/catalog-activity";
import { previewOn } from "../lib/preview";
import { randomSource } from "../lib/seeded-random";
import { CliError, runCli, UsageError } from "./lib/cli";
import { DatabaseBusyError, describeDatabase, orgOrFail, withDatabase } from "./lib/database";
import { parseDuration } from "./lib/duration";
import { loadEnvFiles } from "./lib/env";

const USAGE = `Usage:
  npm run demo:activity -- [--org <slug>] [--rate <n>] [--duration <30s|5m|1h>] [--count <n>] [--seed <n>]

Changes the organization's catalog with plain SQL, as the product-information application would, and prints one
line per change with the change-feed cursors its events got. Stops on Ctrl-C, at the end of --duration or after
--count changes.

Options:
  --org <slug>        organization (default acme)
  --rate <n>          changes per second, 0.1 to 100 (default 1)
  --duration <d>      how long to run: a number and s, m or h (default: until Ctrl-C)
  --count <n>         stop after n changes
  --seed <n>          seed of the choices (default random): the same seed on the same catalog, the same changes
  -h, --help          this help

The database is the configured one (DATABASE_URL, POSTGRES_URL, or the embedded PGlite under DATA_DIR).
The embedded PGlite is opened by one process at a time: while \`npm start\` (or \`npm run dev\`) holds it, run both
on a Postgres server (DATABASE_URL), or run this command first and start the server after: the feed keeps every
change, so a client following it from an earlier cursor sees them all.`;

interface Args {
  org: string;
  rate: number;
  durationMs?: number;
  count?: number;
  seed: number;
}

// Parses the command line; throws UsageError on anything unexpected.
function parse(argv: string[]): Args | "help" {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        org: { type: "string" },
        rate: { type: "string" },
        duration: { type: "string" },
        count: { type: "string" },
        seed: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const v = parsed.values;
  if (v.help) return "help";
  const rate = Number(v.rate ?? "1");
  if (!/^\d+(\.\d+)?$/.test(v.rate ?? "1") || rate < 0.1 || rate > 100)
    throw new UsageError(`--rate: expected a number of changes per second from 0.1 to 100 (got "${v.rate}")`);
  let durationMs: number | undefined;
  if (v.duration !== undefined) {
    durationMs = parseDuration(v.duration) ?? undefined;
    if (durationMs === undefined)
      throw new UsageError(`--duration "${v.duration}": expected a number and a unit: 30s, 5m or 1h`);
  }
  const whole = (name: string, text: string | undefined, min: number) => {
    if (text === undefined) return undefined;
    const n = /^\d+$/.test(text) ? Number(text) : NaN;
    if (!Number.isSafeInteger(n) || n < min)
      throw new UsageError(`--${name}: expected a whole number from ${min} (got "${text}")`);
    return n;
  };
  return {
    org: v.org ?? "acme",
    rate,
    durationMs,
    count: whole("count", v.count, 1),
    seed: whole("seed", v.seed, 0) ?? Math.floor(Math.random() * 2 ** 31),
  };
}

// One printed line: the time, the change's number, the object, what was done, the cursors of its events.
function line(n: number, c: AppliedChange, cursors: { first: string; last: string } | undefined): string {
  const time = new Date().toISOString().slice(11, 23);
  const at = !cursors
    ? "no event"
    : cursors.first === cursors.last
      ? `cursor ${cursors.first}`
      : `cursors ${cursors.first}-${cursors.last}`;
  return `${time}  #${n}  ${c.type} ${c.id}  ${c.text}  (${at})`;
}

async function run(config: Config, args: Args): Promise<void> {
  let stopping = false;
  let wake: (() => void) | undefined;
  const stop = () => {
    stopping = true;
    wake?.();
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  await withDatabase(config, async (db: Database) => {
    const org = await orgOrFail(db, args.org);
    const [{ head }] = (await db.query<{ head: string }>(
      "select coalesce((select head from catalog_change_heads where org_id = $1), 0)::text as head",
      [org.id],
    )) as [{ head: string }];
    const until = args.durationMs
      ? `for ${args.durationMs / 1000} s`
      : args.count
        ? `${args.count} changes`
        : "until Ctrl-C";
    console.error(
      `Changing ${org.slug} on the ${describeDatabase(config)}: ${args.rate} change(s) per second, ${until} (seed ${args.seed}).\n` +
        `Its change feed is at cursor ${head}: follow it with GET /public/v1/changes?after=${head}&wait=30` +
        (previewOn("changes", config) ? "." : " (start the server with PUBLIC_API_PREVIEW=changes,export)."),
    );
    // Whole numbers for the changes' picks and salts, drawn from the run's seed.
    const draw = randomSource(args.seed);
    const random = () => Math.floor(draw() * 2 ** 32);
    const interval = 1000 / args.rate;
    const started = Date.now();
    let done = 0;
    let turn = 0;
    let idle = 0;
    while (!stopping && (args.count === undefined || done < args.count)) {
      const kind = ACTIVITY_ROUND[turn++ % ACTIVITY_ROUND.length]!;
      const applied = await applyChange(db, org.id, { kind, pick: random(), salt: random() });
      if (!applied) {
        // Nothing this kind can touch (no link to remove): the next kind, unless none can touch anything.
        if (++idle >= ACTIVITY_ROUND.length)
          throw new CliError(`${org.slug} has no catalog to change: seed it first (npm run db:seed).`);
        continue;
      }
      idle = 0;
      done++;
      console.log(line(done, applied, await changeCursors(db, org.id, applied.txid)));
      const next = started + done * interval;
      if (args.durationMs !== undefined && next - started >= args.durationMs) break;
      if (args.count !== undefined && done >= args.count) break;
      if (next > Date.now() && !stopping) await sleep(next - Date.now());
    }
    console.error(`${done} change(s) in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  });
}

async function main(): Promise<void> {
  const args = parse(process.argv.slice(2));
  if (args === "help") {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  loadEnvFiles();
  const config = loadConfig();
  try {
    await run(config, args);
  } catch (err) {
    if (err instanceof DatabaseBusyError) {
      throw new CliError(
        `The embedded database in ${path.resolve(config.DATA_DIR, "pglite")} is in use by the running server ` +
          `(pid ${err.pid}): PGlite is opened by one process at a time.\n` +
          `To watch the feed move while the server runs, run both on a Postgres server ` +
          `(DATABASE_URL=postgres://… npm start, and the same DATABASE_URL for npm run demo:activity).\n` +
          `Or stop the server, run npm run demo:activity -- --duration 1m, and start the server again: the feed ` +
          `keeps every change, so following it from an earlier cursor shows them all.`,
      );
    }
    throw err;
  }
}

void runCli(main, {
  usage: (message) => `demo:activity: ${message}\n\n${USAGE}`,
  unexpected: (err) => `\ndemo:activity failed: ${err instanceof Error ? err.message : String(err)}`,
});
