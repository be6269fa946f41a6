import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

// Runs axe (WCAG 2.0/2.1 A and AA rules) on the page as it is now and fails with the violations listed by rule,
// impact and the first offending elements. `label` names the page and state in the failure message.
// It first waits for the page's <title>: after a console action, router.refresh() re-renders the route's metadata,
// which Next.js 16 streams, and the head has no <title> for a moment (seen in a trace: ~240 ms after a key roll,
// axe's `document-title` then fails on a page that is about to be whole). Every page has a title (portal.spec's
// "every page" test checks that each has one); axe judges the page once it is settled.
export async function expectAxeClean(page: Page, label: string): Promise<void> {
  await expect(page, `${label} has a <title>`).toHaveTitle(/\S/);
  const { violations } = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
    .analyze();
  const found = violations.map(
    (v) =>
      `${v.id} (${v.impact ?? "?"}): ${v.help} — ${v.nodes
        .slice(0, 3)
        .map((n) => n.target.join(" "))
        .join(" | ")}`,
  );
  expect(found, `axe violations on ${label}`).toEqual([]);
}

// expectAxeClean at a desktop width (1280 px) and a phone's (390 px), the page's viewport restored after.
export async function expectAxeCleanAtWidths(page: Page, label: string): Promise<void> {
  const before = page.viewportSize();
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: before?.height ?? 800 });
    await expectAxeClean(page, `${label} at ${width} px`);
  }
  if (before) await page.setViewportSize(before);
}
