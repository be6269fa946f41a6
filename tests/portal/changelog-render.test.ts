import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPglite, type Database } from "@/db/client";
import { migrate } from "@/db/migrate";
import { renderChangelogBody } from "@/lib/portal/markdown";

// The changelog's bodies render exactly as they did before the sanitizer (issue 13): the seeded entries of 0002 and
// a body that uses every construct of the portal's markdown, on the page (relative links) and in the feeds
// (absolute links). The snapshot was recorded with renderMarkdown alone, before renderChangelogBody existed.

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
