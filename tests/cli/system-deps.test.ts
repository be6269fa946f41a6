// What `npm test` does about Postgres, Redis, python3, curl, jq, HAProxy and Chromium before its steps: nothing, install (root with apt-get),
// or stop with the command to run; decided from an injected picture of the machine.
import { describe, expect, it } from "vitest";
import {
  aptCommandLine,
  findPart,
  neededParts,
  planSystemDeps,
  TEST_STEPS,
  type Env,
  type SystemProbe,
  type TestStep,
} from "@/scripts/lib/system-deps";

const INITDB = "/usr/lib/postgresql/15/bin/initdb";
const REDIS = "/usr/bin/redis-server";
const PYTHON = "/usr/bin/python3";
const CURL = "/usr/bin/curl";
const JQ = "/usr/bin/jq";
const HAPROXY = "/usr/sbin/haproxy";
const CHROMIUM = "/usr/bin/chromium";
const APT = "/usr/bin/apt-get";
const PATH = "/usr/local/bin:/usr/bin:/bin";
const ALL = [...TEST_STEPS];

// A machine holding exactly these files; /usr/lib/postgresql lists the versions that have a directory.
function machine(files: string[], isRoot: boolean): SystemProbe {
  const set = new Set(files);
  return {
    exists: (file) => set.has(file),
    listDir: (dir) =>
      dir === "/usr/lib/postgresql"
        ? [...new Set(files.filter((f) => f.startsWith(`${dir}/`)).map((f) => f.split("/")[4]!))]
        : [],
    isRoot,
  };
}

const fresh = (isRoot: boolean, apt = true) => machine(apt ? [APT] : [], isRoot);
const complete = (isRoot: boolean) =>
  machine([APT, INITDB, REDIS, PYTHON, CURL, JQ, HAPROXY, CHROMIUM], isRoot);
const env = (extra: Record<string, string> = {}): Env => ({ PATH, ...extra });
const INSTALL_FLAGS = ["apt-get", "install", "-y", "--no-install-recommends"];

describe("the parts each step needs", () => {
  it.each<[TestStep[], string[]]>([
    [["format"], []],
    [["lint"], []],
    [["typecheck"], []],
    [["format", "lint", "typecheck"], []],
    // Postgres whether or not test servers are given (TEST_DATABASE_URL, TEST_REDIS_URL): the faults suite starts a
    // cluster of its own; redis-server for the outage suite's own server; python3 for the guides.
    [["unit"], ["postgres", "redis", "python3", "curl", "jq", "haproxy"]],
    // The shared Postgres and Redis too: one spec runs npm start on Postgres (its webhooks' worker process).
    [["e2e"], ["postgres", "redis", "chromium"]],
    [
      ["lint", "e2e"],
      ["postgres", "redis", "chromium"],
    ],
    [ALL, ["postgres", "redis", "python3", "curl", "jq", "haproxy", "chromium"]],
  ])("%j needs %j", (steps, parts) => {
    expect(neededParts(steps)).toEqual(parts);
  });
});

describe("finding the parts", () => {
  it("finds the newest Postgres under /usr/lib/postgresql, redis-server and python3 on the PATH, Chromium at its path", () => {
    const probe = machine(
      ["/usr/lib/postgresql/13/bin/initdb", INITDB, "/opt/r/redis-server", "/opt/r/python3", CHROMIUM],
      false,
    );
    expect(findPart("postgres", env(), probe)).toBe(INITDB);
    expect(findPart("redis", env({ PATH: "/nowhere:/opt/r" }), probe)).toBe("/opt/r/redis-server");
    expect(findPart("python3", env({ PATH: "/nowhere:/opt/r" }), probe)).toBe("/opt/r/python3");
    expect(findPart("python3", env(), probe)).toBeUndefined();
    expect(findPart("chromium", env(), probe)).toBe(CHROMIUM);
  });

  it("a Postgres directory without initdb (only the client installed) is not a server", () => {
    const probe = machine(["/usr/lib/postgresql/15/bin/psql"], true);
    expect(findPart("postgres", env(), probe)).toBeUndefined();
  });

  it("redis-server off the PATH is missing, wherever else it lies", () => {
    expect(findPart("redis", env({ PATH: "/usr/local/bin:/bin" }), complete(true))).toBeUndefined();
    expect(findPart("redis", env({ PATH: "" }), complete(true))).toBeUndefined();
  });

  it("CHROMIUM_PATH decides where Chromium is looked for", () => {
    expect(
      findPart("chromium", env({ CHROMIUM_PATH: "/opt/chrome/chrome" }), complete(true)),
    ).toBeUndefined();
    const probe = machine(["/opt/chrome/chrome"], false);
    expect(findPart("chromium", env({ CHROMIUM_PATH: "/opt/chrome/chrome" }), probe)).toBe(
      "/opt/chrome/chrome",
    );
  });
});

