// Members in Chromium (issue 26), on the default server's demo: the acme owner invites, copies the link, and a fresh
// browser (no session) makes the account from it, signs in and sees acme; the link then says it was used; someone
// else signed in is told the link is not theirs; a revoked link says so; invite and role change with the keyboard
// alone, the focus followed at each step; a member sees the list and what they may do, no controls. axe (WCAG 2.1 AA)
// on the members page in each state and on the invitation page in each of its states.
import { expect, test, type Locator, type Page } from "@playwright/test";
import { expectAxeClean } from "./support/axe";
import { TEST_PASSWORDS } from "../support/test-passwords";
import { signIn } from "./support/sign-in";

const DATA_DIR = process.env.PCA_E2E_DATA_DIR!;
const PASSWORD = TEST_PASSWORDS.invitedMember;

const unique = (what: string) => `e2e-${what}-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.com`;

async function membersPage(page: Page, who: string) {
  await signIn(page, who, DATA_DIR);
  await page.goto("/console/acme/members");
  await expect(page.getByRole("heading", { level: 1, name: /^Members · / })).toBeVisible();
}

// Invites with the mouse-free form filled by the test; the link shown once.
async function invite(page: Page, email: string, role = "member"): Promise<string> {
  await page.getByLabel("Email address").fill(email);
  await page.getByLabel("Role", { exact: true }).selectOption(role);
  await page.getByRole("button", { name: "Create invitation link" }).click();
  const panel = page.locator("section.new-key");
  await expect(panel).toBeFocused();
  return (await panel.locator("code").textContent())!;
}

function focusedElement(page: Page): Promise<string> {
  return page.evaluate(() => {
    const a = document.activeElement;
    return a ? `<${a.tagName.toLowerCase()} id="${a.id}">${(a.textContent ?? "").slice(0, 40)}` : "none";
  });
}

// Presses Tab until `target` has the focus (at most `max` times): how a keyboard user gets there.
async function tabTo(page: Page, target: Locator, max = 80) {
  for (let i = 0; i < max; i++) {
    if (await target.evaluate((el) => el === document.activeElement)) return;
    await page.keyboard.press("Tab");
  }
  throw new Error(`Tab never reached the target; the focus is on ${await focusedElement(page)}`);
}

