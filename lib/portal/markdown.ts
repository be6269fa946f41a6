import { Marked, type Tokens } from "marked";

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
