import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, type APIRequestContext, type Page } from "@playwright/test";

// A demo user's password, from the demo-keys.json its server printed into its data directory.
export function demoPassword(email: string, dataDir: string): string {
  const file = JSON.parse(readFileSync(path.join(dataDir, "demo-keys.json"), "utf8")) as {
    users?: { email: string; password: string }[];
  };
  const user = file.users?.find((u) => u.email === email);
  if (!user) throw new Error(`demo user ${email} missing from demo-keys.json`);
  return user.password;
}

// Signs a demo user in through the console's sign-in page, which lands on the organization's keys.
export async function signIn(page: Page, email: string, dataDir: string): Promise<void> {
  await page.goto("/console");
  await expect(page).toHaveURL(/\/console\/sign-in/);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(demoPassword(email, dataDir));
  await expect(page.getByRole("button", { name: "Sign in", exact: true })).toBeEnabled();
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).toHaveURL(/\/console\/[a-z0-9-]+\/keys/);
}

// Signs a request context in as a demo user: the console's credentials sign-in, as the sign-in form posts it.
export async function signInRequest(
  request: APIRequestContext,
  email: string,
  dataDir: string,
): Promise<void> {
  const { csrfToken } = (await (await request.get("/api/auth/csrf")).json()) as { csrfToken: string };
  await request.post("/api/auth/callback/credentials", {
    form: { csrfToken, email, password: demoPassword(email, dataDir), callbackUrl: "/console" },
    maxRedirects: 0,
  });
  const keys = await request.get("/console/acme/keys", { maxRedirects: 0 });
  expect(keys.status()).toBe(200);
}
