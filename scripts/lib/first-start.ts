import { randomBytes } from "node:crypto";
import path from "node:path";
import type { Database } from "../../db/client";
import { writeDemoKeys, type DemoKeysFile } from "../../lib/keys/demo-keys";
import { createApiKey } from "../../lib/keys/store";
import { addMembership, createUser, findUserByEmail, hashPassword } from "../../db/users";
import type { Config } from "../../lib/config";
import { READ_SCOPES } from "../../lib/keys/scopes";

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

// The portal account created with the demo.
export const DEMO_USER_EMAIL = "demo@acme.example";

// What the start script found or did on the database.
export type StartData =
  | {
      kind: "seeded";
      keys: DemoKeysFile["keys"];
      keysFile: string;
      user: { email: string; password: string };
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
// demo portal user, and writes `${DATA_DIR}/demo-keys.json`; a configured server database is never filled unasked.
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
  const password = randomBytes(12).toString("base64url");
  const keys = await db.transaction(async (tx) => {
    const existing = await findUserByEmail(tx, DEMO_USER_EMAIL);
    const userId = existing
      ? existing.id
      : (await createUser(tx, { email: DEMO_USER_EMAIL, name: "Demo user", password, isStaff: true })).id;
    if (existing) {
      await tx.query(
        "update users set password_hash = $2, is_staff = true, updated_at = now() where id = $1",
        [existing.id, await hashPassword(password)],
      );
    }
    const out: DemoKeysFile["keys"] = [];
    for (const org of seeded.orgs) {
      await addMembership(tx, { userId, orgId: org.orgId, role: "owner" });
      const k = await createApiKey(tx, {
        orgId: org.orgId,
        name: "Demo key",
        scopes: READ_SCOPES,
        createdBy: userId,
      });
      out.push({
        org: org.slug,
        orgId: org.orgId,
        keyId: k.id,
        name: k.name,
        prefix: k.prefix,
        scopes: k.scopes,
        key: k.key,
      });
    }
    return out;
  });
  const keysFile = writeDemoKeys(config.DATA_DIR, { createdAt: new Date().toISOString(), keys });
  return {
    kind: "seeded",
    keys,
    keysFile: displayPath(keysFile),
    user: { email: DEMO_USER_EMAIL, password },
    ms: performance.now() - started,
  };
}