test("invite, copy the link, accept it in a fresh browser with a new account, sign in and see the organization", async ({
  page,
  browser,
  context,
}) => {
  test.setTimeout(120_000);
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await membersPage(page, "owner@acme.example");
  await expect(page.getByText(/As an owner you invite people/)).toBeVisible();
  await expectAxeClean(page, "the members page (owner)");

  const email = unique("new");
  const link = await invite(page, email, "admin");
  expect(link).toMatch(/\/console\/invitations\/[A-Za-z0-9_-]{43}$/);
  await expect(page.locator("p.visually-hidden[role=status]")).toHaveText(
    `Invitation for ${email} created. Copy the link now: it is shown only once.`,
  );
  await expectAxeClean(page, "the members page with a new invitation link");
  await page.getByRole("button", { name: "Copy link to clipboard" }).click();
  await expect(page.getByRole("button", { name: "Copy link to clipboard" })).toHaveText("Copied");
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toBe(link);
  const row = page
    .getByRole("table", { name: "Open invitations" })
    .getByRole("row")
    .filter({ hasText: email });
  await expect(row).toContainText("Admin");
  await expect(row).toContainText("pending");

  // Signed in as someone else, the link says whose it is.
  await page.goto(copied);
  await expect(page.getByRole("note")).toContainText(
    `You are signed in as owner@acme.example, not as ${email}`,
  );
  await expect(page.getByRole("button", { name: /^Join/ })).toHaveCount(0);
  await expectAxeClean(page, "the invitation page (signed in as someone else)");

  // A fresh browser, no session: the new account's form.
  const fresh = await browser.newContext();
  try {
    const guest = await fresh.newPage();
    await guest.goto(copied);
    await expect(guest.getByRole("heading", { level: 1 })).toHaveText(/^Invitation to /);
    await expect(guest.getByText(`No account exists for ${email} yet`)).toBeVisible();
    await expectAxeClean(guest, "the invitation page (new account form)");
    await guest.getByLabel("Your name").fill("Eve Tester");
    await guest.getByLabel("Password").fill("short");
    await guest.getByRole("button", { name: "Create account and join" }).click();
    await expect(guest.getByLabel("Password")).toBeFocused();
    await expect(guest.getByText("A password has at least 8 characters.")).toBeVisible();
    await expectAxeClean(guest, "the invitation page (an invalid password)");
    await guest.getByLabel("Password").fill(PASSWORD);
    await guest.getByRole("button", { name: "Create account and join" }).click();
    await expect(guest.getByRole("heading", { name: "Your account is ready" })).toBeVisible();
    await expectAxeClean(guest, "the invitation page (account made)");

    // Signs in normally and lands on the organization's members, as an admin.
    await guest.getByRole("link", { name: "Sign in" }).click();
    await expect(guest).toHaveURL(/\/console\/sign-in/);
    await guest.getByLabel("Email").fill(email);
    await guest.getByLabel("Password").fill(PASSWORD);
    await guest.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(guest).toHaveURL(/\/console\/acme\/members/);
    const me = guest.getByRole("row").filter({ hasText: email });
    await expect(me).toContainText("Eve Tester (you)");
    await expect(me).toContainText("Admin");
    await expect(guest.getByText(/As an admin you invite members and admins/)).toBeVisible();
    await expectAxeClean(guest, "the members page (admin)");

    // The link is used: it says so, to anyone.
    await guest.goto(copied);
    await expect(guest.getByRole("heading", { level: 1 })).toHaveText("This invitation was used already");
    await expectAxeClean(guest, "the invitation page (used)");
  } finally {
    await fresh.close();
  }

  // The owner sees the new member; a remove dialog opens on Cancel.
  await page.goto("/console/acme/members");
  const joined = page.getByRole("table", { name: "Members" }).getByRole("row").filter({ hasText: email });
  await expect(joined).toContainText("Admin");
  await joined.getByRole("button", { name: `Remove ${email}` }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
  await expectAxeClean(page, "the members page (remove dialog)");
  await dialog.getByRole("button", { name: "Remove", exact: true }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByRole("table", { name: "Members" })).not.toContainText(email);
  await expect(page.getByRole("heading", { name: "Members", exact: true })).toBeFocused();
});

test("a revoked link and an unknown one each say so (never a 500)", async ({ page }) => {
  await membersPage(page, "owner@acme.example");
  const email = unique("revoked");
  const link = await invite(page, email);
  await page.getByRole("button", { name: "Done" }).click();
  await page.getByRole("button", { name: `Revoke the invitation for ${email}` }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
  await dialog.getByRole("button", { name: "Revoke", exact: true }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByRole("heading", { name: "Open invitations" })).toBeFocused();
  await expect(page.getByRole("row").filter({ hasText: email })).toHaveCount(0);
  await expect(page.locator("p.visually-hidden[role=status]")).toHaveText(
    `The invitation for ${email} was revoked: its link no longer works.`,
  );
  await expectAxeClean(page, "the members page after a revoke");

  const res = await page.goto(link);
  expect(res?.status()).toBe(200);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("This invitation was revoked");
  await expectAxeClean(page, "the invitation page (revoked)");
  const unknown = await page.goto("/console/invitations/not-a-link");
  expect(unknown?.status()).toBe(200);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("This invitation link is not valid");
  await expectAxeClean(page, "the invitation page (unknown link)");
});

test("keyboard only: an owner invites and changes a member's role, the focus where each step leads", async ({
  page,
  request,
  baseURL,
}) => {
  test.setTimeout(120_000);
  await membersPage(page, "owner@acme.example");
  const status = page.locator("p.visually-hidden[role=status]");
  const panel = page.locator("section.new-key");
  const dialog = page.getByRole("dialog");
  const email = unique("keys");

  // Invite: Tab to the email field, type it, Tab to the role (member by default), Tab to the button, Enter.
  await tabTo(page, page.getByLabel("Email address"));
  await page.keyboard.type(email);
  await page.keyboard.press("Tab");
  await expect(page.getByLabel("Role", { exact: true })).toBeFocused();
  await tabTo(page, page.getByRole("button", { name: "Create invitation link" }), 5);
  await page.keyboard.press("Enter");
  await expect(panel).toBeFocused();
  await expect(status).toHaveText(
    `Invitation for ${email} created. Copy the link now: it is shown only once.`,
  );
  const link = (await panel.locator("code").textContent())!;
  await page.keyboard.press("Tab");
  await expect(panel.getByRole("button", { name: "Copy link to clipboard" })).toBeFocused();
  await page.keyboard.press("Tab");
  await expect(panel.getByRole("button", { name: "Done" })).toBeFocused();
  await page.keyboard.press("Space");
  await expect(panel).toHaveCount(0);
  await expect(page.getByLabel("Email address")).toBeFocused();

  // The invitee makes their account (through the API, as the invitation page does), and the owner's list shows them.
  const token = link.split("/").pop()!;
  const made = await request.post("/api/console/invitations/register", {
    headers: { origin: baseURL! },
    data: { token, name: "Kay Board", password: PASSWORD },
  });
  expect(made.status()).toBe(201);
  await page.reload();
  const row = page.getByRole("table", { name: "Members" }).getByRole("row").filter({ hasText: email });
  await expect(row).toContainText("Member");

  // Change role…: the dialog opens on the role; Escape gives the focus back to the button.
  const change = row.getByRole("button", { name: `Change role ${email}` });
  await tabTo(page, change);
  await page.keyboard.press("Enter");
  await expect(dialog).toBeVisible();
  const select = dialog.getByLabel("Role");
  await expect(select).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);
  await expect(change).toBeFocused();

  // Again: the next role with the arrow key (a select's own keys), Tab to "Save role", Enter.
  await page.keyboard.press("Enter");
  await expect(select).toBeFocused();
  await page.keyboard.press("ArrowDown");
  await expect(select).toHaveValue("admin");
  await page.keyboard.press("Tab");
  await expect(dialog.getByRole("button", { name: "Save role" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(dialog).toHaveCount(0);
  await expect(row).toContainText("Admin");
  await expect(row).toBeFocused();
  await expect(status).toHaveText(`${email} is now admin.`);
  await expectAxeClean(page, "the members page after a role change");
});

test("a member sees who belongs and what they may do, with no controls but Leave", async ({ page }) => {
  await membersPage(page, "member@acme.example");
  await expect(page.getByText(/As a member you see who belongs to this organization/)).toBeVisible();
  await expect(page.getByRole("heading", { name: "Invite someone" })).toHaveCount(0);
  await expect(page.getByRole("heading", { name: "Open invitations" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: /^Remove|^Change role|^Revoke/ })).toHaveCount(0);
  await expect(page.getByRole("row").filter({ hasText: "owner@acme.example" })).toContainText("Owner");
  await expectAxeClean(page, "the members page (member)");
  // Leave… asks first (not confirmed here: the demo member stays).
  await page.getByRole("button", { name: /^Leave / }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
  await expectAxeClean(page, "the members page (leave dialog)");
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);
  await expect(page.getByRole("button", { name: /^Leave / })).toBeFocused();
});
