import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPglite, type Database } from "@/db/client";
import { migrate } from "@/db/migrate";
import { CHANGELOG_TITLE_LEVEL, renderChangelogBody } from "@/lib/portal/markdown";

// The changelog's bodies render exactly as they did before the sanitizer (issue 13): the seeded entries of 0002 and
// a body that uses every construct of the portal's markdown, on the page (relative links) and in the feeds
// (absolute links). The snapshot was recorded with renderMarkdown alone, before renderChangelogBody existed; issue 21
// re-recorded it with two changes only: headings nested under the entry's title (h4 and below), and code blocks and
// tables in the tab order (tabindex="0"). Then issue 21's rules: nested headings, a refused link left as its text.

const BASE = "https://catalog.example.com";

const EVERY_CONSTRUCT = `Intro with **strong**, *em*, \`code\`, a [relative link](/docs/errors "Errors"), an
[absolute one](https://example.com/a?b=1&c=2), a [fragment](#x), [mail](mailto:api@example.com) and a line
break  
here.

## A heading with \`code\`

### Third level

#### Fourth level

# First level

##### Fifth level

- [x] done
- [ ] to do

> A quote with a [link](../docs).

- one
- two
  1. nested
  2. ordered

1. first
2. second

| Parameter | Type |
| --- | :---: |
| \`page\` | integer |

\`\`\`json
{ "statusCode": 429, "message": "<b>x</b>" }
\`\`\`

    indented code

---

![A diagram](/media/diagram.png), ![](/media/empty-alt.png) and ![remote](https://example.com/x.png)

~~struck~~ and https://example.com/autolinked and <https://example.com/angle> & <b>raw</b> "quotes" 'apostrophes'
`;

let db: Database;
let seeded: Array<{ id: string; body_md: string }>;

beforeAll(async () => {
  db = await openPglite("memory://");
  await migrate(db);
  seeded = await db.query("select id, body_md from changelog_entries order by id");
});

afterAll(async () => {
  await db.close();
});

describe("changelog bodies render as before the sanitizer", () => {
  it("the seeded entries, on the page and in the feeds", () => {
    expect(seeded.length).toBeGreaterThanOrEqual(5);
    for (const e of seeded) {
      expect(renderChangelogBody(e.body_md)).toMatchSnapshot(`${e.id} page`);
      expect(renderChangelogBody(e.body_md, { absoluteBase: BASE })).toMatchSnapshot(`${e.id} feed`);
    }
  });

  it("a body with every construct of the portal's markdown", () => {
    expect(renderChangelogBody(EVERY_CONSTRUCT)).toMatchSnapshot("page");
    expect(renderChangelogBody(EVERY_CONSTRUCT, { absoluteBase: BASE })).toMatchSnapshot("feed");
  });
});

describe("an entry's body under its title (issue 21)", () => {
  const levels = (html: string) => [...html.matchAll(/<h(\d)[ >]/g)].map((m) => Number(m[1]));

  it("a ## (or #) renders below the entry's h3 title, never at the page's h2 sections", () => {
    expect(CHANGELOG_TITLE_LEVEL).toBe(3);
    expect(levels(renderChangelogBody("## Migration\n\nText."))).toEqual([4]);
    expect(levels(renderChangelogBody("# Migration\n\nText."))).toEqual([4]);
  });

  it("keeps the order of the levels, the body's highest first, none deeper than h6", () => {
    expect(levels(renderChangelogBody("## A\n\n### B\n\n## C\n\n#### D"))).toEqual([4, 5, 4, 6]);
    expect(levels(renderChangelogBody("# A\n\n## B\n\n### C\n\n###### D"))).toEqual([4, 5, 6, 6]);
    // Setext headings and headings inside a quote or a list item too.
    expect(levels(renderChangelogBody("Title\n=====\n\n> ## Quoted\n\n- ### Listed"))).toEqual([4, 5, 6]);
    expect(levels(renderChangelogBody(EVERY_CONSTRUCT)).every((l) => l >= 4 && l <= 6)).toBe(true);
  });

  it("the feeds nest them the same way", () => {
    expect(levels(renderChangelogBody("## Migration", { absoluteBase: BASE }))).toEqual([4]);
  });

  it.each([
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    "jav&#x61;script:alert(1)",
    "vbscript:msgbox(1)",
    "data:text/html,x",
    "//evil.example/x",
  ])("a link to %s is rendered as its text, not as a dead link", (url) => {
    const html = renderChangelogBody(`Read [the guide](${url}) first.`);
    expect(html).toBe("<p>Read the guide first.</p>\n");
  });

  it("an allowed link stays a link", () => {
    expect(renderChangelogBody("[errors](/docs/errors)")).toBe('<p><a href="/docs/errors">errors</a></p>\n');
  });

  it("code blocks and tables, which scroll sideways when too wide, are in the tab order", () => {
    expect(renderChangelogBody("```\nx\n```")).toBe('<pre tabindex="0"><code>x\n</code></pre>\n');
    expect(renderChangelogBody("| a |\n| - |\n| 1 |")).toMatch(/^<table tabindex="0">/);
    // Typed raw, the attribute is text like any other raw HTML.
    expect(renderChangelogBody('<pre tabindex="-1">x</pre>')).not.toMatch(/<pre/);
  });
});
