import { existsSync, readdirSync } from "node:fs";
import path from "node:path";

// The steps of `npm test`, in the order they run.
export const TEST_STEPS = ["format", "lint", "typecheck", "unit", "e2e"] as const;

// One step of `npm test`.
export type TestStep = (typeof TEST_STEPS)[number];

// The environment variables read here (process.env, or a test's own).
export type Env = Readonly<Record<string, string | undefined>>;

// A program from the system (not from npm) that some step needs.
export type SystemPart = "postgres" | "redis" | "python3" | "curl" | "jq" | "haproxy" | "chromium";

// Debian's Chromium, where Playwright looks for it unless CHROMIUM_PATH says otherwise (playwright.config.ts).
export const DEBIAN_CHROMIUM = "/usr/bin/chromium";

// Where Debian installs HAProxy.
export const HAPROXY = "/usr/sbin/haproxy";

// What each part is called in messages and which Debian package provides it.
export const PARTS: Record<SystemPart, { label: string; aptPackage: string }> = {
  postgres: { label: "Postgres (initdb under /usr/lib/postgresql/*/bin)", aptPackage: "postgresql" },
  redis: { label: "redis-server", aptPackage: "redis-server" },
  python3: { label: "python3", aptPackage: "python3" },
  curl: { label: "curl", aptPackage: "curl" },
  jq: { label: "jq", aptPackage: "jq" },
  haproxy: { label: "haproxy", aptPackage: "haproxy" },
  chromium: { label: "Chromium", aptPackage: "chromium" },
};

// What the detection may look at: injected so that the decisions are tested without touching the machine.
export interface SystemProbe {
  exists(file: string): boolean;
  listDir(dir: string): string[];
  isRoot: boolean;
}

// The probe of this machine.
export function localProbe(): SystemProbe {
  return {
    exists: (file) => existsSync(file),
    listDir: (dir) => {
      try {
        return readdirSync(dir);
      } catch {
        return [];
      }
    },
    isRoot: process.getuid?.() === 0,
  };
}

// The parts the chosen steps need. `unit`: redis-server always (tests/rate-limit/outage.test.ts starts and kills a
// server of its own), Postgres always (tests/faults starts, stops, freezes and kills a cluster of its own; and
// scripts/services.sh starts the shared one unless TEST_DATABASE_URL and TEST_REDIS_URL are both given), python3 always (the guides' Python samples are run or parsed: tests/portal/*-guide.test.ts,
// reference-write-preview; the Python client's tests, tests/clients/python-*.test.ts), curl and jq always (the creating-products guide's shell sample is run with them), haproxy
// always (tests/cli/haproxy.test.ts runs the configuration `npm run haproxy:config` prints).
// `e2e`: Chromium, and Postgres and redis-server for scripts/services.sh (the app runs on embedded PGlite there, but
// tests/e2e/webhooks-worker.spec.ts starts npm start on Postgres). format, lint, typecheck: nothing.
export function neededParts(steps: readonly TestStep[]): SystemPart[] {
  const need = new Set<SystemPart>();
  if (steps.includes("unit")) {
    need.add("postgres");
    need.add("redis");
    need.add("python3");
    need.add("curl");
    need.add("jq");
    need.add("haproxy");
  }
  if (steps.includes("e2e")) {
    need.add("postgres");
    need.add("redis");
    need.add("chromium");
  }
  return [...need];
}

// The first `name` on the PATH, as the shell would find it.
export function onPath(name: string, env: Env, probe: SystemProbe): string | undefined {
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, name);
    if (probe.exists(file)) return file;
  }
  return undefined;
}

// Where Playwright will look for Chromium.
export function chromiumPath(env: Env): string {
  return env.CHROMIUM_PATH || DEBIAN_CHROMIUM;
}

// Where a part is on this machine, or undefined when it is missing.
export function findPart(part: SystemPart, env: Env, probe: SystemProbe): string | undefined {
  switch (part) {
    case "postgres": {
      // scripts/services.sh takes the newest version under /usr/lib/postgresql (Debian's layout).
      for (const version of probe.listDir("/usr/lib/postgresql").sort().reverse()) {
        const initdb = `/usr/lib/postgresql/${version}/bin/initdb`;
        if (probe.exists(initdb)) return initdb;
      }
      return undefined;
    }
    case "redis":
      return onPath("redis-server", env, probe);
    case "python3":
    case "curl":
    case "jq":
      return onPath(part, env, probe);
    case "haproxy":
      // Debian installs it in /usr/sbin, which a PATH without the system directories misses.
      return onPath(part, env, probe) ?? (probe.exists(HAPROXY) ? HAPROXY : undefined);
    case "chromium": {
      const file = chromiumPath(env);
      return probe.exists(file) ? file : undefined;
    }
  }
}

// The commands that install packages with apt, each an argument list run with DEBIAN_FRONTEND=noninteractive.
export function aptCommands(packages: readonly string[]): string[][] {
  return [
    ["apt-get", "update"],
    ["apt-get", "install", "-y", "--no-install-recommends", ...packages],
  ];
}

// The same commands as one line to paste into a shell, prefixed with sudo for a user who is not root.
export function aptCommandLine(packages: readonly string[], sudo: boolean): string {
  const s = sudo ? "sudo " : "";
  return `${s}apt-get update && ${s}DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${packages.join(" ")}`;
}

// What `npm test` does about the system before its steps: nothing, install packages, or stop with a message.
export type DepsPlan =
  | { action: "none" }
  | { action: "install"; missing: SystemPart[]; packages: string[]; commands: string[][] }
  | { action: "stop"; missing: SystemPart[]; message: string };

// Decides what to do about the parts the chosen steps need: install them when running as root with apt, else
// print the command (or what to install, without apt). A CHROMIUM_PATH naming a missing file is a setting to fix:
// Debian's package would install /usr/bin/chromium, which Playwright would not use.
export function planSystemDeps(steps: readonly TestStep[], env: Env, probe: SystemProbe): DepsPlan {
  const missing = neededParts(steps).filter((part) => !findPart(part, env, probe));
  if (missing.length === 0) return { action: "none" };
  const customChromium = missing.includes("chromium") && chromiumPath(env) !== DEBIAN_CHROMIUM;
  if (customChromium) {
    return {
      action: "stop",
      missing,
      message:
        `CHROMIUM_PATH=${env.CHROMIUM_PATH}: no such file. Point it at a Chromium or Chrome binary, ` +
        `or unset it to use Debian's (${DEBIAN_CHROMIUM}, package chromium).`,
    };
  }
  const packages = missing.map((part) => PARTS[part].aptPackage);
  const hasApt = onPath("apt-get", env, probe) !== undefined;
  if (hasApt && probe.isRoot)
    return { action: "install", missing, packages, commands: aptCommands(packages) };
  const what = missing.map((part) => PARTS[part].label).join(", ");
  const message = hasApt
    ? `Missing for the chosen steps: ${what}. Install them as root (here with sudo), then run npm test again:\n` +
      `  ${aptCommandLine(packages, true)}`
    : `Missing for the chosen steps: ${what}. apt-get is not available: install them with this system's package ` +
      `manager (Debian packages: ${packages.join(" ")}), then run npm test again.`;
  return { action: "stop", missing, message };
}
