import path from "node:path";
import type { Database } from "../../db/client";
import { createApiKey } from "../../lib/keys/store";
import { addMembership, createUser, findUserByEmail, setPassword } from "../../db/users";
import type { Config } from "../../lib/config";
import {
  demoKeysPath,
  readDemoKeys,
  writeDemoKeys,
  type DemoKeysFile,
  type DemoUser,
} from "../../lib/keys/demo-keys";
import { READ_SCOPES } from "../../lib/keys/scopes";
import { generatePassword } from "./password";

// One progress report of the demo generator (org: the organization being seeded, when it says).
export interface SeedProgress {
  step: string;
  done: number;
  total: number;
  org?: string;
}

// The demo generator's signature (db/seed): fills the demo organizations and reports progress.
export type SeedDemo = (
  db: Database,
  opts?: { onProgress?: (p: SeedProgress) => void },
) => Promise<{ orgs: { slug: string; orgId: string }[] }>;

// The portal accounts created with the demo (each with a generated password): an owner of each demo organization,
// a member of acme, and a product-team account (staff, no organization).
export const DEMO_USERS: readonly Omit<DemoUser, "password">[] = [
  { email: "owner@acme.example", name: "Acme owner", org: "acme", role: "owner", isStaff: false },
  { email: "owner@globex.example", name: "Globex owner", org: "globex", role: "owner", isStaff: false },
  { email: "member@acme.example", name: "Acme member", org: "acme", role: "member", isStaff: false },
  { email: "team@catalog.example", name: "Product team", org: null, role: null, isStaff: true },
];

// What the start script found or did on the database.
export type StartData =
  | {
      kind: "seeded";
      keys: DemoKeysFile["keys"];
      users: DemoUser[];
      /** The demo file (keys and accounts), as displayed. */
      keysFile: string;
      ms: number;
    }
  | { kind: "existing"; orgSlugs: string[] }
  | { kind: "empty"; reason: "never" | "server" };

// A path relative to the working folder when it lies inside it, else absolute.
export function displayPath(file: string): string {
  const rel = path.relative(process.cwd(), file);
  return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : file;
}

function progressPrinter(log: (line: string) => void) {
  let lastStep = "";
  let lastAt = 0;
  return (p: SeedProgress) => {
    const now = Date.now();
    const finished = p.total > 0 && p.done >= p.total;
    const step = p.org ? `${p.org}: ${p.step}` : p.step;
    if (step === lastStep && !finished && now - lastAt < 1000) return;
    lastStep = step;
    lastAt = now;
    const pct = p.total > 0 ? ` ${Math.floor((p.done / p.total) * 100)}%` : "";
    log(`  seeding ${step}${pct} (${p.done}/${p.total})`);
  };
}

