// The changelog editor in Chromium, from the fresh embedded start of the webServer: the product team writes an
// entry whose body tries every classic script injection, previews it, publishes it (on /changelog and in both
// feeds, nothing live anywhere), unpublishes it (gone from all three); the preview follows what is being typed, on
// the new-entry page too, with the body's headings under the entry's title and a refused link as its text; leaving
// with unsaved edits asks first. An acme owner cannot open the editor. axe (WCAG 2.1 AA) on every console page and
// state visited, at 1280 and 390 px. Screenshots of the editor and its preview, light and dark.
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { expectAxeClean, expectAxeCleanAtWidths } from "./support/axe";

const ARTIFACTS = path.resolve("tests/artifacts");
mkdirSync(ARTIFACTS, { recursive: true });

// Each line tries to run script: raw HTML, an event handler, and links with javascript: (plain, mixed case,
// entity-encoded) and data: URLs. Each sets window.__xss to its own number if it ever runs.
const PAYLOADS = [
  "<script>window.__xss=1</script>",
  '<img src=x onerror="window.__xss=2">',
  "[a](javascript:window.__xss=3)",
  "[b](JaVaScRiPt:window.__xss=4)",
  "[c](jav&#x61;script:window.__xss=5)",
  "[d](data:text/html,<script>window.__xss=6</script>)",
];
const BODY = `Media can now be **filtered** by type.\n\n${PAYLOADS.join("\n\n")}\n`;
const BAD_URL = /^\s*(javascript|vbscript|data):/i;

function demoPassword(email: string): string {
  const file = JSON.parse(
    readFileSync(path.join(process.env.PCA_E2E_DATA_DIR!, "demo-keys.json"), "utf8"),
  ) as { users?: Array<{ email: string; password: string }> };
  const user = file.users?.find((u) => u.email === email);
  if (!user) throw new Error(`demo user ${email} missing from demo-keys.json`);
  return user.password;
}

async function signIn(page: Page, email: string, landing: RegExp) {
  await page.goto("/console");
  await expect(page).toHaveURL(/\/console\/sign-in/);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(demoPassword(email));
  await expect(page.getByRole("button", { name: "Sign in", exact: true })).toBeEnabled();
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).toHaveURL(landing);
}

async function shoot(page: Page, name: string, target?: Locator) {
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const file = path.join(ARTIFACTS, `console-${name}-${scheme}.png`);
    if (target) await target.screenshot({ path: file });
    else await page.screenshot({ path: file, fullPage: true });
  }
  await page.emulateMedia({ colorScheme: "light" });
}

// Nothing of the payloads is live on this page: no script ran, and the entry holds no script element, no on*
// attribute, and no link or source with a javascript:, vbscript: or data: URL (nor does the whole document, but
// for the site's favicon).
async function expectInert(page: Page, entry: Locator) {
  await expect(entry).toBeVisible();
  expect(await page.evaluate(() => (window as { __xss?: unknown }).__xss)).toBeUndefined();
  const found = await entry.evaluate((root, bad) => {
    const re = new RegExp(bad, "i");
    const all = [root, ...root.querySelectorAll("*")];
    return {
      scripts: root.querySelectorAll("script, iframe, object, embed, svg, math, form").length,
      handlers: all.flatMap((el) => [...el.attributes].filter((a) => /^on/i.test(a.name)).map((a) => a.name)),
      // The whole document but the site's own favicon (a data: SVG image in <head>).
      urls: [...document.querySelectorAll("[href], [src], [action], [formaction]")]
        .filter((el) => !el.matches('head link[rel~="icon"][href^="data:image/svg+xml,"]'))
        .flatMap((el) => ["href", "src", "action", "formaction"].map((n) => el.getAttribute(n) ?? ""))
        .filter((v) => re.test(v)),
      text: root.textContent ?? "",
    };
  }, BAD_URL.source);
  expect(found.scripts).toBe(0);
  expect(found.handlers).toEqual([]);
  expect(found.urls).toEqual([]);
  // The raw HTML is shown as text, never interpreted.
  expect(found.text).toContain("<script>window.__xss=1</script>");
  // Give anything deferred (an image's onerror) its chance to run, then look again.
  await page.waitForTimeout(300);
  expect(await page.evaluate(() => (window as { __xss?: unknown }).__xss)).toBeUndefined();
}