describe("the plan", () => {
  it("nothing to do when every needed part is there, root or not", () => {
    expect(planSystemDeps(ALL, env(), complete(true))).toEqual({ action: "none" });
    expect(planSystemDeps(ALL, env(), complete(false))).toEqual({ action: "none" });
  });

  it("steps that need nothing never look at the system, even on a bare machine without apt", () => {
    expect(planSystemDeps(["format", "lint", "typecheck"], env(), fresh(false, false))).toEqual({
      action: "none",
    });
  });

  it("root with apt-get: apt-get update once, then one non-interactive install of the missing packages", () => {
    expect(planSystemDeps(ALL, env(), fresh(true))).toEqual({
      action: "install",
      missing: ["postgres", "redis", "python3", "curl", "jq", "haproxy", "chromium"],
      packages: ["postgresql", "redis-server", "python3", "curl", "jq", "haproxy", "chromium"],
      commands: [
        ["apt-get", "update"],
        [...INSTALL_FLAGS, "postgresql", "redis-server", "python3", "curl", "jq", "haproxy", "chromium"],
      ],
    });
  });

  it("installs only what is missing for the chosen steps", () => {
    const noRedis = machine([APT, INITDB, PYTHON, CURL, JQ, HAPROXY, CHROMIUM], true);
    expect(planSystemDeps(ALL, env(), noRedis)).toMatchObject({
      action: "install",
      commands: [
        ["apt-get", "update"],
        [...INSTALL_FLAGS, "redis-server"],
      ],
    });
    // e2e starts the shared Redis too (scripts/services.sh), and the machine has Chromium already.
    expect(planSystemDeps(["e2e"], env(), noRedis)).toMatchObject({
      action: "install",
      commands: [
        ["apt-get", "update"],
        [...INSTALL_FLAGS, "redis-server"],
      ],
    });
    const noChromium = machine([APT, INITDB, REDIS, PYTHON, CURL, JQ, HAPROXY], true);
    expect(planSystemDeps(["unit"], env(), noChromium)).toEqual({ action: "none" });
    expect(planSystemDeps(["e2e"], env(), noChromium)).toMatchObject({
      action: "install",
      commands: [
        ["apt-get", "update"],
        [...INSTALL_FLAGS, "chromium"],
      ],
    });
  });

  it("with both test servers given, unit still installs Postgres (the faults suite's own cluster) and redis-server", () => {
    const given = env({ TEST_DATABASE_URL: "postgres://db/x", TEST_REDIS_URL: "redis://r" });
    expect(planSystemDeps(["unit"], given, fresh(true))).toMatchObject({
      action: "install",
      packages: ["postgresql", "redis-server", "python3", "curl", "jq", "haproxy"],
    });
  });

  it("HAProxy is found on the PATH or at Debian's /usr/sbin/haproxy, which a user's PATH may miss", () => {
    expect(findPart("haproxy", env(), machine([HAPROXY], false))).toBe(HAPROXY);
    expect(findPart("haproxy", env({ PATH: "/opt/h" }), machine(["/opt/h/haproxy"], false))).toBe(
      "/opt/h/haproxy",
    );
    expect(findPart("haproxy", env(), machine([], false))).toBeUndefined();
  });

  it("unit installs python3 alone when it is the only part missing", () => {
    expect(
      planSystemDeps(["unit"], env(), machine([APT, INITDB, REDIS, CURL, JQ, HAPROXY, CHROMIUM], true)),
    ).toEqual({
      action: "install",
      missing: ["python3"],
      packages: ["python3"],
      commands: [
        ["apt-get", "update"],
        [...INSTALL_FLAGS, "python3"],
      ],
    });
  });

  it("not root: stops with the exact command, run with sudo (no way out with servers of one's own: the faults suite starts its own)", () => {
    const plan = planSystemDeps(["unit"], env(), fresh(false));
    expect(plan.action).toBe("stop");
    if (plan.action !== "stop") return;
    expect(plan.missing).toEqual(["postgres", "redis", "python3", "curl", "jq", "haproxy"]);
    const line =
      "sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql redis-server python3 curl jq haproxy";
    expect(plan.message).toContain(`\n  ${line}`);
    expect(plan.message).not.toContain("TEST_DATABASE_URL=");
  });

  it("not root, only Chromium missing: the command names chromium alone and no server hint", () => {
    const plan = planSystemDeps(["e2e"], env(), machine([APT, INITDB, REDIS, PYTHON, CURL, JQ], false));
    expect(plan).toMatchObject({ action: "stop", missing: ["chromium"] });
    if (plan.action !== "stop") return;
    expect(plan.message).toContain(aptCommandLine(["chromium"], true));
    expect(plan.message).not.toContain("TEST_DATABASE_URL");
  });

  it("no apt-get, root or not: stops naming the Debian packages, without an apt command", () => {
    for (const isRoot of [true, false]) {
      const plan = planSystemDeps(["e2e", "unit"], env(), fresh(isRoot, false));
      expect(plan).toMatchObject({
        action: "stop",
        missing: ["postgres", "redis", "python3", "curl", "jq", "haproxy", "chromium"],
      });
      if (plan.action !== "stop") return;
      expect(plan.message).toContain("apt-get is not available");
      expect(plan.message).toContain("postgresql redis-server python3 curl jq haproxy chromium");
      expect(plan.message).not.toContain("apt-get install");
    }
  });

  it("apt-get off the PATH counts as no apt", () => {
    expect(planSystemDeps(["e2e"], env({ PATH: "/opt/bin" }), fresh(true))).toMatchObject({ action: "stop" });
  });

  it("a CHROMIUM_PATH naming a missing file is a setting to fix: no install, even as root", () => {
    const plan = planSystemDeps(["e2e"], env({ CHROMIUM_PATH: "/nonexistent" }), complete(true));
    expect(plan).toMatchObject({ action: "stop", missing: ["chromium"] });
    if (plan.action !== "stop") return;
    expect(plan.message).toContain("CHROMIUM_PATH=/nonexistent");
  });

  it("CHROMIUM_PATH set to Debian's path is installed like the default", () => {
    expect(planSystemDeps(["e2e"], env({ CHROMIUM_PATH: CHROMIUM }), fresh(true))).toMatchObject({
      action: "install",
      packages: ["postgresql", "redis-server", "chromium"],
    });
  });
});
