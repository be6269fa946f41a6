// Preview `details` in Chromium on the preview server (PUBLIC_API_PREVIEW=all, the `preview` project): the reference
// lists the item endpoints and channels marked Preview, a product's page has its path parameter and a try-it that
// reads the product whole (values included) then revalidates it (304); the channels' try-it lists them; the guide
// "Reading whole products" is listed and renders; the pages are axe clean. The default server's side (off: none of
// this) is in write-preview.spec.ts and the unit tests of the router.
import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { expectAxeClean } from "./support/axe";

// acme's demo key, as the preview server wrote it to its data directory (the key try-it's "Use the demo key" fills).
function demoKey(): string {
  const file = JSON.parse(
    readFileSync(path.join(process.env.PCA_E2E_PREVIEW_DATA_DIR!, "demo-keys.json"), "utf8"),
  ) as { keys: { org: string; key: string }[] };
  const key = file.keys.find((k) => k.org === "acme")?.key;
  if (!key) throw new Error("no acme demo key in demo-keys.json");
  return key;
}

// Console errors, uncaught exceptions and failed requests of a page (the API's answers to try-it are not failures).
function watch(page: Page) {
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("response", (r) => {
    if (r.status() >= 400 && !new URL(r.url()).pathname.startsWith("/public/"))
      problems.push(`${r.status()} ${r.url()}`);
  });
  return problems;
}

async function openTryIt(page: Page, slug: string) {
  await page.goto(`/reference/${slug}`);
  await expect(page.getByRole("heading", { name: "Try it" })).toBeVisible();
  await page.waitForFunction(() => document.querySelector("form.try-it-form") !== null);
  await page.getByRole("button", { name: /Use the demo key/ }).click();
}

async function send(page: Page) {
  await page.getByRole("button", { name: /^Send GET/ }).click();
  await expect(page.getByTestId("try-it-status")).toBeVisible();
}

test("the reference lists the item endpoints and channels, marked Preview", async ({ page }) => {
  const problems = watch(page);
  await page.goto("/reference");
  for (const [slug, scope] of [
    ["products-id", "products:read"],
    ["families-id", "families:read"],
    ["attributes-id", "attributes:read"],
    ["channels", ""],
  ] as const) {
    const row = page.getByTestId(`endpoint-${slug}`);
    await expect(row).toContainText("Preview");
    if (scope) await expect(row).toContainText(scope);
  }
  expect(problems).toEqual([]);
});

test("a product's page: its path parameter, a try-it that reads it whole, then a 304", async ({
  page,
  request,
}) => {
  const problems = watch(page);
  const list = await request.get("/public/v1/products?perPage=1", {
    headers: { authorization: `Bearer ${demoKey()}` },
  });
  expect(list.status()).toBe(200);
  const id = (await list.json()).data[0].id as string;

  await openTryIt(page, "products-id");
  await expect(page.locator(".endpoint-line")).toContainText("Preview");
  await expect(page.getByRole("table", { name: "Path parameters" })).toContainText("id");
  await page.getByRole("textbox", { name: /^id/ }).fill(id);
  await send(page);
  await expect(page.getByTestId("try-it-status")).toHaveText(/^200/);
  const body = JSON.parse((await page.getByTestId("try-it-body").textContent()) ?? "{}");
  expect(body.id).toBe(id);
  expect(typeof body.values).toBe("object");
  expect(Object.keys(body.values).length).toBeGreaterThan(0);
  await expect(page.getByTestId("try-it-curl")).toContainText(`/public/v1/products/${id}`);

  // Again with the ETag of that answer: 304, shown readably.
  await page.getByLabel(/Send the ETag of the last answer/).check();
  await send(page);
  await expect(page.getByTestId("try-it-status")).toHaveText("304 Not Modified");
  await expect(page.getByTestId("try-it-not-modified")).toBeVisible();

  expect(problems).toEqual([]);

  // An id of nothing: the 404 in the contract's shape (Chromium logs the failed load: not a page problem).
  await page.getByLabel(/Send the ETag of the last answer/).uncheck();
  await page.getByRole("textbox", { name: /^id/ }).fill("prd_nowhere");
  await send(page);
  await expect(page.getByTestId("try-it-status")).toHaveText(/^404/);
  expect(JSON.parse((await page.getByTestId("try-it-body").textContent()) ?? "{}").code).toBe(
    "PUBLIC_API_NOT_FOUND",
  );
  await expectAxeClean(page, "/reference/products-id after try-it");
});

test("the channels' try-it lists the organization's channels", async ({ page }) => {
  await openTryIt(page, "channels");
  await send(page);
  await expect(page.getByTestId("try-it-status")).toHaveText(/^200/);
  const body = JSON.parse((await page.getByTestId("try-it-body").textContent()) ?? "{}");
  expect(body.data.length).toBeGreaterThan(0);
  expect(body.data[0]).toHaveProperty("code");
});

test("the guide on reading whole products is listed and renders", async ({ page }) => {
  const problems = watch(page);
  await page.goto("/docs");
  await page
    .getByRole("link", { name: /Reading whole products/ })
    .first()
    .click();
  await expect(page).toHaveURL(/\/docs\/reading-whole-products$/);
  await expect(page.locator("h1")).toContainText("Reading whole products");
  await expect(page.locator("article")).toContainText("/public/v1/products/");
  expect(problems).toEqual([]);
  await expectAxeClean(page, "/docs/reading-whole-products");
});
