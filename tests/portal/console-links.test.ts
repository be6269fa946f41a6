// Every guide that says where keys are made names the real place, "Console → your organization → API keys", with a
// link to the console; none sends people to "organization settings", a place that does not exist (issue 21, row 18).
import { afterEach, describe, expect, it, vi } from "vitest";
import { resetConfig } from "@/lib/config";
import { CONSOLE_PATH, KEYS_PLACE } from "@/lib/portal/console-keys";
import { getGuides } from "@/lib/portal/guides";
import { renderMarkdown } from "@/lib/portal/markdown";

afterEach(() => {
  vi.unstubAllEnvs();
  resetConfig();
});

const KEYS_LINK = `<a href="${CONSOLE_PATH}">${KEYS_PLACE}</a>`;

// The guides as their pages render them, with the write preview off then on (its guide only exists when on).
function renderedGuides(writePreview: boolean) {
  vi.stubEnv("PUBLIC_API_WRITE_PREVIEW", String(writePreview));
  resetConfig();
  return getGuides().map((g) => ({ slug: g.slug, html: renderMarkdown(g.markdown) }));
}

describe.each([false, true])("guides (write preview %s)", (writePreview) => {
  it("never say organization settings", () => {
    for (const g of renderedGuides(writePreview))
      expect(g.html, g.slug).not.toMatch(/organi[sz]ation settings/i);
  });

  it("link every mention of the console to it, outside code", () => {
    for (const g of renderedGuides(writePreview)) {
      const prose = g.html.replace(/<pre[\s\S]*?<\/pre>|<code>[\s\S]*?<\/code>/g, "");
      const unlinked = prose.replaceAll(KEYS_LINK, "");
      expect(unlinked, g.slug).not.toMatch(/\bconsole\b/i);
    }
  });

  it("name the place where keys are made, with the link, wherever they say who makes or revokes keys", () => {
    const guides = renderedGuides(writePreview);
    const expected = [
      "getting-started",
      "authentication",
      "errors",
      ...(writePreview ? ["creating-products"] : []),
    ];
    for (const slug of expected) {
      expect(guides.find((g) => g.slug === slug)?.html, slug).toContain(KEYS_LINK);
    }
  });
});
