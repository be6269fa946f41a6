// Console sessions in Chromium (issue 37, row 1): two browsers of one owner (a laptop's Chrome and a phone's Safari,
// each a browser context of its own). Signing out in one leaves the other signed in; the account page lists both
// sessions (browser, address, started, last seen, this one marked) and signs the phone out, which is then refused;
// "Sign out everywhere" ends both. axe (WCAG 2.1 AA) on the account page with its sessions list.
// "Sign out everywhere" ends every session of the demo's globex owner, so this file runs after the parallel suite
// (project "sessions").
import { expect, test, type Browser, type Page } from "@playwright/test";
import { expectAxeClean } from "./support/axe";
import { signIn } from "./support/sign-in";

const DATA_DIR = process.env.PCA_E2E_DATA_DIR!;
const OWNER = "owner@globex.example";
const LAPTOP_UA =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";
const PHONE_UA =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";

async function browserPage(browser: Browser, userAgent: string): Promise<Page> {
  const context = await browser.newContext({ userAgent, baseURL: test.info().project.use.baseURL });
  return context.newPage();
}

// True when the page's session still opens the console (its keys page), false when it is sent to sign in.
async function signedIn(page: Page): Promise<boolean> {
  await page.goto("/console/globex/keys");
  await expect(page).toHaveURL(/\/console\/(globex\/keys|sign-in)/);
  return !page.url().includes("/console/sign-in");
}

async function signOutEverywhere(page: Page) {
  await page.getByRole("button", { name: "Sign out everywhere" }).click();
  await expect(page).toHaveURL(/\/console\/sign-in/);
}

test("two browsers of one owner: sign-out ends one only; the account page lists and ends a session; 'sign out everywhere' ends both", async ({
  browser,
}) => {
  const laptop = await browserPage(browser, LAPTOP_UA);
  const phone = await browserPage(browser, PHONE_UA);
  try {
    // The suite's earlier specs left sessions of this owner: end them all first.
    await signIn(laptop, OWNER, DATA_DIR);
    await signOutEverywhere(laptop);

    // Both browsers signed in; signing out on the phone leaves the laptop signed in.
    await signIn(laptop, OWNER, DATA_DIR);
    await signIn(phone, OWNER, DATA_DIR);
    await phone.getByRole("button", { name: "Sign out", exact: true }).click();
    await expect(phone).toHaveURL(/\/console\/sign-in/);
    expect(await signedIn(phone)).toBe(false);
    expect(await signedIn(laptop)).toBe(true);

    // The account page lists both sessions, this one marked, the other with its own Sign out.
    await signIn(phone, OWNER, DATA_DIR);
    await laptop.goto("/console/account");
    const table = laptop.getByRole("table", { name: "Your sessions" });
    const rows = table.locator("tbody tr");
    await expect(rows).toHaveCount(2);
    const mine = rows.filter({ hasText: "This session" });
    await expect(mine).toContainText("Chrome on Linux");
    await expect(mine).toContainText("127.0.0.1");
    const theirs = rows.filter({ hasText: "Safari on iOS" });
    await expect(theirs).toContainText("127.0.0.1");
    await expect(theirs.getByRole("cell").nth(2)).toHaveText(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
    await expect(theirs.getByRole("cell").nth(3)).toHaveText(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
    await expectAxeClean(laptop, "the account page with two sessions");

    // Signing the phone out from the laptop: the row goes, the focus on the list's title, the phone refused.
    await theirs.getByRole("button", { name: /^Sign out Safari on iOS at 127\.0\.0\.1/ }).click();
    await expect(rows).toHaveCount(1);
    await expect(
      laptop.getByRole("status").filter({ hasText: "Signed out the session of Safari on iOS" }),
    ).toBeVisible();
    await expect(laptop.getByRole("heading", { level: 2, name: "Sessions" })).toBeFocused();
    expect(await signedIn(phone)).toBe(false);
    expect(await signedIn(laptop)).toBe(true);

    // "Sign out everywhere" on the laptop ends the phone's new session too.
    await signIn(phone, OWNER, DATA_DIR);
    await signOutEverywhere(laptop);
    expect(await signedIn(phone)).toBe(false);
    expect(await signedIn(laptop)).toBe(false);
  } finally {
    await laptop.context().close();
    await phone.context().close();
  }
});
