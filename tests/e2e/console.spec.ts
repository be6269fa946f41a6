// The console in Chromium, from the fresh embedded start of the webServer: an acme owner creates a key with two
// scopes, the API honours them, rolls it, revokes the new key (401 at once), reads the audit log; the
// same with the keyboard alone, the focus followed at each step; errors next to their fields; "Try it" on an endpoint
// the key can read; a member sees no controls; the globex owner sees none of acme's keys. axe (WCAG 2.1 AA) on every
// page and state visited. Screenshots of the sign-in and keys pages.
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect, test, type APIRequestContext, type Locator, type Page } from "@playwright/test";
import { expectAxeClean, expectAxeCleanAtWidths } from "./support/axe";

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
  // Many steps, each state checked with axe (at two widths for most) on a shared machine.
  test.setTimeout(180_000);
  await page.goto("/console/sign-in");
  await expect(page.getByRole("button", { name: "Sign in", exact: true })).toBeEnabled();
  await shoot(page, "sign-in");
  await expectAxeCleanAtWidths(page, "the sign-in page");

  await signIn(page, "owner@acme.example");
  await expect(page).toHaveURL(/\/console\/acme\/keys/);
  await expectAxeCleanAtWidths(page, "the keys page");

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
  // No blank band above the panel's title: none of the page's section rule and space above an h2.
  const panelTitle = page.locator("section.new-key h2");
  await expect(panelTitle).toHaveCSS("margin-top", "0px");
  await expect(panelTitle).toHaveCSS("border-top-width", "0px");
  await expectAxeCleanAtWidths(page, "the keys page with the new key");

  expect(await status(request, first, "products")).toBe(200);
  expect(await status(request, first, "media")).toBe(200);
  expect(await status(request, first, "families")).toBe(403);

  // Roll (the default grace, 24 h), in a dialog: both keys work.
  await page.getByRole("button", { name: "Done" }).click();
  const row = page.locator("tr", { hasText: name }).filter({ hasText: first.slice(0, 12) });
  await row.getByRole("button", { name: "Roll…" }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole("heading")).toHaveText(`Roll “${name}”`);
  await expectAxeClean(page, "the roll dialog");
  await dialog.getByRole("button", { name: "Roll", exact: true }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByRole("heading", { name: "Key rolled: the new key" })).toBeVisible();
  await expect(shown).toHaveText(/^pca_[0-9A-Za-z]{36}$/);
  const second = (await shown.textContent())!;
  await expect(shown).not.toHaveText(first);
  await expectAxeClean(page, "the keys page with the rolled key");
  expect(second).not.toBe(first);
  expect(await status(request, first, "products")).toBe(200);
  expect(await status(request, second, "products")).toBe(200);
  expect(await status(request, second, "families")).toBe(403);

  // Revoke the new one while its panel is shown: 401 at once, and the panel of a dead key goes.
  const newRow = page.locator("tr").filter({ hasText: second.slice(0, 12) });
  await newRow.getByRole("button", { name: "Revoke…" }).click();
  await expect(dialog.getByRole("heading")).toHaveText(`Revoke “${name}”?`);
  await expectAxeClean(page, "the revoke dialog");
  await dialog.getByRole("button", { name: "Revoke", exact: true }).click();
  await expect(newRow).toContainText("revoked");
  await expect(page.locator("section.new-key")).toHaveCount(0);
  expect(await status(request, second, "products")).toBe(401);
  expect(await status(request, first, "products")).toBe(200);
  await expectAxeCleanAtWidths(page, "the keys page after a revoke");

  // The audit log shows the three actions, by this owner.
  await page.goto("/console/acme/audit");
  const log = page.locator("table");
  await expect(log).toContainText("created the key");
  await expect(log).toContainText("rolled the key");
  await expect(log).toContainText("revoked the key");
  await expect(log).toContainText("owner@acme.example");
  await expectAxeCleanAtWidths(page, "the audit log");
  // Filtered to revocations: only that row stays; the CSV link downloads what the filter keeps.
  await page.getByLabel("What").selectOption("api_key.revoked");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/[?&]action=api_key\.revoked/);
  await expect(log).toContainText("revoked the key");
  await expect(log).not.toContainText("created the key");
  await expect(log).not.toContainText("rolled the key");
  await expectAxeClean(page, "the audit log, filtered");
  const csvHref = await page.getByRole("link", { name: "Download as CSV" }).getAttribute("href");
  expect(csvHref).toContain("action=api_key.revoked");
  const csv = await page.request.get(csvHref!);
  expect(csv.status()).toBe(200);
  expect(csv.headers()["content-type"]).toBe("text/csv; charset=utf-8");
  const rows = (await csv.text()).trim().split("\r\n");
  expect(rows[0]).toBe("createdAt,actorEmail,action,targetId,details,id");
  expect(rows.slice(1).every((r) => r.includes(",api_key.revoked,"))).toBe(true);
  expect(rows.length).toBeGreaterThanOrEqual(2);
  // Sign-out ends every session of the account, other tests' too: sign-in-address.spec.ts checks it after this suite.
});

