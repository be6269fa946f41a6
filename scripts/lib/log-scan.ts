// The scan of the test suite's server logs for secrets: API keys, Authorization values, session
// tokens, webhook secrets, passwords. `npm test` collects the logs of every server the suites start (the e2e
// webServers, the servers the specs start themselves, the console output of the unit suites' in-process servers)
// under PCA_SERVER_LOG_DIR and runs this scan last; a finding fails the run with its file, line and kind, the secret
// itself masked.
//
// One exception, by design: `npm start` on a fresh embedded database prints the demo banner (scripts/lib/
// first-start.ts describeStartData): the demo keys, two demo accounts' passwords and a curl line with an
// Authorization header, so that a developer can try the API at once. The lines of that block, from "Demo catalog
// loaded in" to its curl line, are not scanned; the keys and passwords it prints are then looked for everywhere
// else, as literals, so that a demo key the server logs later is still a finding.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

// One secret found in a log.
export interface Finding {
  file: string;
  /** 1-based. */
  line: number;
  kind: SecretKind;
  /** The line, the secret masked, at most 200 characters. */
  excerpt: string;
}

export type SecretKind =
  "API key" | "Authorization value" | "session token" | "webhook secret" | "password" | "known secret";

// The shapes of secrets, each with the part to mask (the whole match, or its `secret` group).
const PATTERNS: { kind: SecretKind; re: RegExp }[] = [
  // lib/keys/format.ts: pca_ and 36 base62 characters (a well-formed checksum or not: a client's typo is still a key).
  { kind: "API key", re: /\bpca_[0-9A-Za-z]{36}(?![0-9A-Za-z])/g },
  // lib/webhooks/signing.ts: whsec_ and base64.
  { kind: "webhook secret", re: /\bwhsec_[A-Za-z0-9+/]{16,}={0,2}/g },
  // A header line or a dumped header object: "Authorization: Bearer x", "authorization": "x", authorization=x.
  {
    kind: "Authorization value",
    re: /\b(?:proxy-)?authorization\b["']?\s*[:=]\s*["']?(?<secret>(?:[A-Za-z]+ +)?[A-Za-z0-9._~+/=-]{6,})/gi,
  },
  // The console's session cookie (lib/console/session.ts), as a cookie pair or a logged object's field.
  {
    kind: "session token",
    re: /(?:__Secure-)?authjs\.session-token(?:\.\d+)?["']?\s*[=:]\s*["']?(?<secret>[A-Za-z0-9._~-]{8,})/g,
  },
  // Auth.js' session tokens are JWEs (dir, A256CBC-HS512: an empty encrypted key); any JWT or JWE is a credential.
  { kind: "session token", re: /\beyJ[A-Za-z0-9_-]{8,}\.(?:[A-Za-z0-9_-]*\.){1,3}[A-Za-z0-9_-]+/g },
  // A password field of a form body or a logged object ("password=…", "password": "…", newPassword: …).
  {
    kind: "password",
    re: /password["']?\s*[:=]\s*["']?(?<secret>(?!\*+|\[redacted\]|<redacted>|undefined|null\b)[^\s"'&,;}]{4,})/gi,
  },
];

// A line that opens the demo banner, and the line that closes it (its curl example).
const BANNER_START = /^Demo catalog loaded in \d/;
const BANNER_END = /^\s+curl -H "Authorization: Bearer pca_[0-9A-Za-z]{36}" /;
// At most this many lines from its first to its curl line: a longer block is no banner of ours.
const BANNER_MAX_LINES = 40;

// The masked form of a secret: its first 4 characters, never more than a quarter of it.
function mask(secret: string): string {
  const shown = Math.min(4, Math.floor(secret.length / 4));
  return `${secret.slice(0, shown)}…[${secret.length} chars]`;
}

// The 0-based line numbers of the demo banners' lines in a log's lines.
export function bannerLines(lines: readonly string[]): Set<number> {
  const inBanner = new Set<number>();
  for (let i = 0; i < lines.length; i++) {
    if (!BANNER_START.test(lines[i]!)) continue;
    const end = lines.findIndex((l, j) => j > i && j <= i + BANNER_MAX_LINES && BANNER_END.test(l));
    if (end < 0) continue;
    for (let j = i; j <= end; j++) inBanner.add(j);
    i = end;
  }
  return inBanner;
}

// The secrets a demo banner printed (its keys, its accounts' passwords): looked for as literals outside it.
export function bannerSecrets(lines: readonly string[], banner: ReadonlySet<number>): string[] {
  const found = new Set<string>();
  for (const i of banner) {
    const line = lines[i]!;
    for (const m of line.matchAll(/\bpca_[0-9A-Za-z]{36}\b/g)) found.add(m[0]);
    // An account's line: "    owner@acme.example  <password>  (owner of acme)".
    const account = /^\s+\S+@\S+\s{2,}(\S.*?)\s{2,}\(/.exec(line);
    if (account) found.add(account[1]!);
  }
  return [...found];
}

// Scans one log's text; `literals` are secrets known to the run (passwords the tests use, the demo's keys and
// passwords, the servers' AUTH_SECRETs), looked for verbatim.
export function scanText(text: string, file: string, literals: readonly string[] = []): Finding[] {
  const lines = text.split(/\r?\n/);
  const banner = bannerLines(lines);
  const known = [...new Set([...literals, ...bannerSecrets(lines, banner)])].filter((s) => s.length >= 6);
  const findings: Finding[] = [];
  lines.forEach((line, i) => {
    if (banner.has(i)) return;
    const hits: { kind: SecretKind; secret: string }[] = [];
    for (const { kind, re } of PATTERNS) {
      for (const m of line.matchAll(re)) hits.push({ kind, secret: m.groups?.secret ?? m[0] });
    }
    for (const secret of known) if (line.includes(secret)) hits.push({ kind: "known secret", secret });
    if (hits.length === 0) return;
    let excerpt = line;
    for (const h of hits) excerpt = excerpt.split(h.secret).join(mask(h.secret));
    for (const kind of new Set(hits.map((h) => h.kind)))
      findings.push({ file, line: i + 1, kind, excerpt: excerpt.slice(0, 200) });
  });
  return findings;
}

// Scans every file under a folder (the collected logs), recursively.
export function scanLogDir(dir: string, literals: readonly string[] = []): Finding[] {
  const findings: Finding[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = path.join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else findings.push(...scanText(readFileSync(p, "utf8"), p, literals));
    }
  };
  walk(dir);
  return findings;
}

// The secrets of a server's data folder that its log must never show: the demo keys and accounts' passwords
// (demo-keys.json) and the console's session secret (auth-secret). Missing files give nothing.
export function dataDirSecrets(dataDir: string): string[] {
  const secrets: string[] = [];
  try {
    const demo = JSON.parse(readFileSync(path.join(dataDir, "demo-keys.json"), "utf8")) as {
      keys?: { key: string }[];
      users?: { password: string }[];
    };
    for (const k of demo.keys ?? []) secrets.push(k.key);
    for (const u of demo.users ?? []) secrets.push(u.password);
  } catch {
    // no demo in this folder
  }
  try {
    secrets.push(readFileSync(path.join(dataDir, "auth-secret"), "utf8").trim());
  } catch {
    // no secret file (a configured AUTH_SECRET)
  }
  return secrets.filter(Boolean);
}

// The report of a scan: one line per finding, or nothing.
export function formatFindings(findings: readonly Finding[]): string {
  return findings.map((f) => `${f.file}:${f.line}: ${f.kind}: ${f.excerpt}`).join("\n");
}
