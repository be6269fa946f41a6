// The guides' markdown files: one per guide, no orphan, and a placeholder the code does not know fails loudly
// (the module checks every file when it loads, so such a typo stops `next build`).
import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { resetConfig } from "@/lib/config";
import { fillPlaceholders, getGuides, guideFiles } from "@/lib/portal/guides";

const DIR = path.resolve(__dirname, "../../lib/portal/guides");

describe("guide files", () => {
  it("are exactly one markdown file per guide and per guide's preview version (every guide listed: all previews on)", () => {
    vi.stubEnv("PUBLIC_API_PREVIEW", "all");
    resetConfig();
    try {
      const files = readdirSync(DIR).sort();
      expect(files).toEqual(guideFiles().sort());
      // A guide's file is <slug>.md, or <slug>.preview.md for a guide only a preview feature has (webhooks).
      for (const g of getGuides())
        expect(
          [`${g.slug}.md`, `${g.slug}.preview.md`].some((f) => files.includes(f)),
          g.slug,
        ).toBe(true);
    } finally {
      vi.unstubAllEnvs();
      resetConfig();
    }
  });

  it("leave no placeholder unfilled", () => {
    for (const g of getGuides()) expect(g.markdown, g.slug).not.toMatch(/\{\{|\}\}/);
  });

  it("fill a known placeholder from code", () => {
    expect(fillPlaceholders("x", "`{{writeScope}}` and {{rateLimitRequests}}")).toMatch(
      /^`products:write` and \d+$/,
    );
  });

  it("throw on an unknown placeholder, naming the file and the known ones", () => {
    expect(() => fillPlaceholders("errors", "{{errorTabel}}")).toThrow(
      /lib\/portal\/guides\/errors\.md: unknown placeholder \{\{errorTabel\}\} \(known: baseUrl, /,
    );
    expect(() => fillPlaceholders("errors", "{{ errorRows }}")).toThrow(
      /unknown placeholder \{\{ errorRows \}\}/,
    );
    expect(() => fillPlaceholders("errors", "{{}}")).toThrow(/unknown placeholder \{\{\}\}/);
  });
});