// The feed's text, and the entry's HTML content checked the same way in a parsed (never executed) document.
async function expectFeed(page: Page, url: string, title: string, present: boolean) {
  const res = await page.request.get(url);
  expect(res.status()).toBe(200);
  const xml = await res.text();
  expect(xml.includes(title)).toBe(present);
  expect(xml).not.toMatch(/<script/i);
  expect(xml).not.toMatch(/(href|src)\s*=\s*["']?\s*(javascript|vbscript|data):/i);
  if (!present) return;
  const check = await page.evaluate(
    ({ xml, title, bad }) => {
      const re = new RegExp(bad, "i");
      const doc = new DOMParser().parseFromString(xml, "application/xml");
      const items = [...doc.querySelectorAll("item, entry")];
      const item = items.find((i) => (i.querySelector("title")?.textContent ?? "").includes(title));
      if (!item) return null;
      const html = [...item.children]
        .filter((c) => /^(content|encoded|description|summary)$/.test(c.localName))
        .map((c) => c.textContent ?? "")
        .join("\n");
      const body = new DOMParser().parseFromString(html, "text/html");
      const all = [...body.querySelectorAll("*")];
      return {
        scripts: body.querySelectorAll("script, iframe, object, embed, svg, math, form").length,
        handlers: all.flatMap((el) =>
          [...el.attributes].filter((a) => /^on/i.test(a.name)).map((a) => a.name),
        ),
        urls: all
          .flatMap((el) => ["href", "src", "action", "formaction"].map((n) => el.getAttribute(n) ?? ""))
          .filter((v) => re.test(v)),
        hasBody: html.includes("filtered"),
      };
    },
    { xml, title, bad: BAD_URL.source },
  );
  expect(check).toEqual({ scripts: 0, handlers: [], urls: [], hasBody: true });
}

test("the product team writes an entry full of script injections: preview, publish, feeds, unpublish, all inert", async ({
  page,
}) => {
  // Many steps, each state checked with axe (at two widths for most) on a shared machine.
  test.setTimeout(180_000);
  await signIn(page, "team@catalog.example", /\/console\/changelog$/);
  await expect(
    page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Changelog" }),
  ).toBeVisible();

  await expectAxeCleanAtWidths(page, "the changelog list");

  const title = `Media type filter ${Date.now()}`;
  await page.getByRole("link", { name: "New entry" }).click();
  await expect(page).toHaveURL(/\/console\/changelog\/new$/);
  await expectAxeCleanAtWidths(page, "the new-entry page");
  // exact: the live preview beside the form is an article named by the title being typed ("Media type filter …").
  await page.getByLabel("Title", { exact: true }).fill(title);
  await page.getByLabel("Type", { exact: true }).selectOption("Security");
  await page.getByLabel("/public/v1/media").check();
  await page.getByLabel("Body (markdown)").fill(BODY);
  await page.getByRole("button", { name: "Create draft" }).click();
  await expect(page).toHaveURL(/\/console\/changelog\/chg_[0-9A-Za-z]+$/);
  const editorUrl = page.url();

  // The preview: the saved entry through the component /changelog uses.
  const preview = page.locator(".changelog-preview article.changelog-entry");
  await expect(preview).toContainText(title);
  await expect(preview).toContainText("Security");
  await expect(preview).toContainText("/public/v1/media");
  await expectInert(page, preview);
  await expect(page.locator(".changelog-actions .entry-status")).toHaveText("Draft");
  await expect(page.locator("table")).toContainText("created the draft");
  await shoot(page, "changelog-editor");
  await shoot(page, "changelog-preview", page.locator(".changelog-preview"));
  await expectAxeCleanAtWidths(page, "the editor of a draft");

  // A draft is nowhere public.
  await page.goto("/changelog");
  await expect(page.getByRole("heading", { name: "Changelog", level: 1 })).toBeVisible();
  await expect(page.locator("article.changelog-entry", { hasText: title })).toHaveCount(0);
  await expectFeed(page, "/changelog/rss.xml", title, false);
  await expectFeed(page, "/changelog/atom.xml", title, false);

  // Publish: on /changelog and in both feeds, inert everywhere.
  await page.goto(editorUrl);
  await page.getByRole("button", { name: "Publish" }).click();
  await expect(page.locator(".changelog-actions .entry-status")).toHaveText("Published");
  await expect(page.locator("table")).toContainText("published");
  await expectInert(page, preview);
  await expectAxeClean(page, "the editor of a published entry");

  await page.goto("/changelog");
  const onPage = page.locator("article.changelog-entry", { hasText: title });
  await expect(onPage).toHaveCount(1);
  await expectInert(page, onPage);
  // The preview showed exactly this markup.
  const publicHtml = await onPage.evaluate((el) => el.outerHTML);
  await page.goto(editorUrl);
  expect(await preview.evaluate((el) => el.outerHTML)).toBe(publicHtml);

  await expectFeed(page, "/changelog/rss.xml", title, true);
  await expectFeed(page, "/changelog/atom.xml", title, true);
  for (const feed of ["/changelog/rss.xml", "/changelog/atom.xml"]) {
    await page.goto(feed);
    expect(await page.evaluate(() => (window as { __xss?: unknown }).__xss)).toBeUndefined();
  }

  // Unpublish: gone from the page and both feeds at once.
  await page.goto(editorUrl);
  await page.getByRole("button", { name: "Unpublish" }).click();
  await expect(page.locator(".changelog-actions .entry-status")).toHaveText("Draft");
  await expect(page.locator("table")).toContainText("unpublished");
  await page.goto("/changelog");
  await expect(page.getByRole("heading", { name: "Changelog", level: 1 })).toBeVisible();
  await expect(page.locator("article.changelog-entry", { hasText: title })).toHaveCount(0);
  await expectFeed(page, "/changelog/rss.xml", title, false);
  await expectFeed(page, "/changelog/atom.xml", title, false);

  // The list shows it as a draft.
  await page.goto("/console/changelog");
  await expect(page.locator("tr", { hasText: title }).locator(".entry-status")).toHaveText("Draft");
});

test("an acme owner cannot open the changelog editor, nor use its API", async ({ page }) => {
  await signIn(page, "owner@acme.example", /\/console\/acme\/keys/);
  await expect(
    page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Changelog" }),
  ).toHaveCount(0);
  for (const url of [
    "/console/changelog",
    "/console/changelog/new",
    "/console/changelog/chg_2026060700000001",
  ]) {
    const res = await page.goto(url);
    expect([403, 404]).toContain(res?.status());
    await expect(page.getByLabel("Title")).toHaveCount(0);
    await expect(page.getByRole("button", { name: /Publish|Create draft|Save/ })).toHaveCount(0);
  }
  const list = await page.request.get("/api/console/changelog");
  expect(list.status()).toBe(403);
  expect((await list.json()).code).toBe("CONSOLE_FORBIDDEN");
  const create = await page.request.post("/api/console/changelog", { data: { title: "x" } });
  expect(create.status()).toBe(403);
});

// A body with what a phone's screen cannot hold (a wide table, a long code line), section headings and two links, one
// of them refused.
const LIVE_BODY = `## Migration

Replace the old calls: see [the old guide](javascript:alert(1)) and [the errors](/docs/errors).

### Details

| Parameter | Meaning |
| --- | --- |
| \`updatedSince\` | Only the items changed since this instant (ISO 8601 with a time zone), inclusive at the millisecond |

\`\`\`json
{ "statusCode": 400, "code": "PUBLIC_API_INVALID_QUERY", "message": "updatedSince: expected an ISO 8601 date and time" }
\`\`\`
`;

test("the preview follows what is typed, as /changelog renders it; unsaved edits are not lost without a warning", async ({
  page,
}) => {
  // Many steps, each state checked with axe (at two widths for most) on a shared machine.
  test.setTimeout(180_000);
  const dialogs: string[] = [];
  // Each dialog is recorded; `answer` says whether the next one is accepted.
  let answer: "accept" | "dismiss" = "dismiss";
  page.on("dialog", (d) => {
    dialogs.push(`${d.type()}: ${d.message()}`);
    void (answer === "accept" ? d.accept() : d.dismiss());
  });
  await signIn(page, "team@catalog.example", /\/console\/changelog$/);
  await page.getByRole("link", { name: "New entry" }).click();
  await expect(page).toHaveURL(/\/console\/changelog\/new$/);

  // The new-entry page has a preview, and it follows the typing (nothing saved yet).
  const preview = page.locator(".changelog-preview article.changelog-entry");
  await expect(preview).toBeVisible();
  const title = `Live preview ${Date.now()}`;
  await page.getByLabel("Title", { exact: true }).click();
  await page.keyboard.type(title);
  await expect(preview.getByRole("heading", { level: 3 })).toHaveText(title);
  await page.getByLabel("Body (markdown)").fill(LIVE_BODY);
  // The body's headings under the entry's h3 title, none at the level of the page's own h2 sections.
  await expect(preview.getByRole("heading", { name: "Migration", level: 4 })).toBeVisible();
  await expect(preview.getByRole("heading", { name: "Details", level: 5 })).toBeVisible();
  await expect(preview.locator("h1, h2")).toHaveCount(0);
  // The refused link is its text; the allowed one a link.
  await expect(preview).toContainText("see the old guide and the errors");
  await expect(preview.getByRole("link", { name: "the old guide" })).toHaveCount(0);
  await expect(preview.getByRole("link", { name: "the errors" })).toHaveAttribute("href", "/docs/errors");
  await expect(page.getByText("Unsaved changes.")).toBeVisible();
  await expectAxeCleanAtWidths(page, "the new-entry page with a typed body (wide table and code)");

  // An in-app link asks first; "Cancel" keeps the page and what was typed.
  await page.getByRole("link", { name: "← Changelog" }).click();
  await expect.poll(() => dialogs).toEqual(["confirm: Leave this page? Your unsaved changes will be lost."]);
  await expect(page).toHaveURL(/\/console\/changelog\/new$/);
  await expect(page.getByLabel("Title", { exact: true })).toHaveValue(title);

  // Saved: no question any more.
  await page.getByRole("button", { name: "Create draft" }).click();
  await expect(page).toHaveURL(/\/console\/changelog\/chg_[0-9A-Za-z]+$/);
  const editorUrl = page.url();
  await expect(page.getByText("Unsaved changes.")).toHaveCount(0);
  const editorPreview = page.locator(".changelog-preview article.changelog-entry");
  await expect(editorPreview.getByRole("heading", { level: 3 })).toHaveText(title);
  await expectAxeCleanAtWidths(page, "the editor with a wide table and code in the preview");

  // The editor's preview follows the typing too, before any save.
  await page.getByLabel("Title", { exact: true }).click();
  await page.keyboard.press("End");
  await page.keyboard.type(" (edited)");
  await expect(editorPreview.getByRole("heading", { level: 3 })).toHaveText(`${title} (edited)`);
  await page.getByLabel("Body (markdown)").fill("# Renamed\n\nNew text.");
  await expect(editorPreview.getByRole("heading", { name: "Renamed", level: 4 })).toBeVisible();
  await expect(editorPreview).not.toContainText("Migration");
  await expect(page.getByRole("button", { name: "Publish" })).toBeDisabled();

  // Leaving the page (a typed address, a reload, closing the tab): the browser's own warning first.
  answer = "accept";
  await page.goto("/console/changelog");
  await expect.poll(() => dialogs.length).toBe(2);
  expect(dialogs[1]).toMatch(/^beforeunload: /);
  // Accepted: the edits are gone, the saved entry unchanged.
  await page.goto(editorUrl);
  await expect(page.getByLabel("Title", { exact: true })).toHaveValue(title);
  await expect(page.locator(".changelog-preview")).toContainText("Migration");

  // Saved edits: a link leaves without a question.
  await page.getByLabel("Title", { exact: true }).fill(`${title} saved`);
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("status")).toHaveText("Saved.");
  await page.getByRole("link", { name: "← Changelog" }).click();
  await expect(page).toHaveURL(/\/console\/changelog$/);
  expect(dialogs).toHaveLength(2);
  await expect(page.locator("tr", { hasText: `${title} saved` })).toHaveCount(1);
});
