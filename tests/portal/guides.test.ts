// The guides as the portal shows them, through the same `renderMarkdown` as the `Markdown` component: every guide
// renders, its headings carry the anchors the search and the links use, its code samples are there with the values
// taken from code filled in, no placeholder is left, every link leads to a page (and anchor) that exists, and the
// errors guide's table lists the catalogue's codes. The configuration is not the default one, so that a value the
// guides take from code (base URL, rate limits) cannot be written into the markdown by hand without this test
// noticing.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { resetConfig } from "@/lib/config";
import { getGuide, getGuides } from "@/lib/portal/guides";
import { inlineMarkdownToText, renderMarkdown, slugify } from "@/lib/portal/markdown";
import { getReferenceEndpoint } from "@/lib/portal/reference";
import { searchIndex } from "@/lib/portal/search";
import { CHANGES_ERROR_CODES, ERRORS, WRITE_ERROR_CODES, type ErrorCode } from "@/lib/public-api/api-errors";

const ENV = {
  PUBLIC_BASE_URL: "https://catalog.example.test",
  RATE_LIMIT_REQUESTS: "120",
  RATE_LIMIT_WINDOW_SECONDS: "30",
  AUTH_FAILURE_LIMIT: "7",
  AUTH_FAILURE_WINDOW_SECONDS: "90",
};

// The V1 guides in reading order (no preview feature on).
const V1_GUIDES = [
  "getting-started",
  "authentication",
  "pagination",
  "errors",
  "rate-limits",
  "keeping-in-sync",
  "concepts",
  "versioning",
];

// Portal pages a guide may link to besides the guides and the reference's endpoints.
const OTHER_PAGES = new Set([
  "/console",
  "/reference",
  "/docs",
  "/search",
  "/changelog",
  "/changelog/rss.xml",
  "/changelog/atom.xml",
  "/public/v1/openapi.json",
]);

beforeAll(() => {
  for (const [name, value] of Object.entries(ENV)) vi.stubEnv(name, value);
  resetConfig();
});

afterAll(() => {
  vi.unstubAllEnvs();
  resetConfig();
});

const html = (slug: string) => renderMarkdown(getGuide(slug)!.markdown);
const ids = (rendered: string) => [...rendered.matchAll(/<h[1-6] id="([^"]+)"/g)].map((m) => m[1]!);
const decode = (text: string) =>
  text
    .replace(/<[^>]+>/g, "")
    .replaceAll("&amp;", "&")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'");
const codeBlocks = (rendered: string) =>
  [...rendered.matchAll(/<pre[^>]*><code[^>]*>([\s\S]*?)<\/code><\/pre>/g)].map((m) => decode(m[1]!));

