// `npm run users -- <command>`: creates portal accounts, adds them to organizations and resets their passwords, on
// the configured database.
import { parseArgs } from "node:util";
import type { Queryable } from "../db/client";
import { addMembership, createUser, findUserByEmail, setPassword, type MembershipRole } from "../db/users";
import { loadConfig, type Config } from "../lib/config";
import { CliError, runCli, UsageError } from "./lib/cli";
import { orgOrFail, withDatabase } from "./lib/database";
import { loadEnvFiles } from "./lib/env";
import { generatePassword, readPasswordFromStdin } from "./lib/password";

const ROLES = ["owner", "admin", "member"] as const satisfies readonly MembershipRole[];
const MIN_PASSWORD = 8;

const HELP = `Usage: npm run users -- <command> [options]

Manages the portal's accounts on the configured database
(the embedded one under DATA_DIR, or DATABASE_URL / POSTGRES_URL).

Commands:
  create --email <email> --name <name> [--org <slug> --role <role>] [--staff] [--password-stdin]
      Creates an account; with --org, makes it a member of that organization with the role
      (${ROLES.join(", ")}). --staff marks a product-team account (staff: changelog publishing).
      Without --password-stdin a password is generated and printed as the last line.
  add --email <email> --org <slug> --role <role>
      Makes an existing account a member of an organization, or changes its role there
      (a weaker role ends the account's console sessions).
  reset-password --email <email> [--password-stdin]
      Sets a new password: generated and printed as the last line, or read from standard input.
      Ends the account's console sessions.

Options:
  --password-stdin   Read the password from standard input (at least ${MIN_PASSWORD} characters), e.g.
                     printf '%s' "$PASSWORD" | npm run users -- create ... --password-stdin
  -h, --help         Show this help.

With the embedded database, stop the running server first (it holds the database).`;

const HINT = "Run `npm run users -- --help` for usage.";

