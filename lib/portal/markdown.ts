import { Marked, type Tokens } from "marked";
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

const SAFE_HREF = /^(https?:\/\/|mailto:|\/(?!\/)|#|\.{0,2}\/)/i;

function safeHref(href: string): string {
  return SAFE_HREF.test(href.trim()) ? href : "#";
}

const marked = new Marked({
  gfm: true,
  async: false,
  renderer: {
    // Raw HTML in markdown is shown as text, never interpreted.
    html({ text }: Tokens.HTML | Tokens.Tag) {
      return escapeHtml(text);
    },
    heading({ tokens, depth, text }: Tokens.Heading) {
      const inner = this.parser.parseInline(tokens);
      const id = slugify(markdownToText(text));
      return `<h${depth} id="${id}"><a class="anchor" href="#${id}">${inner}</a></h${depth}>\n`;
    },
    link({ href, title, tokens }: Tokens.Link) {
      const inner = this.parser.parseInline(tokens);
      const t = title ? ` title="${escapeHtml(title)}"` : "";
      return `<a href="${escapeHtml(safeHref(href))}"${t}>${inner}</a>`;
    },
    image({ href, text }: Tokens.Image) {
      // Only same-origin images: the CSP allows no other origin anyway.
      return href.startsWith("/") && !href.startsWith("//")
        ? `<img src="${escapeHtml(href)}" alt="${escapeHtml(text)}">`
        : escapeHtml(text);
    },
  },
});

// Renders markdown to HTML; raw HTML is escaped and links are limited to http(s), mailto and relative URLs.
// With absoluteBase, root-relative links and images point to that origin (feeds are read elsewhere).
export function renderMarkdown(source: string, absoluteBase?: string): string {
  const html = marked.parse(source) as string;
  return absoluteBase ? html.replace(/(href|src)="\/(?!\/)/g, `$1="${escapeHtml(absoluteBase)}/`) : html;
}

// The plain text of markdown (for search and feed summaries).
export function markdownToText(source: string): string {
  return source
    .replace(/```[\s\S]*?```/g, (block) => block.replace(/```\w*/g, ""))
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/^\s{0,3}(#{1,6}|>)\s*/gm, "")
    .replace(/[`*|]/g, "")
    .replace(/\s+/g, " ")
    .trim();
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
  },
  // Heading anchors and the language of a fenced code block; any other class is dropped.
  allowedClasses: { a: ["anchor"], code: [/^language-[\w.+-]+$/] },
  allowedSchemes: ["http", "https", "mailto"],
  allowedSchemesByTag: {},
  allowedSchemesAppliedToAttributes: ["href", "src"],
  allowProtocolRelative: false,
  allowedEmptyAttributes: ["alt", "checked", "disabled"],
  disallowedTagsMode: "discard",
  // A task list's checkbox is the only input: always a disabled checkbox.
  transformTags: {
    input: (_tag, attribs) => ({
      tagName: "input",
      attribs: { ...(attribs.checked === undefined ? {} : { checked: "" }), disabled: "", type: "checkbox" },
    }),
  },
  // The sanitizer decodes text and escapes it again; escape quotes as the markdown renderer does, so that safe
  // markdown comes out byte for byte as renderMarkdown wrote it.
  textFilter: (text) => text.replace(/"/g, "&quot;").replace(/'/g, "&#39;"),
};

// The HTML of a changelog entry's body, inert whatever its author typed: the portal's markdown (raw HTML escaped,
// unsafe links neutralised), then an allow-list sanitizer as a second, independent guard. The one function every
// view of a changelog body uses: the /changelog page, the RSS and Atom feeds, the console editor's preview. With
// absoluteBase, root-relative links and images point to that origin (feeds).
export function renderChangelogBody(md: string, opts: { absoluteBase?: string } = {}): string {
  const clean = sanitizeHtml(renderMarkdown(md, opts.absoluteBase), CHANGELOG_HTML);
  // The sanitizer writes void elements as <br />; the renderer writes <br>. Text and attribute values have every
  // ">" escaped, so " />" is only ever the end of a void element.
  return clean.replace(/ \/>/g, ">");
}
