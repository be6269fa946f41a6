// The console in Chromium, from the fresh embedded start of the webServer: an acme owner creates a key with two
// scopes, the API honours them, rolls it, revokes the new key (401 at once), reads the audit log; a
// member sees no controls; the globex owner sees none of acme's keys. Screenshots of the sign-in and keys pages.
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";

const ARTIFACTS = path.resolve("tests/artifacts");
mkdirSync(ARTIFACTS, { recursive: true });

interface DemoUser {
  email: string;
  password: string;
}

function demoUser(email: string): DemoUser {
  const file = JSON.parse(
    readFileSync(path.join(process.env.PCA_E2E_DATA_DIR!, "demo-keys.json"), "utf8"),
  ) as {
    users?: DemoUser[];
  };
  const user = file.users?.find((u) => u.email === email);
  if (!user) throw new Error(`demo user ${email} missing from demo-keys.json`);
  return user;
}

async function signIn(page: Page, email: string) {
  const { password } = demoUser(email);
  await page.goto("/console");
  await expect(page).toHaveURL(/\/console\/sign-in/);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await expect(page.getByRole("button", { name: "Sign in", exact: true })).toBeEnabled();
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).toHaveURL(/\/console\/[a-z0-9-]+\/keys/);
}

async function status(request: APIRequestContext, key: string, resource: string): Promise<number> {
  const res = await request.get(`/public/v1/${resource}?perPage=1`, {
    headers: { authorization: `Bearer ${key}` },
  });
  return res.status();
}

async function shoot(page: Page, name: string) {
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: path.join(ARTIFACTS, `console-${name}-${scheme}.png`), fullPage: true });
  }
  await page.emulateMedia({ colorScheme: "light" });
}

test("an acme owner creates, uses, rolls and revokes a key; the audit log shows it", async ({
  page,
  request,
}) => {
  await page.goto("/console/sign-in");
  await expect(page.getByRole("button", { name: "Sign in", exact: true })).toBeEnabled();
  await shoot(page, "sign-in");

  await signIn(page, "owner@acme.example");
  await expect(page).toHaveURL(/\/console\/acme\/keys/);

  // Every scope is checked by default; keep products and media only.
  const name = `e2e ${Date.now()}`;
  await page.getByLabel("Name").fill(name);
  for (const scope of [
    "products:read",
    "families:read",
    "attributes:read",
    "categories:read",
    "media:read",
  ]) {
    await expect(page.getByLabel(scope)).toBeChecked();
  }
  // The write preview is off on this server: products:write is offered nowhere.
  await expect(page.getByLabel("products:write")).toHaveCount(0);
  await expect(page.getByText(/products:write|preview/)).toHaveCount(0);
  for (const scope of ["families:read", "attributes:read", "categories:read"])
    await page.getByLabel(scope).uncheck();
  await page.getByRole("button", { name: "Create key" }).click();
  const shown = page.locator("section.new-key code");
  await expect(shown).toHaveText(/^pca_[0-9A-Za-z]{36}$/);
  const first = (await shown.textContent())!;
  await shoot(page, "keys-new-key");

  expect(await status(request, first, "products")).toBe(200);
  expect(await status(request, first, "media")).toBe(200);
  expect(await status(request, first, "families")).toBe(403);

  // Roll (the default grace, 24 h): both keys work.
  await page.getByRole("button", { name: "Done" }).click();
  const row = page.locator("tr", { hasText: name }).filter({ hasText: first.slice(0, 12) });
  await row.getByRole("button", { name: "Roll…" }).click();
  await row.getByRole("button", { name: "Roll", exact: true }).click();
  await expect(shown).toHaveText(/^pca_[0-9A-Za-z]{36}$/);
  const second = (await shown.textContent())!;
  expect(second).not.toBe(first);
  expect(await status(request, first, "products")).toBe(200);
  expect(await status(request, second, "products")).toBe(200);
  expect(await status(request, second, "families")).toBe(403);

  // Revoke the new one: 401 at once.
  await page.getByRole("button", { name: "Done" }).click();
  const newRow = page.locator("tr").filter({ hasText: second.slice(0, 12) });
  await newRow.getByRole("button", { name: "Revoke…" }).click();
  await newRow.getByRole("button", { name: "Revoke", exact: true }).click();
  await expect(newRow).toContainText("revoked");
  expect(await status(request, second, "products")).toBe(401);
  expect(await status(request, first, "products")).toBe(200);

  // The audit log shows the three actions, by this owner.
  await page.goto("/console/acme/audit");
  const log = page.locator("table");
  await expect(log).toContainText("created the key");
  await expect(log).toContainText("rolled the key");
  await expect(log).toContainText("revoked the key");
  await expect(log).toContainText("owner@acme.example");
  // Sign-out ends every session of the account, other tests' too: sign-in-address.spec.ts checks it after this suite.
});

test("an acme member sees the keys and nothing to change them", async ({ page }) => {
  await signIn(page, "member@acme.example");
  await expect(page).toHaveURL(/\/console\/acme\/keys/);
  await expect(page.getByRole("heading", { name: "Keys", exact: true })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Create a key" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: /Roll|Revoke|Create key/ })).toHaveCount(0);
});

test("the globex owner sees none of acme's keys, and acme's console is not theirs", async ({ page }) => {
  const acmeKeys = (
    JSON.parse(readFileSync(path.join(process.env.PCA_E2E_DATA_DIR!, "demo-keys.json"), "utf8")) as {
      keys: { org: string; key: string }[];
    }
  ).keys.filter((k) => k.org === "acme");
  await signIn(page, "owner@globex.example");
  await expect(page).toHaveURL(/\/console\/globex\/keys/);
  for (const k of acmeKeys) await expect(page.locator("body")).not.toContainText(k.key.slice(0, 12));
  const res = await page.goto("/console/acme/keys");
  expect([403, 404]).toContain(res?.status());
  for (const k of acmeKeys) await expect(page.locator("body")).not.toContainText(k.key.slice(0, 12));
});
