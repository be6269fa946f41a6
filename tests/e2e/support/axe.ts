import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

// Runs axe (WCAG 2.0/2.1 A and AA rules) on the page and fails with the violations listed by rule, impact and the
// first offending elements. `label` names the page and state in the failure message.
// The page is judged once it has settled: after a console action, router.refresh() re-renders the route and its
// metadata, which Next.js 16 streams, and for a moment the head has no <title> (seen in traces: ~240 ms after a key
// roll, and after an invitation; axe's `document-title` then failed on a page about to be whole). So the analysis
// is repeated until it is clean, for up to 10 s: a violation that stays is reported as before.
export async function expectAxeClean(page: Page, label: string): Promise<void> {
  await expect(async () => {
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
  }).toPass({ intervals: [250, 500, 1000], timeout: 10_000 });
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
