// `npm run db:seed`: seeds the demo organizations, or one organization at a chosen scale.
import path from "node:path";
import { parseArgs } from "node:util";
import type { Database } from "../db/client";
import {
  DEMO_ORGS,
  MAX_PRODUCTS,
  SeedRefusedError,
  seedDemo,
  seedOrganization,
  type SeedProgress,
} from "../db/seed";
import { loadConfig } from "../lib/config";
import { CliError, runCli, UsageError } from "./lib/cli";
import { openMigratedDatabase } from "./lib/database";
import { loadEnvFiles } from "./lib/env";
import { runningServerPid } from "./lib/pid-file";

const USAGE = `Usage:
  npm run db:seed                       seed the demo organizations (${DEMO_ORGS.map((o) => o.slug).join(", ")})
  npm run db:seed -- --org <slug> --products <N> [--name <text>] [--seed <s>] [--flavour home|fashion]
                                        seed one organization with N generated products

Options:
  --org <slug>        organization slug (a-z, 0-9, -); created if missing
  --products <N>      number of products, 0 to ${MAX_PRODUCTS.toLocaleString("en")} (1000000 or 1_000_000)
  --name <text>       organization name (default: the slug)
  --seed <s>          seed of the generated catalog (default: the slug); same seed, same catalog
  --flavour <f>       home (furniture, decoration) or fashion (clothes, sport); default home
  -h, --help          this help

The database is the configured one (DATABASE_URL, POSTGRES_URL, or the embedded PGlite under DATA_DIR).
An organization that already has products is never seeded again.`;

interface Args {
  org?: { slug: string; name: string; products: number; seed?: string; flavour: "home" | "fashion" };
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
        products: { type: "string" },
        name: { type: "string" },
        seed: { type: "string" },
        flavour: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const v = parsed.values;
  if (v.help) return "help";
  const orgOnly = ["products", "name", "seed", "flavour"] as const;
  if (v.org === undefined) {
    const stray = orgOnly.filter((k) => v[k] !== undefined);
    if (stray.length) throw new UsageError(`--${stray[0]} needs --org`);
    return {};
  }
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(v.org))
    throw new UsageError(`--org: invalid slug "${v.org}" (a-z, 0-9, -)`);
  if (v.products === undefined) throw new UsageError("--products is required with --org");
  const count = /^\d[\d_]*$/.test(v.products) ? Number(v.products.replace(/_/g, "")) : NaN;
  if (!Number.isSafeInteger(count) || count > MAX_PRODUCTS) {
    throw new UsageError(
      `--products: expected a whole number from 0 to ${MAX_PRODUCTS} (got "${v.products}")`,
    );
  }
  const flavour = v.flavour ?? "home";
  if (flavour !== "home" && flavour !== "fashion")
    throw new UsageError(`--flavour: expected home or fashion (got "${flavour}")`);
  if (v.name !== undefined && v.name.trim() === "") throw new UsageError("--name must not be empty");
  if (v.seed !== undefined && v.seed === "") throw new UsageError("--seed must not be empty");
  return { org: { slug: v.org, name: v.name ?? v.org, products: count, seed: v.seed, flavour } };
}

// Progress on stderr: one updating line on a terminal, plain lines otherwise.
function progressPrinter(started: number) {
  const tty = Boolean(process.stderr.isTTY);
  let lastLine = "";
  let lastKey = "";
  const seconds = () => ((Date.now() - started) / 1000).toFixed(1);
  return {
    update(org: string, p: SeedProgress) {
      const pct = p.total > 0 ? Math.floor((p.done / p.total) * 100) : 100;
      if (tty) {
        const width = 30;
        const filled = Math.round((pct / 100) * width);
        const bar = `[${"#".repeat(filled)}${"-".repeat(width - filled)}]`;
        const line = `${org} ${p.step.padEnd(9)} ${bar} ${String(pct).padStart(3)}%  ${p.done.toLocaleString("en")}/${p.total.toLocaleString("en")}  ${seconds()} s`;
        process.stderr.write(`\r${line.padEnd(lastLine.length)}`);
        lastLine = line;
      } else {
        const key = `${org}:${p.step}:${p.done}`;
        if (key === lastKey) return;
        lastKey = key;
        process.stderr.write(
          `${org}: ${p.step} ${p.done.toLocaleString("en")}/${p.total.toLocaleString("en")} (${pct}%) ${seconds()} s\n`,
        );
      }
    },
    end() {
      if (tty && lastLine) process.stderr.write("\n");
      lastLine = "";
    },
  };
}

async function main(): Promise<void> {
  const args = parse(process.argv.slice(2));
  if (args === "help") {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  loadEnvFiles();
  const config = loadConfig();
  if (config.dbDriver === "pglite") {
    const pid = runningServerPid(config.DATA_DIR);
    if (pid !== null) {
      throw new CliError(
        `The embedded database in ${path.resolve(config.DATA_DIR)} is in use by the server (pid ${pid}).\n` +
          `PGlite cannot be opened by two processes: stop the server first, then run npm run db:seed again.`,
      );
    }
  }

  const started = Date.now();
  const target =
    config.dbDriver === "pglite" ? `PGlite in ${path.resolve(config.DATA_DIR, "pglite")}` : config.dbDriver;
  process.stderr.write(
    `Seeding ${args.org ? `"${args.org.slug}" (${args.org.products.toLocaleString("en")} products)` : "the demo organizations"} into ${target}\n`,
  );
  let db: Database | undefined;
  const printer = progressPrinter(started);
  try {
    db = (await openMigratedDatabase(config)).db; // statements unbounded: bulk inserts outlast a request's bound
    if (args.org) {
      const org = args.org;
      const { counts } = await seedOrganization(db, {
        ...org,
        onProgress: (p) => printer.update(org.slug, p),
      });
      printer.end();
      process.stderr.write(
        `${org.slug}: ${Object.entries(counts)
          .map(([t, n]) => `${t} ${n.toLocaleString("en")}`)
          .join(", ")}\n`,
      );
    } else {
      const { orgs } = await seedDemo(db, { onProgress: (p) => printer.update(p.org, p) });
      printer.end();
      process.stderr.write(`Seeded ${orgs.map((o) => o.slug).join(", ")}.\n`);
    }
    process.stderr.write(`Done in ${((Date.now() - started) / 1000).toFixed(1)} s.\n`);
  } catch (err) {
    printer.end();
    if (err instanceof SeedRefusedError) {
      throw new CliError(`${err.message}\nNothing to do: the organization keeps its catalog.`);
    }
    throw err;
  } finally {
    await db?.close();
  }
}

void runCli(main, {
  usage: (message) => `db:seed: ${message}\n\n${USAGE}`,
  unexpected: (err) => `\ndb:seed failed: ${err instanceof Error ? err.message : String(err)}`,
});
