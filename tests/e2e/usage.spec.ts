// Usage and the request log in Chromium against the real server (npm start, USAGE_FLUSH_MS=500): requests made with
// Node's fetch (as curl would) with globex's demo key are found in the request log by their X-Request-Id, secret
// parameters removed, and counted in the usage charts; axe clean on both pages empty, with data and filtered.
import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { expectAxeClean } from "./support/axe";
import { signIn } from "./support/sign-in";

const DATA_DIR = process.env.PCA_E2E_DATA_DIR!;

function demoKey(org: string): string {
  const file = JSON.parse(readFileSync(path.join(DATA_DIR, "demo-keys.json"), "utf8")) as {
    keys: { org: string; key: string }[];
  };
  return file.keys.find((k) => k.org === org)!.key;
}

// Reloads the page until the text shows (the request log and usage are written every USAGE_FLUSH_MS).
async function reloadUntil(page: Page, text: string | RegExp, where = "main"): Promise<void> {
  await expect(async () => {
    await page.reload();
    await expect(page.locator(where)).toContainText(text, { timeout: 1000 });
  }).toPass({ timeout: 15_000 });
}

// The usage page's total of requests (its first figure).
const TOTAL = ".usage-totals > div:first-child dd";

test("a request made with the demo key is in the request log by its id and in the usage charts", async ({
  page,
  baseURL,
}) => {
  await signIn(page, "owner@globex.example", DATA_DIR);

  // Empty: globex's key has made no request on this server yet.
  await page.goto("/console/globex/usage");
  await expect(page.getByRole("heading", { name: /^Usage/ })).toBeVisible();
  await expect(page.getByText("No requests in the last 30 days.")).toBeVisible();
  await expectAxeClean(page, "the usage page, empty");
  await page.goto("/console/globex/requests");
  await expect(page.getByRole("heading", { name: /^Request log/ })).toBeVisible();
  await expect(page.getByText("No requests logged yet.")).toBeVisible();
  await expectAxeClean(page, "the request log, empty");

  // Two requests as curl would make them: a 200, and a 400 whose query carries a secret-looking parameter.
  const key = demoKey("globex");
  const ok = await fetch(`${baseURL}/public/v1/products?perPage=3`, {
    headers: { authorization: `Bearer ${key}` },
  });
  expect(ok.status).toBe(200);
  const okId = ok.headers.get("x-request-id")!;
  const bad = await fetch(`${baseURL}/public/v1/families?access_token=hunter2-secret`, {
    headers: { authorization: `Bearer ${key}` },
  });
  expect(bad.status).toBe(400);
  const badId = bad.headers.get("x-request-id")!;

  // Found by its request id, typed in the form and sent with Enter.
  await page.getByLabel("Request id").fill(okId);
  await page.getByLabel("Request id").press("Enter");
  await expect(page).toHaveURL(new RegExp(`requestId=${okId}`));
  await reloadUntil(page, okId);
  const table = page.getByRole("table", { name: "Request log" });
  await expect(table.getByRole("row")).toHaveCount(2);
  await expect(table).toContainText("/public/v1/products?perPage=3");
  await expect(table).toContainText("200");
  await expect(table).toContainText(key.slice(0, 8));
  await expect(page.locator("main")).not.toContainText(key);
  await expectAxeClean(page, "the request log, filtered by request id");

  // With data, unfiltered: the 400 with its code and the secret removed.
  await page.getByRole("link", { name: "Clear filters" }).click();
  await expect(page).toHaveURL(/\/console\/globex\/requests$/);
  await reloadUntil(page, badId);
  await expect(table).toContainText("/public/v1/families?access_token=[removed]");
  await expect(table).toContainText("PUBLIC_API_INVALID_QUERY");
  await expect(page.locator("main")).not.toContainText("hunter2-secret");
  await expectAxeClean(page, "the request log with data");

  // Filtered by status class: only the 400.
  await page.getByLabel("Status").fill("4xx");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/status=4xx/);
  await expect(table).toContainText(badId);
  await expect(table).not.toContainText(okId);
  await expectAxeClean(page, "the request log, filtered by status");

  // Usage: the two requests counted, in the charts and the tables behind them.
  await page.getByRole("navigation", { name: "Organization" }).getByRole("link", { name: "Usage" }).click();
  await expect(page).toHaveURL(/\/console\/globex\/usage$/);
  await reloadUntil(page, /^2$/, TOTAL);
  await expect(page.getByRole("img", { name: "Requests per day by status class" })).toBeVisible();
  await expect(page.getByRole("img", { name: "Requests per hour by status class" })).toBeVisible();
  await page.getByText("Requests per day (table)").click();
  const days = page.getByRole("table", { name: "Requests per day" });
  await expect(days).toBeVisible();
  await expectAxeClean(page, "the usage page with data");

  // One key selected with the keyboard-usable form.
  await page.getByLabel("Key", { exact: true }).selectOption({ index: 1 });
  await page.getByRole("button", { name: "Show" }).click();
  await expect(page).toHaveURL(/\?key=/);
  await expect(page.locator(TOTAL)).toHaveText("2");
  await expectAxeClean(page, "the usage page for one key");
});
