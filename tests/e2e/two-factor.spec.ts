// Issue 26 item 2 in Chromium: two-factor sign-in set up with the keyboard alone (Tab, Enter, Space), then signing in
// with a code and with a recovery code; an owner requires two-factor of acme and issues a password reset link; the
// member sets a new password through it and is sent to set two-factor up. axe (WCAG 2.1 AA) on the account page in
// each state, the sign-in's code step, the reset page (form, done, used link).
// Fresh accounts, on a server of its own: the spec seeds a data directory, creates an acme owner and member with the
// users CLI (the embedded database is opened by one process at a time, so before the server starts), then runs
// `npm start` on it (the build the suite's webServer made). The shared demo accounts are not touched.
import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Secret, TOTP } from "otpauth";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { collectServerLog } from "../support/server-log";
import { TEST_PASSWORDS } from "../support/test-passwords";
import { expectAxeClean } from "./support/axe";

const PORT = execFileSync(process.execPath, [
  "-e",
  "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})",
])
  .toString()
  .trim();
const BASE = `http://127.0.0.1:${PORT}`;
const OWNER = { email: "fresh.owner@two-factor.test", password: TEST_PASSWORDS.freshOwner };
const MEMBER = { email: "fresh.member@two-factor.test", password: TEST_PASSWORDS.freshMember };
const MEMBER_NEW_PASSWORD = TEST_PASSWORDS.memberAfterReset;

test.use({ baseURL: BASE });
test.describe.configure({ mode: "serial" });

let dataDir: string;
let server: ChildProcess | undefined;

