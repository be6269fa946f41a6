// `npm start`: checks the configuration, builds when needed, prepares the database (demo on first embedded start),
// then runs the production server (scripts/serve.mjs: Next.js behind node:http, /public/ on the API's own router) in the
// foreground.
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError, loadConfig, type Config } from "../lib/config";
import { AuthSecretMissingError, authSecret } from "../lib/console/auth-secret";
import { readyBanner } from "./lib/banner";
import { buildReason, buildServerModules } from "./lib/build";
import { DatabaseBusyError, describeDatabase, openMigratedDatabase } from "./lib/database";
import { loadEnvFiles } from "./lib/env";
import { describeStartData, prepareStartData, type SeedDemo, type StartData } from "./lib/first-start";
import { removePidFile, runningServerPid, writePidFile } from "./lib/pid-file";
import { SERVER_NODE_FLAGS } from "./lib/server-process";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const NEXT_BIN = path.join(ROOT, "node_modules", ".bin", "next");
const t0 = performance.now();
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

function run(cmd: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: ROOT, stdio: "inherit" });
    child.on("error", reject);
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

async function main() {
  loadEnvFiles(ROOT);
  process.env.NEXT_TELEMETRY_DISABLED ??= "1"; // no network here, and nothing to report
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError)
      fail(`${err.message}\nFix the variable(s) above (see .env.example) and start again.`);
    throw err;
  }
  process.chdir(ROOT);

  // The console's session secret: AUTH_SECRET, required with a database server; on the embedded default, created
  // now in DATA_DIR/auth-secret (mode 0600) when missing, so that sessions outlive a restart.
  try {
    authSecret(config);
  } catch (err) {
    if (err instanceof AuthSecretMissingError) fail(err.message);
    throw err;
  }

  const holder = runningServerPid(config.DATA_DIR);
  if (holder !== null && config.dbDriver === "pglite") {
    fail(`A server is already running on ${path.resolve(config.DATA_DIR)} (pid ${holder}); stop it first.`);
  }

  const reason = buildReason(ROOT);
  let buildMs = 0;
  if (reason) {
    console.log(`Building for production: ${reason}.`);
    const b0 = performance.now();
    const code = await run(NEXT_BIN, ["build"]);
    if (code !== 0) fail(`next build failed (exit code ${code}).`);
    await buildServerModules(ROOT);
    buildMs = performance.now() - b0;
    console.log(`Built in ${seconds(buildMs)}.`);
  }

  // Claim the data folder before opening the database, so that `npm run keys` refuses while we seed.
  writePidFile(config.DATA_DIR);
  const onEarlySignal = () => {
    removePidFile(config.DATA_DIR);
    process.exit(130);
  };
  process.once("SIGINT", onEarlySignal);
  process.once("SIGTERM", onEarlySignal);

  let data: StartData;
  try {
    console.log(`Database: ${describeDatabase(config)}`);
    const { db, applied } = await openMigratedDatabase(config);
    if (applied.length) console.log(`Applied migrations: ${applied.join(", ")}`);
    try {
      data = await prepareStartData(db, config, {
        seed: async (): Promise<SeedDemo> => (await import("../db/seed/index")).seedDemo,
      });
    } finally {
      await db.close();
    }
  } catch (err) {
    removePidFile(config.DATA_DIR);
    if (err instanceof DatabaseBusyError) fail(err.message);
    throw err;
  }
  console.log(describeStartData(config, data));
  process.off("SIGINT", onEarlySignal);
  process.off("SIGTERM", onEarlySignal);

  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, path.join(ROOT, "scripts", "serve.mjs")], {
    cwd: ROOT,
    stdio: "inherit",
    env: { ...process.env, PORT: String(config.PORT), NODE_ENV: "production" },
  });
  const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, forward(signal));
  child.on("error", (err) => {
    removePidFile(config.DATA_DIR);
    fail(`Could not start the server: ${err.message}`);
  });
  child.on("exit", (code, signal) => {
    removePidFile(config.DATA_DIR);
    process.exit(code ?? (signal === "SIGINT" ? 130 : signal === "SIGTERM" ? 143 : 1));
  });

  // Report when the server answers, with the total start-up time.
  const local = `http://127.0.0.1:${config.PORT}/public/v1/openapi.json`;
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline && child.exitCode === null) {
    const ok = await fetch(local, { signal: AbortSignal.timeout(2000) }).then(
      () => true,
      () => false,
    );
    if (ok) {
      const startupMs = performance.now() - t0;
      const previews = config.preview;
      console.log(readyBanner({ baseUrl: config.baseUrl, startupMs, buildMs, previews }).join("\n"));
      return;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exit(1);
});
