// The console's forms in one style: every label is set in the page's text font, as a sentence; only what is code in
// it (a scope, an endpoint) is in the monospace font, inside a <code>. Checked in Chromium on the pages whose forms
// have checkboxes: the account page (an owner's two-factor requirement), the keys page (the scopes) and a try-it form.
import { expect, test, type Page } from "@playwright/test";
import { signIn } from "./support/sign-in";

// Each label's own font (its text outside any <code>), beside the page's body font.
async function labelFonts(page: Page): Promise<{ body: string; labels: { text: string; font: string }[] }> {
  return page.evaluate(() => ({
    body: getComputedStyle(document.body).fontFamily,
    labels: [...document.querySelectorAll("main label")].map((label) => ({
      text: (label.textContent ?? "").trim().slice(0, 60),
      font: getComputedStyle(label).fontFamily,
    })),
  }));
}

// Whether a computed font-family list is the monospace one (Geist Mono, or the generic fallbacks).
const MONO = /mono|monospace/i;

test("the console's labels are in the text font, code inside them in the monospace one", async ({ page }) => {
  await signIn(page, "owner@acme.example", process.env.PCA_E2E_DATA_DIR!);
  for (const where of ["/console/account", "/console/acme/keys"]) {
    await page.goto(where);
    await expect(page.locator("main label").first()).toBeVisible();
    const { body, labels } = await labelFonts(page);
    expect(body).not.toMatch(MONO);
    expect(labels.length, where).toBeGreaterThan(0);
    for (const label of labels) expect({ where, ...label }).toEqual({ where, text: label.text, font: body });
  }
  // The account page has the owner's two-factor requirement, the label that was in the monospace font.
  await page.goto("/console/account");
  await expect(page.getByText("Require two-factor sign-in of every member")).toHaveCSS(
    "font-family",
    (await labelFonts(page)).body,
  );
  // A scope is code: in the monospace font, inside its label.
  await page.goto("/console/acme/keys");
  const scope = page.locator("label code", { hasText: "products:read" }).first();
  await expect(scope).toBeVisible();
  expect(await scope.evaluate((el) => getComputedStyle(el).fontFamily)).toMatch(MONO);
});

test("a try-it form's labels are in the text font", async ({ page }) => {
  await page.goto("/reference/attributes");
  await expect(page.locator("main label").first()).toBeVisible();
  const { body, labels } = await labelFonts(page);
  for (const label of labels) expect(label).toEqual({ text: label.text, font: body });
});
