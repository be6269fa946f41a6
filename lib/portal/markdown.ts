import { Lexer, Marked, Renderer, type Token, type Tokens } from "marked";
import sanitizeHtml from "sanitize-html";

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

// Escapes text for HTML.
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

// A URL-safe anchor id for a heading or title ("Rate limits & 429" → "rate-limits-429").
export function slugify(text: string): string {
  return text
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/<[^>]*>/g, "")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

const SAFE_HREF = /^(https?:\/\/|mailto:|\/(?!\/)|#|\.{1,2}\/)/i;

function isSafeHref(href: string): boolean {
  return SAFE_HREF.test(href.trim());
}

// marked's own renderer, whose output the overrides below adjust.
const BASE = new Renderer();

const marked = new Marked({
  gfm: true,
  async: false,
  renderer: {
    // Raw HTML in markdown is shown as text, never interpreted.
    html({ text }: Tokens.HTML | Tokens.Tag) {
      return escapeHtml(text);
    },
    heading({ tokens, depth }: Tokens.Heading) {
      const inner = this.parser.parseInline(tokens);
      const id = slugify(inlineMarkdownToText(tokens));
      return `<h${depth} id="${id}"><a class="anchor" href="#${id}">${inner}</a></h${depth}>\n`;
    },
    link({ href, title, tokens }: Tokens.Link) {
      const inner = this.parser.parseInline(tokens);
      // A refused URL (javascript:, data:, //host, …) leaves the link's text, not a dead link.
      if (!isSafeHref(href)) return inner;
      const t = title ? ` title="${escapeHtml(title)}"` : "";
      return `<a href="${escapeHtml(href)}"${t}>${inner}</a>`;
    },
    // A code block or a table wider than its column scrolls sideways (app/globals.css): in the tab order, so that a
    // keyboard can scroll it (WCAG 2.1.1, axe's scrollable-region-focusable).
    code(token: Tokens.Code) {
      return BASE.code.call(this, token).replace(/^<pre>/, '<pre tabindex="0">');
    },
    table(token: Tokens.Table) {
      return BASE.table.call(this, token).replace(/^<table>/, '<table tabindex="0">');
    },
    image({ href, text }: Tokens.Image) {
      // Only same-origin images: the CSP allows no other origin anyway.
      return href.startsWith("/") && !href.startsWith("//")
        ? `<img src="${escapeHtml(href)}" alt="${escapeHtml(text)}">`
        : escapeHtml(text);
    },
  },
});

// Renders markdown to HTML; raw HTML is escaped and links are limited to http(s), mailto and relative URLs (any
// other link is rendered as its text). With absoluteBase, root-relative links and images point to that origin (feeds
// are read elsewhere).
export function renderMarkdown(source: string, absoluteBase?: string): string {
  return absolute(marked.parse(source) as string, absoluteBase);
}

function absolute(html: string, absoluteBase: string | undefined): string {
  return absoluteBase ? html.replace(/(href|src)="\/(?!\/)/g, `$1="${escapeHtml(absoluteBase)}/`) : html;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

// The text an HTML entity written in markdown stands for ("&amp;" → "&"); an unknown one is kept as written.
function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] !== "#") return ENTITIES[name.toLowerCase()] ?? whole;
    const code =
      name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

// The text of inline tokens as a reader sees it: emphasis, links and code spans without their syntax, an image by
// its alternative text, raw HTML as the text the renderer shows.
function inlineText(tokens: readonly Token[]): string {
  return tokens
    .map((t) => {
      if (t.type === "br") return " ";
      if (t.type === "checkbox") return "";
      if (t.type === "image") return t.text;
      return "tokens" in t && t.tokens ? inlineText(t.tokens) : "text" in t ? String(t.text) : "";
    })
    .join("");
}

// The text of block tokens, one string per block: a table gives its cells (no pipes, no --- rule), a list its items,
// a code block its code.
function blockText(tokens: readonly Token[]): string[] {
  return tokens.flatMap((t): string[] => {
    switch (t.type) {
      case "space":
      case "hr":
      case "def":
        return [];
      case "table": {
        const table = t as Tokens.Table;
        return [...table.header, ...table.rows.flat()].map((cell) => inlineText(cell.tokens));
      }
      case "list":
        return (t as Tokens.List).items.flatMap((item) => blockText(item.tokens));
      case "blockquote":
        return blockText((t as Tokens.Blockquote).tokens);
      case "code":
        return [t.text];
      default:
        return ["tokens" in t && t.tokens ? inlineText(t.tokens) : "text" in t ? String(t.text) : ""];
    }
  });
}

// The plain text of markdown as the portal renders it, from the markdown's tokens (for search and feed summaries,
// and heading anchors): no markdown syntax, a table as the text of its cells, entities decoded, white space folded.
export function markdownToText(source: string): string {
  return decodeEntities(blockText(marked.lexer(source)).join(" "))
    .replace(/\s+/g, " ")
    .trim();
}

// The plain text of one line of markdown read as inline content (a heading's text: "1. Get a key" stays as is), or of
// its inline tokens.
export function inlineMarkdownToText(source: string | readonly Token[]): string {
  const tokens = typeof source === "string" ? Lexer.lexInline(source, marked.defaults) : source;
  return decodeEntities(inlineText(tokens)).replace(/\s+/g, " ").trim();
}

// Renders one line of markdown (code spans, emphasis, links) to inline HTML, with the same escaping rules.
export function renderInlineMarkdown(source: string): string {
  return marked.parseInline(source) as string;
}

const HEADINGS = ["h1", "h2", "h3", "h4", "h5", "h6"] as const;

// What a changelog body may contain once rendered: exactly the elements and attributes the portal's markdown
// produces, nothing else (no style, no event handler, no script, frame, form, svg or math), and URLs that are
// http, https, mailto or relative (no protocol-relative //host, no javascript:, vbscript: or data:, however spelled:
// the sanitizer decodes entities and drops control characters before it reads the scheme).
// (allowedEmptyAttributes is an option of sanitize-html 2.12+ that @types/sanitize-html does not declare yet.)
const CHANGELOG_HTML: sanitizeHtml.IOptions & { allowedEmptyAttributes: string[] } = {
  allowedTags: [
    "p",
    "br",
    "hr",
    ...HEADINGS,
    "a",
    "strong",
    "em",
    "del",
    "code",
    "pre",
    "blockquote",
    "ul",
    "ol",
    "li",
    "input",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "img",
  ],
  allowedAttributes: {
    ...Object.fromEntries(HEADINGS.map((h) => [h, ["id"]])),
    a: ["href", "title"],
    img: ["src", "alt"],
    ol: ["start"],
    th: ["align"],
    td: ["align"],
    input: ["checked", "disabled", "type"],
    pre: ["tabindex"],
    table: ["tabindex"],
  },
  // Heading anchors and the language of a fenced code block; any other class is dropped.
  allowedClasses: { a: ["anchor"], code: [/^language-[\w.+-]+$/] },
  allowedSchemes: ["http", "https", "mailto"],
  allowedSchemesByTag: {},
  allowedSchemesAppliedToAttributes: ["href", "src"],
  allowProtocolRelative: false,
  allowedEmptyAttributes: ["alt", "checked", "disabled"],
  disallowedTagsMode: "discard",
  transformTags: {
    // A task list's checkbox is the only input: always a disabled checkbox.
    input: (_tag, attribs) => ({
      tagName: "input",
      attribs: { ...(attribs.checked === undefined ? {} : { checked: "" }), disabled: "", type: "checkbox" },
    }),
    // A code block or a table wider than its column scrolls sideways (app/globals.css): in the tab order, so that a
    // keyboard can scroll it (WCAG 2.1.1; axe's scrollable-region-focusable). No other attribute survives.
    pre: () => ({ tagName: "pre", attribs: { tabindex: "0" } }),
    table: () => ({ tagName: "table", attribs: { tabindex: "0" } }),
  },
  // The sanitizer decodes text and escapes it again; escape quotes as the markdown renderer does, so that safe
  // markdown comes out byte for byte as renderMarkdown wrote it.
  textFilter: (text) => text.replace(/"/g, "&quot;").replace(/'/g, "&#39;"),
};

// The level of a changelog entry's title wherever an entry is shown (ChangelogEntryView's <h3>: under the page's
// <h2> sections "Released" and "Roadmap", and under the editor preview's <h2>).
export const CHANGELOG_TITLE_LEVEL = 3;

// Moves the headings of a body below `level`, keeping their order: the body's highest heading becomes level + 1
// ("#" or "##" alike, as authors use either), the next ones follow, none deeper than h6.
function nestHeadings(tokens: Token[], level: number): void {
  const headings: Tokens.Heading[] = [];
  marked.walkTokens(tokens, (t) => {
    if (t.type === "heading") headings.push(t as Tokens.Heading);
  });
  const top = Math.min(...headings.map((h) => h.depth));
  for (const h of headings) h.depth = Math.min(6, level + 1 + h.depth - top);
}

// The HTML of a changelog entry's body, inert whatever its author typed: the portal's markdown (raw HTML escaped,
// a link with a refused URL left as its text), its headings nested under the entry's title, then an allow-list
// sanitizer as a second, independent guard. The one function every view of a changelog body uses: the /changelog
// page, the RSS and Atom feeds, the console editor's live preview (in the browser: this module is pure). With
// absoluteBase, root-relative links and images point to that origin (feeds).
export function renderChangelogBody(md: string, opts: { absoluteBase?: string } = {}): string {
  const tokens = marked.lexer(md);
  nestHeadings(tokens, CHANGELOG_TITLE_LEVEL);
  const html = absolute(marked.parser(tokens), opts.absoluteBase);
  const clean = sanitizeHtml(html, CHANGELOG_HTML);
  // The sanitizer writes void elements as <br />; the renderer writes <br>. Text and attribute values have every
  // ">" escaped, so " />" is only ever the end of a void element.
  return clean.replace(/ \/>/g, ">");
}
