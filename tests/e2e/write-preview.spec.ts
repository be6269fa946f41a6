// The write preview in Chromium, in whichever state the server runs: off (the `chromium` project's server), nothing
// about writes in the console, the reference, the guides or the OpenAPI document; on (the `preview` project's server,
// PUBLIC_API_PREVIEW=all), the console offers products:write unchecked and a key made with it may create, the
// products reference shows the POST marked Preview, the guide is listed and renders. Screenshots of the reference
// section and the guide when on.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { signIn } from "./support/sign-in";

// Whether this test's server runs the preview (the `preview` project's), read once per test.
let ON = false;
test.beforeEach(({}, info) => {
  ON = info.project.name === "preview";
});
const ARTIFACTS = path.resolve("tests/artifacts");
mkdirSync(ARTIFACTS, { recursive: true });

// Console errors, uncaught exceptions and failed requests of a page.
function watch(page: Page) {
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("response", (r) => {
    if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
  });
  return problems;
}

test("the console offers products:write only with the switch, unchecked; a key made with it may create", async ({
  page,
  request,
}) => {
  await signIn(
    page,
    "owner@acme.example",
    ON ? process.env.PCA_E2E_PREVIEW_DATA_DIR! : process.env.PCA_E2E_DATA_DIR!,
  );
  for (const scope of ["products:read", "families:read", "attributes:read", "categories:read", "media:read"])
    await expect(page.getByLabel(scope)).toBeChecked();
  const write = page.getByLabel("products:write");
  if (!ON) {
    await expect(write).toHaveCount(0);
    return;
  }
  await expect(write).not.toBeChecked();
  await page.waitForFunction(() => document.querySelector("form.console-form") !== null);
  await page.getByLabel("Name").fill(`writer ${Date.now()}`);
  for (const scope of ["families:read", "attributes:read", "categories:read", "media:read"])
    await page.getByLabel(scope).uncheck();
  await write.check();
  await page.getByRole("button", { name: "Create key" }).click();
  const shown = page.locator("section.new-key code");
  await expect(shown).toHaveText(/^pca_[0-9A-Za-z]{36}$/);
  await expect(page.locator("section.new-key")).toContainText("products:read, products:write");
  const key = (await shown.textContent())!;
  // Authorized: the body is what is refused (400), not the key (403).
  const res = await request.post("/public/v1/products?dryRun=true", {
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    data: {},
  });
  expect(res.status()).toBe(400);
  expect((await res.json()).code).toBe("PUBLIC_API_INVALID_BODY");
});

test("the reference, the guides and the OpenAPI document show the POST only with the switch", async ({
  page,
  request,
}) => {
  const doc = await (await request.get("/public/v1/openapi.json")).json();
  expect(Boolean(doc.paths["/public/v1/products"].post)).toBe(ON);

  const problems = watch(page);
  await page.goto("/reference/products");
  const section = page.getByTestId("operation-create-product");
  if (!ON) {
    await expect(section).toHaveCount(0);
    await expect(page.locator("article")).not.toContainText("products:write");
    await page.goto("/docs");
    await expect(page.locator("body")).not.toContainText("Creating products");
    expect(problems).toEqual([]);
    expect((await request.get("/docs/creating-products")).status()).toBe(404);
    return;
  }
  await expect(section.getByRole("heading", { level: 2 })).toHaveText(
    /Create a product \(preview\)\s*Preview/,
  );
  await expect(section.locator(".endpoint-line")).toHaveText(/POST\s*\/public\/v1\/products/);
  await expect(page.getByTestId("create-product-scope")).toHaveText("products:write");
  await expect(section.getByRole("table", { name: "POST /public/v1/products headers" })).toContainText(
    "Idempotency-Key",
  );
  await expect(
    section.getByRole("table", { name: "POST /public/v1/products query parameters" }),
  ).toContainText("dryRun");
  await expect(section.getByRole("table", { name: "Values by attribute type" })).toContainText(
    "MULTI_SELECT",
  );
  await expect(section.getByRole("table", { name: "POST /public/v1/products errors" })).toContainText(
    "PUBLIC_API_IDEMPOTENCY_KEY_REUSED",
  );
  await page.waitForLoadState("networkidle");
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await section.screenshot({ path: path.join(ARTIFACTS, `reference-create-product-${scheme}.png`) });
  }
  await page.emulateMedia({ colorScheme: "light" });

  await page.goto("/reference");
  await expect(page.getByTestId("operation-create-product")).toContainText("products:write");
  await page.getByTestId("operation-create-product").getByRole("link").click();
  await expect(page).toHaveURL(/\/reference\/products#create-product$/);

  await page.goto("/docs");
  await page.getByRole("link", { name: "Creating products (preview)" }).first().click();
  await expect(page).toHaveURL(/\/docs\/creating-products$/);
  await expect(page.locator("h1")).toHaveText("Creating products (preview)");
  await expect(page.locator("article")).toContainText("Idempotency-Key");
  await expect(page.locator("article pre")).toHaveCount(8);
  await page.waitForLoadState("networkidle");
  await page.screenshot({ path: path.join(ARTIFACTS, "guide-creating-products-light.png"), fullPage: true });
  expect(problems).toEqual([]);
});
