// Issue 21, rows 17, 20 and 1 in Chromium. The server's PUBLIC_BASE_URL is http://127.0.0.1:PORT; these tests open
// the console at http://localhost:PORT, another address of the same server: a refused sign-in says why and keeps the
// email, the right password signs in and the console works there (a key created: its Origin check), sign-out lands
// on that address's sign-in page. Then "Sign out everywhere" ends the session of another browser.
// "Sign out everywhere" ends every session of the account, so this file runs after the parallel suite (project
// "sessions").
import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";

const OTHER = `http://localhost:${process.env.PCA_E2E_PORT}`;

function password(email: string): string {
  const file = JSON.parse(
    readFileSync(path.join(process.env.PCA_E2E_DATA_DIR!, "demo-keys.json"), "utf8"),
  ) as { users?: { email: string; password: string }[] };
  const user = file.users?.find((u) => u.email === email);
  if (!user) throw new Error(`demo user ${email} missing from demo-keys.json`);
  return user.password;
}

async function signIn(page: Page, email: string) {
  await page.goto(`${OTHER}/console`);
  await expect(page).toHaveURL(`${OTHER}/console/sign-in`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password(email));
  await expect(page.getByRole("button", { name: "Sign in", exact: true })).toBeEnabled();
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`^${OTHER}/console/[a-z0-9-]+/keys$`));
}

test("signs in at another address than PUBLIC_BASE_URL's; a refused attempt keeps the email", async ({
  page,
}) => {
  expect(new URL(OTHER).host).not.toBe(new URL(test.info().project.use.baseURL!).host);
  await page.goto(`${OTHER}/console`);
  await expect(page).toHaveURL(`${OTHER}/console/sign-in`);

  // A wrong password: the page says so, on this address, and the email is still in its field.
  await page.getByLabel("Email").fill("owner@acme.example");
  await page.getByLabel("Password").fill("not the password");
  await expect(page.getByRole("button", { name: "Sign in", exact: true })).toBeEnabled();
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`^${OTHER}/console/sign-in\\?error=CredentialsSignin`));
  await expect(page.getByRole("alert").filter({ hasText: "Incorrect email or password." })).toBeVisible();
  await expect(page.getByLabel("Email")).toHaveValue("owner@acme.example");

  // The right password: signed in on this address.
  await page.getByLabel("Password").fill(password("owner@acme.example"));
  await expect(page.getByRole("button", { name: "Sign in", exact: true })).toBeEnabled();
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).toHaveURL(`${OTHER}/console/acme/keys`);

  // A console write from this address passes the Origin and CSRF checks.
  await page.getByLabel("Name").fill(`other address ${Date.now()}`);
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.locator("section.new-key code")).toHaveText(/^pca_[0-9A-Za-z]{36}$/);

  // Sign out: the console asks for a sign-in again, on this address.
  await page.getByRole("button", { name: "Done" }).click();
  await page.getByRole("button", { name: "Sign out", exact: true }).click();
  await expect(page).toHaveURL(`${OTHER}/console/sign-in`);
  await page.goto(`${OTHER}/console/acme/keys`);
  await expect(page).toHaveURL(/\/console\/sign-in/);
});

test("'Sign out everywhere' ends the session of another browser", async ({ page, browser }) => {
  const elsewhere = await browser.newContext();
  try {
    const other = await elsewhere.newPage();
    await signIn(other, "member@acme.example");
    await signIn(page, "member@acme.example");
    await page.getByRole("button", { name: "Sign out everywhere" }).click();
    await expect(page).toHaveURL(`${OTHER}/console/sign-in`);
    await other.reload();
    await expect(other).toHaveURL(/\/console\/sign-in/);
  } finally {
    await elsewhere.close();
  }
});
