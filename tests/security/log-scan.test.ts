// The scan of the suites' server logs for secrets (scripts/lib/log-scan.ts, run last by `npm test`): a planted
// secret of each kind is found, with its file and line, and never printed in full; the demo banner of `npm start`
// is the one place keys and passwords may be printed, and what it printed is a finding anywhere else.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generateApiKey } from "@/lib/keys/format";
import { newWebhookSecret } from "@/lib/webhooks/signing";
import { dataDirSecrets, formatFindings, scanLogDir, scanText } from "@/scripts/lib/log-scan";
import { describeStartData } from "@/scripts/lib/first-start";

const KEY = generateApiKey();
const WHSEC = newWebhookSecret();
// An Auth.js session token's shape: a JWE with direct encryption (an empty encrypted-key part).
const JWE =
  "eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2Q0JDLUhTNTEyIiwia2lkIjoiSmFZIn0..Zm9vYmFyYmF6cXV4.c2VjcmV0c2VjcmV0c2VjcmV0.dGFnZ2Vk";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("log scan", () => {
  it.each([
    ["API key", `[public-api] request with key ${KEY} refused`],
    ["API key", `GET /public/v1/products?api_key=${KEY}`],
    ["webhook secret", `[webhooks] endpoint created {"secret":"${WHSEC}"}`],
    ["Authorization value", `headers: { Authorization: 'Bearer abc.def-123456' }`],
    ["Authorization value", `{"authorization":"Basic dXNlcjpwYXNzd29yZA=="}`],
    ["Authorization value", "> authorization: Token s3cr3t-t0ken"],
    ["session token", "cookie: authjs.session-token=abcdefgh12345678"],
    ["session token", `set-cookie: __Secure-authjs.session-token.0=${JWE}; Path=/`],
    ["session token", `[console] session ${JWE}`],
    ["session token", "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJl"],
    ["password", "POST body: csrfToken=x&email=a%40b.c&password=hunter2hunter2&callbackUrl=%2F"],
    ["password", `{"email":"a@b.c","password":"correct horse"}`],
    ["password", "{ newPassword: 'swordfish!' }"],
  ] as const)("finds a planted %s: %s", (kind, line) => {
    const log = ["▲ Next.js serving on http://127.0.0.1:3000", "ok", line, "done"].join("\n");
    const findings = scanText(log, "server.log");
    expect(findings.map((f) => [f.file, f.line, f.kind])).toContainEqual(["server.log", 3, kind]);
    // The report names where, never the secret itself.
    const report = formatFindings(findings);
    for (const secret of [KEY, WHSEC, JWE, "abc.def-123456", "hunter2hunter2", "s3cr3t-t0ken", "swordfish!"])
      expect(report).not.toContain(secret);
  });

  it("finds a known literal (a test's password, a server's AUTH_SECRET) wherever it is", () => {
    const findings = scanText("sign-in failed for a@b.c with a new password 123\nfine", "e2e.log", [
      "a new password 123",
    ]);
    expect(findings).toEqual([
      {
        file: "e2e.log",
        line: 1,
        kind: "known secret",
        excerpt: expect.not.stringContaining("new password 123"),
      },
    ]);
  });

  it.each([
    "▲ Next.js serving on http://0.0.0.0:3000",
    "Vary: Authorization, Accept-Encoding",
    "Access-Control-Allow-Headers: Authorization, Content-Type",
    "The keys and all 7 demo accounts, with their passwords, are in /tmp/x/demo-keys.json (mode 0600):",
    "[public-api] 4f7c1a9e-2b7d-4c1e-9a53-0f3d2e6b8c11 back end unavailable: connect ECONNREFUSED",
    "a key prefix pca_AbCd1234… in a listing",
    `{"password":"[redacted]"}`,
  ])("leaves an ordinary line alone: %s", (line) => {
    expect(scanText(line, "server.log")).toEqual([]);
  });

  it("leaves npm start's demo banner alone, and finds what it printed anywhere else", () => {
    const banner = describeStartData(
      { dbDriver: "pglite", DATA_DIR: "/tmp/data", baseUrl: "http://127.0.0.1:3000" },
      {
        kind: "seeded",
        ms: 1234,
        keysFile: "/tmp/data/demo-keys.json",
        keys: [
          { org: "acme", orgId: "org_1", keyId: "key_1", name: "demo", prefix: "pca_", scopes: [], key: KEY },
          {
            org: "globex",
            orgId: "org_2",
            keyId: "key_2",
            name: "demo",
            prefix: "pca_",
            scopes: [],
            key: generateApiKey(),
          },
        ],
        users: [
          {
            email: "owner@acme.example",
            name: "Owner",
            password: "Owner-Pass-123",
            org: "acme",
            role: "owner",
            isStaff: false,
          },
          {
            email: "staff@example.test",
            name: "Staff",
            password: "Staff-Pass-456",
            org: null,
            role: null,
            isStaff: true,
          },
        ],
      },
    );
    expect(banner).toContain(KEY);
    expect(banner).toContain("Owner-Pass-123");
    const log = ["Database: embedded", banner, "▲ Next.js serving on http://0.0.0.0:3000"].join("\n");
    expect(scanText(log, "npm-start.log")).toEqual([]);

    const leaked = `${log}\n[api] a request from Owner-Pass-123\n[api] key ${KEY.slice(0, 12)}…\nkey: ${KEY}`;
    const findings = scanText(leaked, "npm-start.log");
    const lines = leaked.split("\n");
    expect(findings.map((f) => [f.line, f.kind])).toEqual([
      [lines.length - 2, "known secret"],
      [lines.length, "API key"],
      [lines.length, "known secret"],
    ]);
  });

  it("a banner's lines are left alone only inside the banner: a lone 'Demo catalog loaded' line exempts nothing", () => {
    const log = `Demo catalog loaded in 1.0 s.\n    acme  ${KEY}\nno curl line follows`;
    expect(scanText(log, "x.log").map((f) => f.kind)).toEqual(["API key"]);
  });

  it("scans every file of a folder, and reads a data folder's secrets (demo keys, passwords, AUTH_SECRET)", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "log-scan-"));
    dirs.push(dir);
    mkdirSync(path.join(dir, "logs", "e2e"), { recursive: true });
    writeFileSync(path.join(dir, "logs", "clean.log"), "nothing here\n");
    writeFileSync(path.join(dir, "logs", "e2e", "server.log"), `one\ntwo the-auth-secret-value three\n`);
    writeFileSync(
      path.join(dir, "demo-keys.json"),
      JSON.stringify({
        keys: [{ org: "acme", key: KEY }],
        users: [{ email: "a@b.c", password: "pw-of-a-user" }],
      }),
    );
    writeFileSync(path.join(dir, "auth-secret"), "the-auth-secret-value\n");
    const secrets = dataDirSecrets(dir);
    expect(secrets).toEqual([KEY, "pw-of-a-user", "the-auth-secret-value"]);
    expect(dataDirSecrets(path.join(dir, "missing"))).toEqual([]);
    const findings = scanLogDir(path.join(dir, "logs"), secrets);
    expect(findings.map((f) => [path.relative(dir, f.file), f.line, f.kind])).toEqual([
      [path.join("logs", "e2e", "server.log"), 2, "known secret"],
    ]);
  });
});
