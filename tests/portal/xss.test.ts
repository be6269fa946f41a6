// A changelog body is inert whatever its author typed (issue 13): known XSS payloads, from the OWASP XSS Filter
// Evasion Cheat Sheet and PortSwigger's XSS cheat sheet, written as markdown or raw HTML, through renderChangelogBody
// (the page, the editor's preview) and through the RSS and Atom feeds. The output is read with a real HTML parser
// (parse5, which decodes entities as a browser does): no executable element, no event handler, no style, and every
// URL http, https, mailto or relative.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseFragment, type DefaultTreeAdapterMap } from "parse5";
import { describe, expect, it } from "vitest";
import { changelogFeed, renderChangelogBody, type ChangelogEntry } from "@/lib/portal/changelog-reader";

type Node = DefaultTreeAdapterMap["node"];
type Element = DefaultTreeAdapterMap["element"];

const PAYLOADS: readonly string[] = [
  // Script and event handlers in raw HTML.
  "<script>alert(1)</script>",
  "<SCRIPT SRC=https://xss.example/xss.js></SCRIPT>",
  "<scr<script>ipt>alert(1)</scr</script>ipt>",
  '"><script>alert(1)</script>',
  "'><script>alert(String.fromCharCode(88,83,83))</script>",
  "<img src=x onerror=alert(1)>",
  "<IMG SRC=# onmouseover=\"alert('xxs')\">",
  '<img src="x" onerror="&#97;&#108;&#101;&#114;&#116;&#40;&#49;&#41;">',
  "<img/src=x/onerror=alert(1)>",
  "<svg onload=alert(1)>",
  "<svg><script>alert(1)</script></svg>",
  "<svg><a xlink:href=javascript:alert(1)><text x=20 y=20>X</text></a></svg>",
  "<body onload=alert(1)>",
  "<details open ontoggle=alert(1)>",
  "<input autofocus onfocus=alert(1)>",
  "<video><source onerror=alert(1)></video>",
  "<audio src=x onerror=alert(1)>",
  "<marquee onstart=alert(1)>",
  "<iframe src=javascript:alert(1)>",
  '<iframe srcdoc="<script>alert(1)</script>">',
  "<object data=javascript:alert(1)>",
  '<embed src="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">',
  '<a href="javascript&colon;alert(1)">x</a>',
  '<a href="jav&#x09;ascript:alert(1)">x</a>',
  '<a href=" &#14;  javascript:alert(1)">x</a>',
  "<form action=javascript:alert(1)><button>x</button></form>",
  '<button formaction="javascript:alert(1)">x</button>',
  '<div style="background:url(javascript:alert(1))">x</div>',
  '<div style="width: expression(alert(1))">x</div>',
  "<style>@import 'https://xss.example/xss.css';</style>",
  '<link rel="stylesheet" href="javascript:alert(1)">',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  '<base href="javascript:alert(1)//">',
  "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
  '<math><maction actiontype="statusline" xlink:href="javascript:alert(1)">x</maction></math>',
  '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
  "<template><img src=x onerror=alert(1)></template>",
  "<!--<img src=x onerror=alert(1)>-->",
  "<![CDATA[<script>alert(1)</script>]]>",
  // Markdown links and images.
  "[x](javascript:alert(1))",
  "[x](JaVaScRiPt:alert(1))",
  "[x](jav&#x61;script:alert(1))",
  "[x](jav&#x09;ascript:alert(1))",
  "[x](&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1))",
  "[x](javascript&colon;alert(1))",
  "[x]( javascript:alert(1) )",
  "[x](<javascript:alert(1)>)",
  "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
  "[x](vbscript:msgbox(1))",
  "[x](VBScript:msgbox(1))",
  "[x](//xss.example/x)",
  "[x](\\\\xss.example)",
  '[x](https://example.com "title\\" onmouseover=\\"alert(1)")',
  '[x](https://example.com" onmouseover="alert(1))',
  "![x](javascript:alert(1))",
  '![x](/a.png" onerror="alert(1))',
  "![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
  "![x](//xss.example/x.png)",
  // Reference-style links, autolinks.
  "[x][a]\n\n[a]: javascript:alert(1)",
  '[x][b]\n\n[b]: JAVASCRIPT:alert(1) "t"',
  "[x]\n\n[x]: data:text/html,<script>alert(1)</script>",
  "<javascript:alert(1)>",
  "<vbscript:msgbox(1)>",
  "<data:text/html,<script>alert(1)</script>>",
  "javascript:alert(1)",
  "www.example.com/<script>alert(1)</script>",
  // Headings, emphasis, code and tables that carry raw HTML.
  "## <img src=x onerror=alert(1)>",
  "**<svg onload=alert(1)>**",
  "`<script>alert(1)</script>`",
  "```html\n<script>alert(1)</script>\n```",
  '```"><script>alert(1)</script>\nx\n```',
  "| a |\n| - |\n| <img src=x onerror=alert(1)> |",
  "> <iframe src=javascript:alert(1)>",
  "- [x] <input onfocus=alert(1) autofocus>",
  "]]><script>alert(1)</script>",
];

