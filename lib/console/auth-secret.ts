// The secret of the console's sign-in sessions: AUTH_SECRET, or on the embedded default one generated once and
// kept in DATA_DIR/auth-secret (mode 0600), so that sessions survive a restart without any configuration.
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Config } from "@/lib/config";

// Thrown when no secret is available: a server database without AUTH_SECRET.
export class AuthSecretMissingError extends Error {
  constructor() {
    super(
      "AUTH_SECRET is required with a database server (DATABASE_URL / POSTGRES_URL): set it to at least 32 random " +
        "characters (openssl rand -base64 32)",
    );
    this.name = "AuthSecretMissingError";
  }
}

// Where the embedded default keeps its generated secret.
export function authSecretPath(config: Pick<Config, "DATA_DIR">): string {
  return path.join(config.DATA_DIR, "auth-secret");
}

// The session secret of a configuration; on the embedded default without AUTH_SECRET, the file's (created on
// first call: concurrent first calls agree, the file is written exclusively). Throws AuthSecretMissingError.
export function authSecret(config: Pick<Config, "AUTH_SECRET" | "DATA_DIR" | "dbDriver">): string {
  if (config.AUTH_SECRET) return config.AUTH_SECRET;
  if (config.dbDriver !== "pglite") throw new AuthSecretMissingError();
  const file = authSecretPath(config);
  try {
    const existing = readFileSync(file, "utf8").trim();
    if (existing.length >= 32) return existing;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  mkdirSync(config.DATA_DIR, { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  try {
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: "wx" });
    chmodSync(file, 0o600); // the umask may have narrowed nothing, but never widened: make it exact
    return secret;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    // Another process or request wrote it first: use theirs (a short file is a write in progress: overwrite it).
    const theirs = readFileSync(file, "utf8").trim();
    if (theirs.length >= 32) return theirs;
    writeFileSync(file, `${secret}\n`, { mode: 0o600 });
    return secret;
  }
}