describe("guides", () => {
  it("are listed in reading order, each with a title and a description", () => {
    const guides = getGuides();
    expect(guides.map((g) => g.slug)).toEqual(V1_GUIDES);
    for (const g of guides) {
      expect(g.title.length, g.slug).toBeGreaterThan(3);
      expect(g.description, g.slug).toMatch(/^[A-Z].{20,}\.$/);
    }
  });

  it.each(V1_GUIDES)("%s renders: its headings carry unique anchors, no placeholder is left", (slug) => {
    const guide = getGuide(slug)!;
    const rendered = html(slug);
    expect(rendered).toMatch(/^<(h2|p)\b/);
    const anchors = ids(rendered);
    expect(anchors.length, slug).toBeGreaterThan(0);
    expect(new Set(anchors).size).toBe(anchors.length);
    for (const m of rendered.matchAll(
      /<h([23]) id="([^"]+)"><a class="anchor" href="#([^"]+)">([\s\S]*?)<\/a><\/h\1>/g,
    ))
      expect(m[3], slug).toBe(m[2]);
    for (const [, level, text] of guide.markdown.matchAll(/^(#{2,3}) (.+)$/gm)) {
      expect(level).toMatch(/^#{2,3}$/);
      expect(anchors).toContain(slugify(inlineMarkdownToText(text!.trim())));
    }
    expect(guide.markdown).not.toMatch(/\{\{|\}\}/);
    expect(rendered).not.toMatch(/\{\{|\}\}|\[object Object\]/);
  });

  it("carry their code samples, filled with this server's values", () => {
    for (const slug of V1_GUIDES.filter((s) => s !== "concepts"))
      expect(codeBlocks(html(slug)).length, slug).toBeGreaterThan(0);
    const start = codeBlocks(html("getting-started")).join("\n");
    expect(start).toContain(`${ENV.PUBLIC_BASE_URL}/public/v1/`);
    expect(start).not.toContain("http://localhost");
    const limits = decode(html("rate-limits"));
    expect(limits).toContain(ENV.RATE_LIMIT_REQUESTS);
    expect(limits).toContain(ENV.RATE_LIMIT_WINDOW_SECONDS);
    expect(limits).toContain(String(Number(ENV.RATE_LIMIT_REQUESTS) - 1));
    const all = V1_GUIDES.map((s) => decode(html(s))).join("\n");
    expect(all).toContain(`${ENV.AUTH_FAILURE_LIMIT} `);
    expect(all).toContain(ENV.AUTH_FAILURE_WINDOW_SECONDS);
    // Every JSON sample parses (the error bodies are built from the catalogue).
    for (const slug of V1_GUIDES)
      for (const block of codeBlocks(html(slug)).filter((b) => /^\s*[{[]/.test(b)))
        expect(() => JSON.parse(block), `${slug}: ${block.slice(0, 60)}`).not.toThrow();
  });

  it("link only to pages and anchors that exist", () => {
    for (const slug of V1_GUIDES) {
      const rendered = html(slug);
      for (const [, href] of rendered.matchAll(/href="([^"]*)"/g)) {
        const [path, anchor] = href!.split("#") as [string, string | undefined];
        if (/^https?:\/\//.test(path)) continue;
        const where = `${slug} → ${href}`;
        if (path === "") expect(ids(rendered), where).toContain(anchor);
        else if (path.startsWith("/docs/")) {
          const target = path.slice("/docs/".length);
          expect(getGuide(target), where).toBeDefined();
          if (anchor) expect(ids(html(target)), where).toContain(anchor);
        } else if (path.startsWith("/reference/"))
          expect(getReferenceEndpoint(path.slice("/reference/".length)), where).toBeDefined();
        else expect(OTHER_PAGES.has(path), where).toBe(true);
      }
    }
  });

  it("give the search one section per heading, each pointing at an anchor of its guide", () => {
    const sections = searchIndex().filter((d) => d.kind === "Guide");
    for (const slug of V1_GUIDES) {
      const anchors = ids(html(slug));
      const ours = sections.filter((d) => d.url === `/docs/${slug}` || d.url.startsWith(`/docs/${slug}#`));
      expect(ours.length, slug).toBe(anchors.length + (getGuide(slug)!.markdown.startsWith("#") ? 0 : 1));
      for (const d of ours) {
        const anchor = d.url.split("#")[1];
        if (anchor) expect(anchors, d.url).toContain(anchor);
        expect(d.title.startsWith(getGuide(slug)!.title), d.url).toBe(true);
      }
    }
  });

  it("list every error code of the catalogue in the errors guide, with its status, and no write code", () => {
    const table = html("errors");
    const documented = (Object.keys(ERRORS) as ErrorCode[]).filter(
      (c) =>
        !(WRITE_ERROR_CODES as readonly string[]).includes(c) &&
        !(CHANGES_ERROR_CODES as readonly string[]).includes(c),
    );
    expect(documented.length).toBeGreaterThan(10);
    for (const code of documented) {
      expect(table, code).toMatch(
        new RegExp(`<td>${ERRORS[code].status}</td>\\s*<td><code>${code}</code></td>`),
      );
      expect(table, code).toContain(`&quot;code&quot;: &quot;${code}&quot;`);
    }
    for (const code of WRITE_ERROR_CODES) expect(table).not.toContain(`<code>${code}</code></td>`);
    // The change feed's codes are the preview's: not listed while it is off.
    for (const code of CHANGES_ERROR_CODES) expect(table).not.toContain(`<code>${code}</code></td>`);
  });

  it("has no guide for an unknown slug", () => {
    expect(getGuide("nope")).toBeUndefined();
  });
});
