// `npm run keys -- <command>`: creates, lists and revokes API keys on the configured database.
import { parseArgs } from "node:util";
import {
  createApiKey,
  InvalidScopeError,
  listApiKeys,
  revokeApiKey,
  validateScopes,
} from "../lib/keys/store";
import { loadConfig, type Config } from "../lib/config";
import { previewOn } from "../lib/preview";
import { READ_SCOPES, WRITE_SCOPE, type Scope } from "../lib/keys/scopes";
import { CliError, runCli, UsageError } from "./lib/cli";
import { orgOrFail, withDatabase } from "./lib/database";
import { parseDuration } from "./lib/duration";
import { loadEnvFiles } from "./lib/env";

// The usage text; products:write is mentioned only while the write preview is on.
const help = (writePreview: boolean) => `Usage: npm run keys -- <command> [options]

Manages the API keys of an organization on the configured database
(the embedded one under DATA_DIR, or DATABASE_URL / POSTGRES_URL).

Commands:
  create --org <slug> [--name <text>] [--scopes <a,b>] [--expires-in <30d|12h|90m|2w>]
      Creates a key and prints it as the last line. It is shown only once: only its SHA-256 is stored.
      Scopes default to all read scopes: ${READ_SCOPES.join(", ")}.${
        writePreview
          ? `
      The writes preview feature is on (PUBLIC_API_PREVIEW=writes): --scopes may also name ${WRITE_SCOPE},
      which lets the key create products (never granted by default).`
          : ""
      }
  list --org <slug>
      Lists the organization's keys (display prefix, name, scopes, status, dates).
  revoke <key-or-id> [--org <slug>]
      Revokes a key given in full or by its id (key_…); it stops working within seconds.

Options:
  -h, --help   Show this help.

With the embedded database, stop the running server first (it holds the database).`;

const HINT = "Run `npm run keys -- --help` for usage.";

const OPTIONS = {
  org: { type: "string" },
  name: { type: "string" },
  scopes: { type: "string" },
  "expires-in": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

function parse(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

function pad(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

async function create(config: Config, values: ReturnType<typeof parse>["values"], positionals: string[]) {
  if (positionals.length) throw new UsageError(`Unexpected argument "${positionals[0]}"`);
  if (!values.org) throw new UsageError("create needs --org <slug>");
  let expiresAt: Date | null = null;
  if (values["expires-in"] !== undefined) {
    const ms = parseDuration(values["expires-in"]);
    if (ms === null) {
      throw new UsageError(
        `--expires-in "${values["expires-in"]}": expected a number and a unit: 90m, 12h, 30d or 2w`,
      );
    }
    expiresAt = new Date(Date.now() + ms);
  }
  let scopes: Scope[] | undefined;
  try {
    scopes =
      values.scopes === undefined
        ? undefined
        : validateScopes(values.scopes.split(","), previewOn("writes", config));
  } catch (err) {
    if (err instanceof InvalidScopeError) throw new UsageError(err.message);
    throw err;
  }
  if (values.name !== undefined && !values.name.trim()) throw new UsageError("--name cannot be empty");
  await withDatabase(config, async (db) => {
    const org = await orgOrFail(db, values.org!);
    let created;
    try {
      created = await createApiKey(db, {
        orgId: org.id,
        name: values.name ?? "CLI key",
        scopes,
        expiresAt,
        allowWrite: previewOn("writes", config),
      });
    } catch (err) {
      if (err instanceof InvalidScopeError) throw new UsageError(err.message);
      throw err;
    }
    console.log(`Created API key "${created.name}".`);
    console.log(`  id:       ${created.id}`);
    console.log(`  org:      ${org.slug} (${org.id})`);
    console.log(`  scopes:   ${created.scopes.join(", ")}`);
    console.log(`  expires:  ${created.expiresAt ?? "never"}`);
    console.log(`  prefix:   ${created.prefix}…`);
    console.log("Copy the key now: it is shown only once.");
    console.log(created.key);
  });
}

async function list(config: Config, values: ReturnType<typeof parse>["values"], positionals: string[]) {
  if (positionals.length) throw new UsageError(`Unexpected argument "${positionals[0]}"`);
  if (!values.org) throw new UsageError("list needs --org <slug>");
  await withDatabase(config, async (db) => {
    const org = await orgOrFail(db, values.org!);
    const keys = await listApiKeys(db, org.id);
    if (!keys.length) {
      console.log(`No API keys for ${org.slug}. Create one: npm run keys -- create --org ${org.slug}`);
      return;
    }
    const rows = [["ID", "PREFIX", "NAME", "STATUS", "SCOPES", "CREATED", "EXPIRES", "LAST USED"]];
    for (const k of keys) {
      const allRead = READ_SCOPES.every((s) => k.scopes.includes(s));
      const others = k.scopes.filter((s) => !(READ_SCOPES as readonly string[]).includes(s));
      rows.push([
        k.id,
        `${k.prefix}…`,
        k.name,
        k.status,
        allRead ? ["all read", ...others].join(",") : k.scopes.join(","),
        k.createdAt,
        k.expiresAt ?? "never",
        k.lastUsedAt ?? "never",
      ]);
    }
    console.log(`API keys of ${org.slug} (${keys.length}):`);
    console.log(pad(rows));
  });
}

async function revoke(config: Config, values: ReturnType<typeof parse>["values"], positionals: string[]) {
  if (positionals.length !== 1) throw new UsageError("revoke needs exactly one key or key id");
  const target = positionals[0]!;
  await withDatabase(config, async (db) => {
    const org = values.org ? await orgOrFail(db, values.org) : null;
    const revoked = await revokeApiKey(db, target, org?.id);
    if (!revoked) {
      throw new CliError(
        `No API key matches "${target.slice(0, 12)}${target.length > 12 ? "…" : ""}"${org ? ` in ${org.slug}` : ""}.`,
      );
    }
    console.log(
      `Revoked API key ${revoked.id} (${revoked.prefix}…, "${revoked.name}") at ${revoked.revokedAt}.`,
    );
  });
}

async function main() {
  const argv = process.argv.slice(2);
  const { values, positionals } = parse(argv);
  const [command, ...rest] = positionals;
  if (values.help || command === "help") {
    loadEnvFiles();
    let writePreview = false;
    try {
      writePreview = previewOn("writes", loadConfig());
    } catch {
      // A configuration error is reported by the commands that need it; the help still prints.
    }
    console.log(help(writePreview));
    return;
  }
  if (!command) throw new UsageError("missing command (create, list or revoke)");
  const commands = { create, list, revoke } as const;
  if (!(command in commands)) throw new UsageError(`unknown command "${command}" (create, list or revoke)`);
  loadEnvFiles();
  const config = loadConfig();
  await commands[command as keyof typeof commands](config, values, rest);
}

void runCli(main, HINT);