test("an acme member sees the keys and nothing to change them", async ({ page }) => {
  await signIn(page, "member@acme.example");
  await expect(page).toHaveURL(/\/console\/acme\/keys/);
  await expect(page.getByRole("heading", { name: "Keys", exact: true })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Create a key" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: /Roll|Revoke|Create key/ })).toHaveCount(0);
  await expectAxeCleanAtWidths(page, "a member's keys page");
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
  await expectAxeClean(page, "another organization's keys page (not found)");
  for (const k of acmeKeys) await expect(page.locator("body")).not.toContainText(k.key.slice(0, 12));
});

// The element that has the focus now, as a short description for failure messages.
function focusedElement(page: Page): Promise<string> {
  return page.evaluate(() => {
    const a = document.activeElement;
    return a ? `<${a.tagName.toLowerCase()} id="${a.id}">${(a.textContent ?? "").slice(0, 40)}` : "none";
  });
}

// Presses Tab until `target` has the focus (at most `max` times): how a keyboard user gets there.
async function tabTo(page: Page, target: Locator, max = 60) {
  for (let i = 0; i < max; i++) {
    if (await target.evaluate((el) => el === document.activeElement)) return;
    await page.keyboard.press("Tab");
  }
  throw new Error(`Tab never reached the target; the focus is on ${await focusedElement(page)}`);
}

// The dialog closed by its state, then opened again before the browser fired the close event of that close (a
// keyboard user's Escape then Enter: flaky in CI 11:55): the late event must not close the new dialog. Forced here in
// one task: Cancel, React's commit (a microtask), Roll… again, then the queued close event.
test("a dialog closed and opened again at once stays open: the first close's late event is not a new close", async ({
  page,
}) => {
  await signIn(page, "owner@acme.example");
  await expect(page).toHaveURL(/\/console\/acme\/keys/);
  await page.getByRole("button", { name: "Roll…" }).first().click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toBeVisible();
  const openAfter = await page.evaluate(async () => {
    const buttons = (root: ParentNode, text: string) =>
      [...root.querySelectorAll("button")].filter((b) => b.textContent === text);
    const shown = document.querySelector("dialog[open]")!;
    buttons(shown, "Cancel")[0]!.click();
    for (let i = 0; i < 5; i++) await Promise.resolve();
    const closedBetween = !document.querySelector("dialog[open]");
    buttons(document, "Roll…")[0]!.click();
    await new Promise((r) => setTimeout(r, 200));
    return { closedBetween, open: Boolean(document.querySelector("dialog[open]")) };
  });
  // The dialog was closed between the two clicks (the race is real), and is open at the end.
  expect(openAfter).toEqual({ closedBetween: true, open: true });
  await expect(dialog).toBeVisible();
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toHaveCount(0);
});

test("keyboard only: an owner creates, rolls and revokes a key, the focus where each step leads", async ({
  page,
  request,
}) => {
  await signIn(page, "owner@acme.example");
  await expect(page).toHaveURL(/\/console\/acme\/keys/);
  const status_ = page.locator("p.visually-hidden[role=status]");
  const panel = page.locator("section.new-key");
  const dialog = page.getByRole("dialog");
  const name = `keyboard ${Date.now()}`;

  // Create: name, two scopes of five (Space on the other three), Enter on "Create key".
  await tabTo(page, page.getByLabel("Name"));
  await page.keyboard.type(name);
  await page.keyboard.press("Tab");
  await expect(page.getByLabel("products:read")).toBeFocused();
  for (const scope of ["families:read", "attributes:read", "categories:read"]) {
    await page.keyboard.press("Tab");
    await expect(page.getByLabel(scope)).toBeFocused();
    await page.keyboard.press("Space");
    await expect(page.getByLabel(scope)).not.toBeChecked();
  }
  await expect(page.getByText("Selected: products:read, media:read.")).toBeVisible();
  await tabTo(page, page.getByRole("button", { name: "Create key" }));
  await page.keyboard.press("Enter");

  // The focus is on the new key's panel; the status line announces it.
  await expect(panel).toBeFocused();
  await expect(panel.getByRole("heading")).toHaveText("Your new key");
  await expect(status_).toHaveText(`Key “${name}” created. Copy it now: it is shown only once.`);
  const first = (await panel.locator("code").textContent())!;
  expect(await status(request, first, "media")).toBe(200);
  // The form is fresh again: every read scope checked.
  await expect(page.getByLabel("families:read")).toBeChecked();

  // Copy key, Try it, Done: Done puts the focus on the key's row.
  await page.keyboard.press("Tab");
  await expect(panel.getByRole("button", { name: "Copy key" })).toBeFocused();
  await page.keyboard.press("Tab");
  await expect(panel.getByRole("button", { name: "Try it" })).toBeFocused();
  await page.keyboard.press("Tab");
  await expect(panel.getByRole("button", { name: "Done" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(panel).toHaveCount(0);
  const row = page.locator("tr").filter({ hasText: first.slice(0, 12) });
  await expect(row).toBeFocused();

  // Roll…: a dialog, its first control focused; Escape closes it and the focus is back on Roll….
  await page.keyboard.press("Tab");
  const rollButton = row.getByRole("button", { name: "Roll…" });
  await expect(rollButton).toBeFocused();
  // Enter on the button by its locator: the list is refreshed after Done, and a row rendered again between the focus
  // check and the key press took the focus with it (the press went to the page: seen once in CI).
  await rollButton.press("Enter");
  await expect(dialog).toBeVisible();
  await expect(dialog.getByLabel("Old key keeps working for")).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);
  await expect(rollButton).toBeFocused();

  // Roll… again, Tab to "Roll", Enter: the focus is on the rolled key's panel.
  await page.keyboard.press("Enter");
  await expect(dialog).toBeVisible();
  await page.keyboard.press("Tab");
  await expect(dialog.getByRole("button", { name: "Roll", exact: true })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(dialog).toHaveCount(0);
  await expect(panel).toBeFocused();
  await expect(panel.getByRole("heading")).toHaveText("Key rolled: the new key");
  await expect(status_).toHaveText(`Key “${name}” rolled. Copy the new key now: it is shown only once.`);
  const second = (await panel.locator("code").textContent())!;
  expect(second).not.toBe(first);
  expect(await status(request, second, "media")).toBe(200);

  // Done, then Revoke… on the new key's row: the dialog opens on Cancel (Escape gives the focus back), Shift+Tab to
  // "Revoke", Enter: the focus is on the row, now revoked.
  await tabTo(page, panel.getByRole("button", { name: "Done" }), 5);
  await page.keyboard.press("Enter");
  const newRow = page.locator("tr").filter({ hasText: second.slice(0, 12) });
  await expect(newRow).toBeFocused();
  const revokeButton = newRow.getByRole("button", { name: "Revoke…" });
  await tabTo(page, revokeButton, 3);
  await page.keyboard.press("Enter");
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);
  await expect(revokeButton).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
  await page.keyboard.press("Shift+Tab");
  await expect(dialog.getByRole("button", { name: "Revoke", exact: true })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(dialog).toHaveCount(0);
  await expect(newRow).toContainText("revoked");
  await expect(newRow).toBeFocused();
  await expect(status_).toHaveText(`Key “${name}” revoked: calls with it fail from now on.`);
  expect(await status(request, second, "media")).toBe(401);
  expect(await status(request, first, "media")).toBe(200);
});

test("the create form: errors next to their fields in words, a true scope help text; Try it on a readable endpoint", async ({
  page,
}) => {
  // Many steps, each state checked with axe (at two widths for most) on a shared machine.
  test.setTimeout(180_000);
  await signIn(page, "owner@acme.example");
  await expect(page).toHaveURL(/\/console\/acme\/keys/);
  const help = page.locator("fieldset .help");
  await expect(help).toHaveText(/^All 5 read scopes are selected/);

  // No scope: said by the help text, refused next to the scopes.
  for (const scope of ["products:read", "families:read", "attributes:read", "categories:read", "media:read"])
    await page.getByLabel(scope).uncheck();
  await expect(help).toHaveText("No scope is selected: select at least one.");
  await page.getByLabel("Name").fill("errors");
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.locator("fieldset .field-error")).toHaveText("Select at least one scope.");
  await expect(page.getByLabel("products:read")).toBeFocused();

  // The server's refusals: next to the field they are about, in words, the field marked and focused.
  await page.getByLabel("media:read").check();
  await expect(help).toHaveText("Selected: media:read.");
  await page.getByLabel("Expires on (optional)").fill("2020-01-01");
  await page.getByRole("button", { name: "Create key" }).click();
  const expiry = page.getByLabel("Expires on (optional)");
  await expect(expiry).toHaveAttribute("aria-invalid", "true");
  await expect(expiry).toHaveAccessibleDescription(/^The expiry must be in the future\./);
  await expect(expiry).toBeFocused();
  await expect(page.locator("#key-expiry-error")).toHaveText("The expiry must be in the future.");
  await expect(page.locator("body")).not.toContainText("expiresAt");
  await expectAxeCleanAtWidths(page, "the keys page with a field error");

  await page.getByLabel("Name").fill("");
  await page.getByLabel("Expires on (optional)").fill("");
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByLabel("Name")).toHaveAccessibleDescription("A key needs a name.");
  await expect(page.getByLabel("Name")).toBeFocused();
  await expect(expiry).not.toHaveAttribute("aria-invalid");

  // A key that reads media only: Try it opens the media endpoint's try-it form, the key in it, focused.
  await page.getByLabel("Name").fill("media only");
  await page.getByRole("button", { name: "Create key" }).click();
  const key = (await page.locator("section.new-key code").textContent())!;
  await page.getByRole("button", { name: "Try it" }).click();
  await expect(page).toHaveURL(/\/reference\/media#try-it$/);
  const field = page.getByLabel("API key");
  await expect(field).toBeFocused();
  await expect(field).toHaveValue(key);
  await page.getByRole("button", { name: /^Send GET/ }).click();
  await expect(page.getByTestId("try-it-status")).toHaveText(/^200/);
});
