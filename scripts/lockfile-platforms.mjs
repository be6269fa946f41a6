// Adds to package-lock.json the platform-specific optional packages (other OS/CPU builds of next's SWC,
// unrs-resolver…) that a registry mirror without them leaves out, so that `npm ci` accepts the lock file
// everywhere; npm skips them on platforms they do not match. Run after `npm install` changes the lock file.
import { readFileSync, writeFileSync } from "node:fs";

const file = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(file, "utf8"));
const pkgs = lock.packages;

const OS = [
  "darwin",
  "win32",
  "linux",
  "android",
  "freebsd",
  "openharmony",
  "sunos",
  "aix",
  "netbsd",
  "openbsd",
];
const CPU = ["arm64", "x64", "ia32", "arm", "loong64", "ppc64", "riscv64", "s390x", "wasm32"];

function platform(name) {
  const parts = name.split("/").pop().split("-");
  const os = OS.find((o) => parts.includes(o));
  const cpu = CPU.find((c) => parts.some((p) => p === c || p.startsWith(c)));
  if (!os || !cpu) return undefined;
  const out = { os: [os], cpu: [cpu] };
  if (os === "linux") out.libc = [parts.some((p) => p.startsWith("musl")) ? "musl" : "glibc"];
  return out;
}

let added = 0;
for (const [where, meta] of Object.entries(pkgs)) {
  for (const [dep, spec] of Object.entries(meta.optionalDependencies ?? {})) {
    const nested = `${where ? `${where}/` : ""}node_modules/${dep}`;
    if (pkgs[nested] || pkgs[`node_modules/${dep}`]) continue;
    const p = platform(dep);
    if (!p || !/^\d+\.\d+\.\d+/.test(spec)) continue;
    pkgs[`node_modules/${dep}`] = { version: spec, ...p, license: "MIT", optional: true };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(pkgs).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : a > b ? 1 : 0)),
);
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: ${added} platform package(s) added`);