function cli(script: string, args: string[], input?: string) {
  const r = spawnSync("npx", ["tsx", script, ...args], {
    env: { ...process.env, DATA_DIR: dataDir },
    input,
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`${script} ${args.join(" ")} failed: ${r.stderr}`);
}

test.beforeAll(async () => {
  test.setTimeout(300_000);
  dataDir = mkdtempSync(path.join(os.tmpdir(), "pca-e2e-2fa-"));
  cli("scripts/seed.ts", []);
  for (const [u, role] of [
    [OWNER, "owner"],
    [MEMBER, "member"],
  ] as const)
    cli(
      "scripts/users.ts",
      [
        "create",
        "--email",
        u.email,
        "--name",
        u.email.split("@")[0]!,
        "--org",
        "acme",
        "--role",
        role,
        "--password-stdin",
      ],
      u.password,
    );
  server = spawn("npm", ["start"], {
    env: { ...process.env, PORT, DATA_DIR: dataDir, PUBLIC_BASE_URL: BASE, NODE_ENV: "production" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  collectServerLog(server, "two-factor");
  const until = Date.now() + 240_000;
  for (;;) {
    const ok = await fetch(`${BASE}/public/v1/openapi.json`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > until) throw new Error("the spec's server did not start");
    await new Promise((r) => setTimeout(r, 500));
  }
});

test.afterAll(async () => {
  if (server?.pid) {
    try {
      process.kill(-server.pid, "SIGTERM");
    } catch {
      // already gone
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

// Presses Tab until the element has the focus (the keyboard's way to it), at most 80 times.
async function tabTo(page: Page, target: Locator) {
  for (let i = 0; i < 80; i++) {
    if (await target.evaluate((el) => el === document.activeElement)) return;
    await page.keyboard.press("Tab");
  }
  throw new Error("never reached with Tab");
}

async function fillCredentials(page: Page, email: string, password: string) {
  await page.goto("/console/sign-in");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await expect(page.getByRole("button", { name: "Sign in", exact: true })).toBeEnabled();
  await page.getByLabel("Password").press("Enter");
}

async function signOut(page: Page) {
  await page.getByRole("button", { name: "Sign out", exact: true }).click();
  await expect(page).toHaveURL(/\/console\/sign-in/);
}

let secret = "";
let recoveryCodes: string[] = [];
const code = (at: number) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: at });

test("two-factor set-up with the keyboard alone; sign-in with a code, then with a recovery code", async ({
  page,
}) => {
  test.setTimeout(120_000);
  await fillCredentials(page, OWNER.email, OWNER.password);
  await expect(page).toHaveURL(/\/console\/acme\/keys/);
  await page.goto("/console/account");
  await expect(page.getByRole("heading", { name: "Your account" })).toBeVisible();
  await expectAxeClean(page, "the account page, two-factor off");

  // Set up: Tab to the button, Enter; the code field has the focus once the QR code and key are shown.
  const setUp = page.getByRole("button", { name: "Set up two-factor sign-in" });
  await expect(setUp).toBeEnabled();
  await tabTo(page, setUp);
  await page.keyboard.press("Enter");
  await expect(page.getByRole("img", { name: "QR code of your two-factor key" })).toBeVisible();
  const codeField = page.getByLabel("2. Code from your app");
  await expect(codeField).toBeFocused();
  secret = ((await page.locator(".two-factor-secret").textContent()) ?? "").replace(/\s/g, "");
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  await expectAxeClean(page, "the account page, two-factor set-up");

  // A wrong code first: said, the focus stays in the form.
  await page.keyboard.type("000000");
  await page.keyboard.press("Enter");
  await expect(page.getByRole("alert").filter({ hasText: "The code is not valid" })).toBeVisible();
  await codeField.fill("");
  await codeField.focus();
  await page.keyboard.type(code(Date.now()));
  await page.keyboard.press("Enter");

  // The recovery codes, shown once, the panel focused; Space on "I saved them".
  const panel = page.getByRole("region", { name: "Your recovery codes" });
  await expect(panel).toBeFocused();
  recoveryCodes = (await panel.locator("li code").allTextContents()).map((c) => c.trim());
  expect(recoveryCodes).toHaveLength(10);
  await expectAxeClean(page, "the account page, recovery codes shown");
  const saved = page.getByRole("button", { name: "I saved them" });
  await tabTo(page, saved);
  await page.keyboard.press("Space");
  await expect(page.getByText(/On since .*10 of 10 recovery codes left/)).toBeVisible();
  await expect(page.getByRole("heading", { name: "Two-factor sign-in", level: 2 })).toBeFocused();
  await expectAxeClean(page, "the account page, two-factor on");

  // Sign out; the password alone now asks for the code (the step checked with axe); a wrong code is refused.
  await signOut(page);
  await fillCredentials(page, OWNER.email, OWNER.password);
  const twoFactorCode = page.getByLabel("Two-factor code");
  await expect(twoFactorCode).toBeFocused();
  await expect(page).toHaveURL(/\/console\/sign-in$/);
  await expectAxeClean(page, "the sign-in's two-factor step");
  await page.keyboard.type("999999");
  await page.keyboard.press("Enter");
  await expect(page.getByRole("alert").filter({ hasText: "Incorrect password or code." })).toBeVisible();
  await expect(twoFactorCode).toBeFocused();
  // The next step's code (the set-up took this step's): within the ±1 step window, never used before.
  await page.keyboard.type(code(Date.now() + 30_000));
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/console\/acme\/keys/);

  // Sign out; a recovery code in place of the code.
  await signOut(page);
  await fillCredentials(page, OWNER.email, OWNER.password);
  await expect(twoFactorCode).toBeFocused();
  await page.keyboard.type(recoveryCodes[0]!);
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/console\/acme\/keys/);
  await page.goto("/console/account");
  await expect(page.getByText(/9 of 10 recovery codes left/)).toBeVisible();
});

test("an owner requires two-factor and issues a reset link; the member resets, signs in and is sent to set it up", async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  expect(recoveryCodes.length, "the first test set two-factor up").toBe(10);
  await fillCredentials(page, OWNER.email, OWNER.password);
  await page.getByLabel("Two-factor code").fill(recoveryCodes[1]!);
  await page.getByLabel("Two-factor code").press("Enter");
  await expect(page).toHaveURL(/\/console\/acme\/keys/);
  await page.goto("/console/account");

  // Require two-factor of acme.
  const acme = page.getByRole("form", { name: /Two-factor requirement of/ });
  await acme.getByLabel("Require two-factor sign-in of every member").check();
  await acme.getByRole("button", { name: "Save" }).click();
  await expect(acme.getByText("Saved: two-factor sign-in is required.")).toBeVisible();

  // A reset link for the member, shown once.
  await page.getByRole("button", { name: `Reset password of ${MEMBER.email}` }).click();
  const link = page.getByRole("group", { name: `Password reset link for ${MEMBER.email}` });
  await expect(link).toBeFocused();
  const url = ((await link.locator("code").textContent()) ?? "").trim();
  expect(url).toMatch(new RegExp(`^${BASE}/console/reset/[A-Za-z0-9_-]{43}$`));
  await expectAxeClean(page, "the account page, a reset link shown");

  // The member, in another browser: the reset page, a new password, then the used link.
  const other = await browser.newContext({ baseURL: BASE });
  const member = await other.newPage();
  await member.goto(url);
  await expect(member.getByRole("heading", { name: "Set a new password" })).toBeVisible();
  await expectAxeClean(member, "the reset page");
  await member.getByLabel("New password", { exact: true }).fill(MEMBER_NEW_PASSWORD);
  await member.getByLabel("New password again").fill(MEMBER_NEW_PASSWORD);
  await member.getByRole("button", { name: "Set password" }).click();
  await expect(member.getByRole("heading", { name: "Password set" })).toBeFocused();
  await expectAxeClean(member, "the reset page, done");
  await member.goto(url);
  await expect(member.getByRole("heading", { name: "This link no longer works" })).toBeVisible();
  await expectAxeClean(member, "the reset page, a used link");

  // Signed in with the new password, the member is sent from acme's pages to set two-factor up.
  await fillCredentials(member, MEMBER.email, MEMBER_NEW_PASSWORD);
  await expect(member).toHaveURL(/\/console\/account\?required=acme$/);
  await expect(
    member.getByRole("alert").filter({ hasText: "requires two-factor sign-in. Set it up below" }),
  ).toBeVisible();
  await expectAxeClean(member, "the account page, two-factor required by the organization");
  await other.close();
});