const FORBIDDEN_ELEMENTS = new Set([
  "script",
  "iframe",
  "frame",
  "frameset",
  "object",
  "embed",
  "applet",
  "style",
  "link",
  "meta",
  "base",
  "form",
  "button",
  "svg",
  "math",
  "template",
  "video",
  "audio",
  "source",
  "noscript",
  "body",
  "details",
  "marquee",
]);
const URL_ATTRIBUTES = new Set([
  "href",
  "src",
  "srcset",
  "action",
  "formaction",
  "xlink:href",
  "background",
  "poster",
  "data",
]);
const ALLOWED_SCHEMES = new Set(["http", "https", "mailto"]);

// Browsers drop ASCII whitespace and control characters inside a URL's scheme: compare without them.
function schemeOf(url: string): string | undefined {
  const compact = url.replace(/[\u0000-\u0020\u007f]/g, "");
  if (compact.startsWith("//") || compact.startsWith("\\\\") || compact.startsWith("/\\"))
    return "protocol-relative";
  const m = /^([^/?#]*):/.exec(compact);
  return m ? m[1]!.toLowerCase() : undefined;
}

// Every problem of a piece of HTML, as a browser would parse it (empty when inert).
function problems(html: string): string[] {
  const found: string[] = [];
  const visit = (node: Node) => {
    if ("tagName" in node) {
      const el = node as Element;
      if (FORBIDDEN_ELEMENTS.has(el.tagName)) found.push(`<${el.tagName}>`);
      if (el.namespaceURI !== "http://www.w3.org/1999/xhtml") found.push(`foreign <${el.tagName}>`);
      for (const a of el.attrs) {
        const name = (a.prefix ? `${a.prefix}:${a.name}` : a.name).toLowerCase();
        if (name.startsWith("on")) found.push(`${el.tagName}[${name}]`);
        if (name === "style" || name === "srcdoc") found.push(`${el.tagName}[${name}]`);
        if (URL_ATTRIBUTES.has(name)) {
          const scheme = schemeOf(a.value);
          if (scheme !== undefined && !ALLOWED_SCHEMES.has(scheme))
            found.push(`${el.tagName}[${name}=${a.value}]`);
        }
      }
      if (el.tagName === "template") visit((el as DefaultTreeAdapterMap["template"]).content);
    }
    if ("childNodes" in node) for (const c of node.childNodes) visit(c);
  };
  visit(parseFragment(html));
  return found;
}

function entry(i: number, payload: string): ChangelogEntry {
  return {
    id: `chg_xss_${i}`,
    slug: `xss-${i}`,
    title: payload,
    publishedOn: "2026-07-01",
    type: "Security",
    breaking: false,
    endpoints: [payload],
    bodyMd: payload,
    isPlanned: false,
    status: "published",
  };
}

// The HTML a feed carries, as a feed reader gets it: the text of the title, summary and content elements (CDATA
// sections and XML escapes both undone). Text that merely reads "src=javascript:" is fine: problems() looks at the
// elements and attributes a browser would build.
function feedHtml(xml: string): string[] {
  const out: string[] = [];
  const re = /<(title|description|content:encoded|summary|content)(?:\s[^>]*)?>([\s\S]*?)<\/\1>/g;
  for (const m of xml.matchAll(re)) {
    const inner = m[2]!;
    const cdata = /^<!\[CDATA\[([\s\S]*)\]\]>$/.exec(inner);
    out.push(
      cdata
        ? cdata[1]!
        : inner
            .replace(/&lt;/g, "<")
            .replace(/&gt;/g, ">")
            .replace(/&quot;/g, '"')
            .replace(/&apos;/g, "'")
            .replace(/&amp;/g, "&"),
    );
  }
  return out;
}

describe("renderChangelogBody leaves nothing live", () => {
  it("has at least 30 payloads, and the checker sees each kind of live content", () => {
    expect(PAYLOADS.length).toBeGreaterThanOrEqual(30);
    // The checker itself: raw payloads, unescaped, are caught.
    expect(problems("<script>alert(1)</script>")).toEqual(["<script>"]);
    expect(problems("<img src=x onerror=alert(1)>")).toEqual(["img[onerror]"]);
    expect(problems('<a href="jav&#x09;ascript:alert(1)">x</a>')).toHaveLength(1);
    expect(problems('<a href="//xss.example">x</a>')).toHaveLength(1);
    expect(problems('<p style="color:red">x</p>')).toEqual(["p[style]"]);
    expect(problems("<svg onload=alert(1)>")).toHaveLength(3);
    expect(problems('<a href="/docs">x</a><a href="#a">y</a><a href="mailto:a@b.c">z</a>')).toEqual([]);
  });

  it.each(PAYLOADS.map((p, i) => [i, p] as const))("payload %i: %s", (_, payload) => {
    for (const html of [
      renderChangelogBody(payload),
      renderChangelogBody(payload, { absoluteBase: "https://catalog.example.com" }),
    ]) {
      expect(problems(html), html).toEqual([]);
      expect(html).not.toMatch(/<script/i);
    }
  });
});

describe("the RSS and Atom feeds leave nothing live", () => {
  it.each(["rss", "atom"] as const)("%s", (format) => {
    const xml = changelogFeed(
      PAYLOADS.map((p, i) => entry(i, p)),
      "https://catalog.example.com",
      format,
    );
    expect(xml).not.toMatch(/<script/i);
    // No raw "<" in an attribute (Atom's category labels): the XML stays well-formed.
    expect(xml).not.toMatch(/label="[^"]*[<>]/);
    const parts = feedHtml(xml);
    // A title, a summary and a content per entry (plus the feed's own title).
    expect(parts.length).toBeGreaterThanOrEqual(PAYLOADS.length * 3);
    for (const html of parts) {
      expect(problems(html), html).toEqual([]);
      expect(html).not.toMatch(/<script/i);
    }
  });
});

// Every place that shows a body goes through the one renderer: no page or component hands a changelog body to
// renderMarkdown or the Markdown component, and every dangerouslySetInnerHTML of a body is renderChangelogBody's.
describe("one renderer for every changelog body", () => {
  const files = ["app", "components"].flatMap((dir) =>
    readdirSync(dir, { recursive: true, encoding: "utf8" })
      .filter((f) => /\.tsx?$/.test(f))
      .map((f) => path.join(dir, f)),
  );

  it.each(files.filter((f) => /bodyMd/.test(readFileSync(f, "utf8"))))("%s", (file) => {
    const source = readFileSync(file, "utf8");
    expect(source).not.toMatch(/renderMarkdown\([^)]*bodyMd|<Markdown[^>]*bodyMd/);
    for (const m of source.matchAll(/__html:\s*([^}]*)/g)) {
      if (m[1]!.includes("bodyMd")) expect(m[1]).toMatch(/^renderChangelogBody\(/);
    }
  });

  it("the page and the feeds use it", () => {
    expect(readFileSync("components/changelog-entry.tsx", "utf8")).toMatch(
      /renderChangelogBody\(e\.bodyMd\)/,
    );
    expect(readFileSync("app/changelog/page.tsx", "utf8")).toMatch(/ChangelogEntryView/);
    expect(readFileSync("lib/portal/changelog-reader.ts", "utf8")).toMatch(
      /content: renderChangelogBody\(e\.bodyMd, \{ absoluteBase: baseUrl \}\)/,
    );
  });
});
