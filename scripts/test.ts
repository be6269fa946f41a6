// `npm test`: every check and suite, with a real Postgres and Redis (started here on loopback when not given); last,
// the logs of every server the suites started, collected under PCA_SERVER_LOG_DIR, are scanned for secrets.
// Installs what the chosen steps need from the system (scripts/lib/system-deps.ts: Postgres, Redis, python3, curl, jq,
// HAProxy, Chromium) when it may (root and apt-get), else prints the command and stops. Its summary ends with the
// tests that failed or passed only on a retry (scripts/lib/test-report.ts).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { TEST_PASSWORDS } from "../tests/support/test-passwords";
import { dataDirSecrets, formatFindings, scanLogDir } from "./lib/log-scan";
import { findPart, localProbe, PARTS, planSystemDeps, TEST_STEPS, type TestStep } from "./lib/system-deps";
import { formatFailures, readReports } from "./lib/test-report";

const root = path.resolve(import.meta.dirname, "..");
const bin = (name: string) => path.join(root, "node_modules", ".bin", name);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

function run(name: string, cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const started = Date.now();
  console.log(`\n▶ ${name}: ${[path.basename(cmd), ...args].join(" ")}`);
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env, stdio: "inherit" });
    child.on("exit", (code, signal) => {
      const status = code ?? (signal ? 1 : 0);
      console.log(
        `◀ ${name}: ${status === 0 ? "ok" : `failed (exit ${status})`} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
      resolve(status);
    });
  });
}

// Makes sure the system programs the chosen steps need are there: installs them (root with apt-get) or exits 1.
function ensureSystemDeps(steps: readonly TestStep[], env: NodeJS.ProcessEnv): void {
  const probe = localProbe();
  const plan = planSystemDeps(steps, env, probe);
  if (plan.action === "none") return;
  if (plan.action === "stop") {
    console.error(plan.message);
    process.exit(1);
  }
  console.log(`Installing ${plan.packages.join(" ")} (needed by ${steps.join(", ")})…`);
  for (const [cmd, ...args] of plan.commands) {
    console.log(`$ ${[cmd, ...args].join(" ")}`);
    const out = spawnSync(cmd!, args, {
      stdio: "inherit",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
    if (out.status !== 0) {
      console.error(`${cmd} ${args[0]} failed (exit ${out.status ?? out.signal ?? out.error?.message})`);
      process.exit(1);
    }
  }
  const still = plan.missing.filter((part) => !findPart(part, env, probe));
  if (still.length > 0) {
    console.error(
      `Still missing after installing ${plan.packages.join(" ")}: ${still.map((p) => PARTS[p].label).join(", ")} ` +
        `(PATH=${env.PATH ?? ""}).`,
    );
    process.exit(1);
  }
}

// The scan of the collected server logs (scripts/lib/log-scan.ts): 0 when clean, else 1 with each finding's file,
// line and kind (the secret masked).
function scanServerLogs(logDir: string, env: NodeJS.ProcessEnv): number {
  console.log(`\n▶ server logs: scanning ${logDir} for secrets`);
  const literals = [
    ...Object.values(TEST_PASSWORDS),
    ...[env.PCA_E2E_DATA_DIR, env.PCA_E2E_PREVIEW_DATA_DIR].flatMap((d) => (d ? dataDirSecrets(d) : [])),
  ];
  const findings = scanLogDir(logDir, literals);
  if (findings.length === 0) {
    console.log("◀ server logs: ok, no secret found");
    return 0;
  }
  console.error(formatFindings(findings));
  console.log(`◀ server logs: failed, ${findings.length} secret(s) in the logs above (kept in ${logDir})`);
  return 1;
}

async function main() {
  const args = process.argv.slice(2);
  const named = args.filter((a) => !a.startsWith("-"));
  const unknown = named.filter((a) => !(TEST_STEPS as readonly string[]).includes(a));
  if (unknown.length > 0) {
    console.error(
      `Unknown step ${unknown.join(", ")}: the steps are ${TEST_STEPS.join(", ")} (default: all).`,
    );
    process.exit(2);
  }
  const hasE2e = existsSync(path.join(root, "playwright.config.ts"));
  const steps = TEST_STEPS.filter(
    (s) => (named.length === 0 || named.includes(s)) && (s !== "e2e" || hasE2e),
  );
  const want = (step: string) => (steps as readonly string[]).includes(step);
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: "test" };
  ensureSystemDeps(steps, env);
  const work = mkdtempSync(path.join(os.tmpdir(), "pca-test-"));
  let servicesDir: string | undefined;
  let pgPort = 0;
  let redisPort = 0;

  // The unit suites use TEST_DATABASE_URL and TEST_REDIS_URL; the e2e servers run on embedded PGlite, but one spec
  // starts npm start on Postgres (tests/e2e/webhooks-worker.spec.ts: its webhooks' worker process).
  if ((want("unit") || want("e2e")) && (!env.TEST_DATABASE_URL || !env.TEST_REDIS_URL)) {
    // A folder of its own, not inside `work`: mkdtemp makes folders 0700, and as root the Postgres server runs as
    // the postgres user (scripts/services.sh), which must reach its data folder.
    servicesDir = mkdtempSync(path.join(os.tmpdir(), "pca-services-"));
    pgPort = await freePort();
    redisPort = await freePort();
    console.log(`Starting Postgres (:${pgPort}) and Redis (:${redisPort}) for the suites…`);
    const out = spawnSync(
      "bash",
      [path.join(root, "scripts/services.sh"), "start", servicesDir, String(pgPort), String(redisPort)],
      {
        encoding: "utf8",
      },
    );
    if (out.status !== 0) {
      console.error(out.stderr || out.stdout);
      console.error(
        "Could not start Postgres/Redis (scripts/services.sh start, output above); or set TEST_DATABASE_URL and TEST_REDIS_URL to servers of your own.",
      );
      process.exit(1);
    }
    for (const line of out.stdout.split("\n")) {
      const m = /^export (\w+)=(.*)$/.exec(line.trim());
      if (m) env[m[1]!] ??= m[2];
    }
  }
  if (want("unit") || want("e2e"))
    console.log(`TEST_DATABASE_URL=${env.TEST_DATABASE_URL}\nTEST_REDIS_URL=${env.TEST_REDIS_URL}`);

  const results: [string, number][] = [];
  const step = async (name: string, cmd: string, a: string[]) => {
    if (want(name)) results.push([name, await run(name, cmd, a, env)]);
  };
  // The server logs of both suites (tests/support/server-log.ts, vitest.config.ts, playwright.config.ts), and the
  // e2e webServers' data folders chosen here, so that their demo keys and passwords are known to the scan.
  const logDir = path.join(work, "server-logs");
  mkdirSync(logDir);
  env.PCA_SERVER_LOG_DIR = logDir;
  env.PCA_E2E_DATA_DIR ??= mkdtempSync(path.join(os.tmpdir(), "pca-e2e-"));
  env.PCA_E2E_PREVIEW_DATA_DIR ??= mkdtempSync(path.join(os.tmpdir(), "pca-e2e-preview-"));
  const vitestJson = path.join(work, "vitest.json");
  const playwrightJson = path.join(work, "playwright.json");
  try {
    await step("format", bin("prettier"), ["--check", "--log-level", "warn", "."]);
    await step("lint", bin("eslint"), [".", "--max-warnings", "0"]);
    await step("typecheck", bin("tsc"), ["--noEmit", "-p", "."]);
    await step("unit", bin("vitest"), [
      "run",
      "--reporter=default",
      "--reporter=json",
      `--outputFile.json=${vitestJson}`,
    ]);
    if (want("e2e")) {
      env.PLAYWRIGHT_JSON_OUTPUT_NAME = playwrightJson;
      await step("e2e", bin("playwright"), ["test", "--reporter=list,json"]);
    }
  } finally {
    if (servicesDir) {
      spawnSync("bash", [
        path.join(root, "scripts/services.sh"),
        "stop",
        servicesDir,
        String(pgPort),
        String(redisPort),
      ]);
      rmSync(servicesDir, { recursive: true, force: true });
    }
  }

  if (want("unit") || want("e2e")) results.push(["server logs", scanServerLogs(logDir, env)]);

  const { counts: total, failures } = readReports(vitestJson, playwrightJson, root);
  // Kept when the scan found something, for a look at the lines it names.
  if (results.every(([name, code]) => name !== "server logs" || code === 0))
    rmSync(work, { recursive: true, force: true });
  console.log("\nSummary:");
  for (const [name, code] of results) console.log(`  ${code === 0 ? "✔" : "✘"} ${name}`);
  // Repeated here, after the suites' long output, so that the run's last lines name them.
  if (failures.length > 0) console.log(["Failed or flaky tests:", ...formatFailures(failures)].join("\n"));
  const failedSteps = results.filter(([, c]) => c !== 0).length;
  console.log(
    `tests: ${total.passed} passed, ${total.failed + (failedSteps && !total.failed ? failedSteps : 0)} failed, ${total.skipped} skipped`,
  );
  process.exit(failedSteps ? 1 : 0);
}

void main();