// On an empty embedded database (DEMO_SEED=auto), seeds the demo, creates one demo key per organization and the
// demo portal accounts (DEMO_USERS, generated passwords), and writes both to `${DATA_DIR}/demo-keys.json` (mode
// 0600); a configured server database is never filled unasked.
export async function prepareStartData(
  db: Database,
  config: Pick<Config, "DEMO_SEED" | "DATA_DIR">,
  opts: { seed: () => Promise<SeedDemo>; log?: (line: string) => void },
): Promise<StartData> {
  const log = opts.log ?? console.log;
  const orgs = await db.query<{ slug: string }>("select slug from organizations order by slug");
  if (orgs.length) return { kind: "existing", orgSlugs: orgs.map((o) => o.slug) };
  if (db.driver !== "pglite") return { kind: "empty", reason: "server" };
  if (config.DEMO_SEED === "never") return { kind: "empty", reason: "never" };

  const started = performance.now();
  log("Empty embedded database: loading the demo catalog (acme, globex)…");
  const seedDemo = await opts.seed();
  const seeded = await seedDemo(db, { onProgress: progressPrinter(log) });
  const orgIds = new Map(seeded.orgs.map((o) => [o.slug, o.orgId]));
  const { keys, users } = await db.transaction(async (tx) => {
    const users: DemoUser[] = [];
    const ids = new Map<string, string>();
    for (const spec of DEMO_USERS) {
      const user: DemoUser = { ...spec, password: generatePassword() };
      const orgId = user.org === null ? null : orgIds.get(user.org);
      if (orgId === undefined) throw new Error(`The demo seed made no organization "${user.org}"`);
      const existing = await findUserByEmail(tx, user.email);
      let userId: string;
      if (existing) {
        userId = existing.id;
        await setPassword(tx, userId, user.password);
        await tx.query("update users set is_staff = $2, updated_at = now() where id = $1", [
          userId,
          user.isStaff,
        ]);
      } else {
        const { email, name, password, isStaff } = user;
        userId = (await createUser(tx, { email, name, password, isStaff })).id;
      }
      if (orgId !== null && user.role) await addMembership(tx, { userId, orgId, role: user.role });
      ids.set(user.email, userId);
      users.push(user);
    }
    const keys: DemoKeysFile["keys"] = [];
    for (const org of seeded.orgs) {
      const owner = users.find((u) => u.org === org.slug && u.role === "owner");
      const k = await createApiKey(tx, {
        orgId: org.orgId,
        name: "Demo key",
        scopes: READ_SCOPES,
        createdBy: owner ? ids.get(owner.email) : undefined,
      });
      keys.push({
        org: org.slug,
        orgId: org.orgId,
        keyId: k.id,
        name: k.name,
        prefix: k.prefix,
        scopes: k.scopes,
        key: k.key,
      });
    }
    return { keys, users };
  });
  const keysFile = writeDemoKeys(config.DATA_DIR, { createdAt: new Date().toISOString(), keys, users });
  return {
    kind: "seeded",
    keys,
    users,
    keysFile: displayPath(keysFile),
    ms: performance.now() - started,
  };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

// How a demo account is described: "owner of acme", "product team, staff".
export function demoUserRole(user: Pick<DemoUser, "org" | "role" | "isStaff">): string {
  if (user.org && user.role) return `${user.role} of ${user.org}${user.isStaff ? ", staff" : ""}`;
  return user.isStaff ? "product team, staff" : "no organization";
}

// What `npm start` prints about the database once it is prepared: on the first start the demo keys, the console's
// address and two of the demo accounts (acme's owner and the product team), and where all of them are kept.
export function describeStartData(
  config: Pick<Config, "dbDriver" | "DATA_DIR" | "baseUrl">,
  data: StartData,
): string {
  const consoleUrl = `${config.baseUrl}/console`;
  if (data.kind === "seeded") {
    const width = Math.max(...data.keys.map((k) => k.org.length));
    const shown = [
      data.users.find((u) => u.org === "acme" && u.role === "owner"),
      data.users.find((u) => u.isStaff && u.org === null),
    ].filter((u): u is DemoUser => u !== undefined);
    const emailWidth = Math.max(...shown.map((u) => u.email.length));
    const others = data.users
      .filter((u) => !shown.includes(u))
      .map((u) => `${u.email} (${demoUserRole(u)})`)
      .join(", ");
    return [
      "",
      `Demo catalog loaded in ${seconds(data.ms)}.`,
      "",
      "  API keys (all read scopes):",
      ...data.keys.map((k) => `    ${k.org.padEnd(width)}  ${k.key}`),
      "",
      `  Console: ${consoleUrl} — sign in with a demo account (generated passwords):`,
      ...shown.map((u) => `    ${u.email.padEnd(emailWidth)}  ${u.password}  (${demoUserRole(u)})`),
      "",
      `  The keys and all ${data.users.length} demo accounts, with their passwords, are in ${data.keysFile} (mode 0600):`,
      `    also ${others}.`,
      "  Manage accounts with `npm run users` (stop the server first), e.g. a new password:",
      `    npm run users -- reset-password --email ${shown[0]?.email ?? "<email>"}`,
      "",
      "  Try it:",
      `    curl -H "Authorization: Bearer ${data.keys[0]?.key ?? "<key>"}" "${config.baseUrl}/public/v1/products?perPage=5"`,
      "",
    ].join("\n");
  }
  const embedded = config.dbDriver === "pglite";
  const stopFirst = embedded
    ? " (stop this server first with Ctrl+C: the embedded database takes one process at a time)"
    : "";
  if (data.kind === "existing") {
    const org = data.orgSlugs.includes("acme") ? "acme" : data.orgSlugs[0]!;
    const lines = [
      `Organizations: ${data.orgSlugs.slice(0, 10).join(", ")}${data.orgSlugs.length > 10 ? ", …" : ""}`,
      `To get an API key: npm run keys -- create --org ${org}${stopFirst}.`,
      `Console: ${consoleUrl}`,
    ];
    const demo = embedded ? readDemoKeys(config.DATA_DIR) : null;
    if (demo?.users?.length) {
      lines.push(
        `Demo keys and accounts of the first start (emails and passwords): ${displayPath(demoKeysPath(config.DATA_DIR))}`,
      );
    } else if (demo?.keys.length) {
      lines.push(`Demo keys of the first start: ${displayPath(demoKeysPath(config.DATA_DIR))}`);
    }
    return lines.join("\n");
  }
  if (data.reason === "server") {
    return (
      "The database has no organizations. A configured server database is never filled unasked:\n" +
      "load the demo with `npm run db:seed`, then create a key with `npm run keys -- create --org acme`\n" +
      "and an account with `npm run users -- create --email <email> --name <name> --org acme --role owner`."
    );
  }
  return "The database has no organizations (DEMO_SEED=never): nothing was seeded.";
}
