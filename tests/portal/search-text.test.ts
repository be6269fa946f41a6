// Search snippets are the text a reader sees on the page, taken from the markdown's tokens: a table is the text of
// its cells (no pipes, no `---` rule), emphasis, links and code spans lose their syntax, and a code block keeps its
// code as written (issue 21, row 23: snippets showed `Header Example Meaning --------- …`).
import { describe, expect, it } from "vitest";
import { getGuides } from "@/lib/portal/guides";
import { inlineMarkdownToText, markdownToText } from "@/lib/portal/markdown";
import { search, searchIndex } from "@/lib/portal/search";

describe("markdownToText", () => {
  it("gives a table as the text of its cells, without pipes or the --- rule", () => {
    const md =
      "Before.\n\n| Header | Example | Meaning |\n|--------|:-------:|---|\n| `RateLimit` | **r=599** | left \\| right |\n\nAfter.";
    expect(markdownToText(md)).toBe("Before. Header Example Meaning RateLimit r=599 left | right After.");
  });

  it("drops the syntax of emphasis, links, images, headings, lists and quotes, and decodes entities", () => {
    const md =
      "## A *title*\n\n- one [link](/docs/errors)\n- two ![alt text](/x.png)\n\n1. first\n\n> quoted `code`.\n\nA &amp; B &lt;tag&gt; &#233;";
    expect(markdownToText(md)).toBe("A title one link two alt text first quoted code. A & B <tag> é");
  });

  it("keeps a code block's code as written (operators included)", () => {
    expect(markdownToText("Run:\n\n```sh\na || b | c ** 2\n```")).toBe("Run: a || b | c ** 2");
  });
});

describe("inlineMarkdownToText", () => {
  it("reads a heading's text as inline content: a leading number stays", () => {
    expect(inlineMarkdownToText("1. Get an `API` key")).toBe("1. Get an API key");
  });
});

describe("search snippets", () => {
  it("show the rendered text of a guide's table (rate limits' headers)", () => {
    const hit = search("Meaning").find((h) => h.url === "/docs/rate-limits#headers");
    expect(hit?.excerpt).toContain("Header Example Meaning RateLimit-Policy");
    for (const h of search("Meaning")) expect(h.excerpt).not.toMatch(/---|\|/);
  });

  it("never show a table's pipes or --- rule: the text of every guide outside its code blocks has none", () => {
    const guides = getGuides();
    expect(guides.filter((g) => /^\|.*\|$/m.test(g.markdown)).length).toBeGreaterThan(3);
    for (const g of guides) {
      const prose = g.markdown.replace(/^```[\s\S]*?^```/gm, "");
      expect(markdownToText(prose), g.slug).not.toMatch(/-{3,}|\|/);
    }
    expect(searchIndex().length).toBeGreaterThan(guides.length);
  });
});