const OPTIONS = {
  email: { type: "string" },
  name: { type: "string" },
  org: { type: "string" },
  role: { type: "string" },
  staff: { type: "boolean" },
  "password-stdin": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

type Values = ReturnType<typeof parse>["values"];

function parse(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

// Options a command does not take are refused rather than ignored (a --role given to reset-password is a mistake).
function only(command: string, values: Values, allowed: (keyof Values)[], positionals: string[]) {
  if (positionals.length) throw new UsageError(`Unexpected argument "${positionals[0]}"`);
  for (const key of Object.keys(values) as (keyof Values)[]) {
    if (key !== "help" && !allowed.includes(key)) throw new UsageError(`${command} does not take --${key}`);
  }
}

function emailOf(command: string, values: Values): string {
  const email = values.email?.trim().toLowerCase();
  if (!email) throw new UsageError(`${command} needs --email <email>`);
  if (!/^[^\s@]+@[^\s@]+$/.test(email))
    throw new UsageError(`--email "${values.email}" is not an email address`);
  return email;
}

function roleOf(role: string | undefined): MembershipRole {
  if (!ROLES.includes(role as MembershipRole)) {
    throw new UsageError(`--role "${role}": expected one of ${ROLES.join(", ")}`);
  }
  return role as MembershipRole;
}

// The password to set: read from standard input (checked before the database is opened), or generated.
async function passwordOf(values: Values): Promise<{ password: string; generated: boolean }> {
  if (!values["password-stdin"]) return { password: generatePassword(), generated: true };
  const password = await readPasswordFromStdin();
  if (password.length < MIN_PASSWORD) {
    throw new UsageError(
      password
        ? `The password from standard input is ${password.length} characters long: at least ${MIN_PASSWORD} are needed`
        : "--password-stdin: standard input was empty (pipe the password in)",
    );
  }
  return { password, generated: false };
}

async function userOrFail(db: Queryable, email: string) {
  const user = await findUserByEmail(db, email);
  if (user) return user;
  throw new CliError(
    `Unknown user "${email}". Create the account: npm run users -- create --email ${email} …`,
  );
}

function printPassword(password: { password: string; generated: boolean }) {
  if (!password.generated) {
    console.log("Password: the one read from standard input.");
    return;
  }
  console.log("Copy the password now: it is shown only once (only its scrypt hash is stored).");
  console.log(password.password);
}

async function create(config: Config, values: Values, positionals: string[]) {
  only("create", values, ["email", "name", "org", "role", "staff", "password-stdin"], positionals);
  const email = emailOf("create", values);
  const name = values.name?.trim();
  if (!name) throw new UsageError("create needs --name <name>");
  if ((values.org === undefined) !== (values.role === undefined))
    throw new UsageError("--org and --role go together: --org <slug> --role <role>");
  const role = values.role === undefined ? null : roleOf(values.role);
  const password = await passwordOf(values);
  await withDatabase(config, async (db) => {
    const { user, org } = await db.transaction(async (tx) => {
      if (await findUserByEmail(tx, email)) {
        throw new CliError(
          `A user with the email "${email}" already exists. ` +
            `To change its password: npm run users -- reset-password --email ${email}`,
        );
      }
      const org = values.org === undefined ? null : await orgOrFail(tx, values.org);
      const user = await createUser(tx, { email, name, password: password.password, isStaff: values.staff });
      if (org && role) await addMembership(tx, { userId: user.id, orgId: org.id, role });
      return { user, org };
    });
    console.log(`Created user "${user.name}".`);
    console.log(`  id:       ${user.id}`);
    console.log(`  email:    ${user.email}`);
    console.log(`  staff:    ${user.isStaff ? "yes (product team)" : "no"}`);
    console.log(`  member:   ${org && role ? `${org.slug} (${role})` : "of no organization"}`);
    printPassword(password);
  });
}

async function add(config: Config, values: Values, positionals: string[]) {
  only("add", values, ["email", "org", "role"], positionals);
  const email = emailOf("add", values);
  if (!values.org) throw new UsageError("add needs --org <slug>");
  if (values.role === undefined) throw new UsageError("add needs --role <role>");
  const role = roleOf(values.role);
  await withDatabase(config, async (db) => {
    const { before, user, org } = await db.transaction(async (tx) => {
      const user = await userOrFail(tx, email);
      const org = await orgOrFail(tx, values.org!);
      const [row] = await tx.query<{ role: MembershipRole }>(
        "select role from memberships where org_id = $1 and user_id = $2",
        [org.id, user.id],
      );
      await addMembership(tx, { userId: user.id, orgId: org.id, role });
      return { before: row?.role ?? null, user, org };
    });
    if (before === null) console.log(`Added ${user.email} to ${org.slug} as ${role}.`);
    else if (before === role)
      console.log(`${user.email} already is ${role} of ${org.slug}: nothing changed.`);
    else {
      console.log(`Changed the role of ${user.email} in ${org.slug} from ${before} to ${role}.`);
      if (ROLES.indexOf(role) > ROLES.indexOf(before)) console.log("Its console sessions have ended.");
    }
  });
}

async function resetPassword(config: Config, values: Values, positionals: string[]) {
  only("reset-password", values, ["email", "password-stdin"], positionals);
  const email = emailOf("reset-password", values);
  const password = await passwordOf(values);
  await withDatabase(config, async (db) => {
    const user = await userOrFail(db, email);
    if (!(await setPassword(db, user.id, password.password))) throw new CliError(`Unknown user "${email}".`);
    console.log(`New password set for ${user.email}.`);
    console.log("Its console sessions have ended.");
    printPassword(password);
  });
}

async function main() {
  const argv = process.argv.slice(2);
  const { values, positionals } = parse(argv);
  const [command, ...rest] = positionals;
  if (values.help || command === "help") {
    console.log(HELP);
    return;
  }
  const commands = { create, add, "reset-password": resetPassword } as const;
  const names = "create, add or reset-password";
  if (!command) throw new UsageError(`missing command (${names})`);
  if (!Object.hasOwn(commands, command)) throw new UsageError(`unknown command "${command}" (${names})`);
  loadEnvFiles();
  const config = loadConfig();
  await commands[command as keyof typeof commands](config, values, rest);
}

void runCli(main, HINT);
