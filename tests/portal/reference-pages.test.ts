// The reference pages rendered to HTML (index and each endpoint's page, with the docs nav): with every preview
// feature off they are byte for byte the V1 pages recorded in reference-pages.v1.html (recorded before preview
// `details` reached the reference); with `details` on, its four reads appear, marked Preview, with their path
// parameter; an item page has no pagination section; with `changes` on, the feed's page and its answer's fields.
import path from "node:path";
import type { ReactElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import { resetConfig } from "@/lib/config";

vi.mock("next/headers", () => ({ headers: async () => new Headers() }));
vi.mock("next/navigation", () => ({
  usePathname: () => "/reference",
  notFound: () => {
    throw new Error("notFound");
  },
}));

const { default: ReferenceIndex } = await import("@/app/reference/page");
const { default: EndpointPage } = await import("@/app/reference/[slug]/page");
const { getReferenceEndpoints } = await import("@/lib/portal/reference");

function configure(preview: string) {
  vi.stubEnv("PUBLIC_API_PREVIEW", preview);
  vi.stubEnv("PUBLIC_API_WRITE_PREVIEW", "false");
  vi.stubEnv("PUBLIC_BASE_URL", "https://catalog.example.test");
  vi.stubEnv("DATABASE_URL", "");
  resetConfig();
}

afterEach(() => {
  vi.unstubAllEnvs();
  resetConfig();
});

// Every reference page of the current configuration, by URL, as HTML.
async function pages(): Promise<Record<string, string>> {
  const out: Record<string, string> = {
    "/reference": renderToStaticMarkup(ReferenceIndex() as ReactElement),
  };
  for (const e of getReferenceEndpoints()) {
    const page = await EndpointPage({ params: Promise.resolve({ slug: e.slug }) });
    out[`/reference/${e.slug}`] = renderToStaticMarkup(page as ReactElement);
  }
  return out;
}

const V1_FILE = path.join(import.meta.dirname, "__fixtures__", "reference-pages.v1.html");

// The pages in one text: each after a line naming it.
const dump = (p: Record<string, string>) =>
  Object.entries(p)
    .map(([url, html]) => `<!-- ${url} -->\n${html}\n`)
    .join("");

// The V1 lists' page slugs, and the pages every configuration has: the index, then theirs.
const V1_SLUGS = ["products", "families", "attributes", "categories", "media"];
const V1_PAGES = ["/reference", ...V1_SLUGS.map((s) => `/reference/${s}`)];

// The article of a page (without the nav, which lists every page of its configuration).
const article = (html: string) => html.match(/<article>.*<\/article>/s)![0];

describe("the reference pages", () => {
  it("off: the V1 pages, byte for byte", async () => {
    configure("none");
    const html = dump(await pages());
    await expect(html).toMatchFileSnapshot(V1_FILE);
    expect(html).not.toContain("Preview");
    expect(html).not.toContain("Path parameters");
  });

  it("details on: the four reads listed, marked Preview, with their path parameter", async () => {
    configure("details");
    const p = await pages();
    expect(Object.keys(p)).toEqual([
      ...V1_PAGES,
      "/reference/products-id",
      "/reference/families-id",
      "/reference/attributes-id",
      "/reference/channels",
    ]);
    const index = p["/reference"]!;
    for (const slug of ["products-id", "families-id", "attributes-id", "channels"]) {
      const row = index.match(new RegExp(`<tr data-testid="endpoint-${slug}">.*?</tr>`))![0];
      expect(row).toContain('<span class="tag changed">Preview</span>');
      const page = p[`/reference/${slug}`]!;
      expect(page).toMatch(/<p class="endpoint-line">.*<span class="tag changed">Preview<\/span><\/p>/);
      // The nav marks it too.
      expect(page).toMatch(
        new RegExp(
          `href="/reference/${slug}"[^>]*><span class="method">GET</span> [^<]+ <span class="tag changed">Preview</span>`,
        ),
      );
    }
    for (const slug of V1_SLUGS) {
      const row = index.match(new RegExp(`<tr data-testid="endpoint-${slug}">.*?</tr>`))![0];
      expect(row).not.toContain("Preview");
    }
    for (const slug of ["products-id", "families-id", "attributes-id"]) {
      const page = p[`/reference/${slug}`]!;
      expect(page).toContain('<h2 id="path-parameters">Path parameters</h2>');
      expect(page).toContain('aria-label="Path parameters"');
      expect(page).toMatch(/<td class="param-name">id<\/td>/);
      // Try-it: a required input for {id}.
      expect(page).toMatch(/<input id="[^"]*-path-id" type="text" required=""[^>]*name="id"/);
      expect(page).not.toContain("<h3>Pagination</h3>");
      expect(page).toContain("whole (no pagination)");
      // The code samples ask for the example's id; the try-it's curl shows {id} until it is filled.
      expect(page).toMatch(/https:\/\/catalog\.example\.test\/public\/v1\/\w+\/(prd|fam|att)_\w+/);
    }
    expect(p["/reference/products-id"]).toMatch(/<code>channelId<\/code>|param-name">channelId</);
    expect(p["/reference/families-id"]).toContain("None: any parameter is refused");
    // The channels list is a list: a page, no path parameter.
    expect(p["/reference/channels"]).toContain("<h3>Pagination</h3>");
    expect(p["/reference/channels"]).not.toContain("Path parameters");
  });

  it("changes on: the feed's page, marked Preview, its answer's cursor and hasMore, no pagination", async () => {
    configure("changes");
    const p = await pages();
    expect(Object.keys(p)).toEqual([...V1_PAGES, "/reference/changes"]);
    const index = p["/reference"]!;
    expect(index.match(/<tr data-testid="endpoint-changes">.*?<\/tr>/)![0]).toContain(
      '<span class="tag changed">Preview</span>',
    );
    expect(index).toContain('<a href="/reference/changes">the change feed</a>');
    // details is off: nothing points at its guide.
    expect(index).not.toContain("reading-whole-products");
    const page = p["/reference/changes"]!;
    expect(page).toMatch(/<p class="endpoint-line">.*<span class="tag changed">Preview<\/span><\/p>/);
    expect(page).toContain("<code>{ data: ChangeEvent[], cursor: string, hasMore: boolean }</code>");
    expect(page).not.toContain("<h3>Pagination</h3>");
    expect(page).not.toContain("Path parameters");
    for (const name of ["after", "types", "limit", "wait"]) expect(page).toContain(`param-name">${name}<`);
    // An event's item: one of the resources whole, or null.
    expect(page).toContain(
      "ProductDetail or FamilyDetail or AttributeDetail or Category or Media or Channel or null",
    );
    // Its samples ask for a few events (limit, not a list's perPage); its errors include the 410.
    expect(page).toContain("https://catalog.example.test/public/v1/changes?limit=5");
    expect(page).not.toContain("perPage=5");
    expect(page).toContain("PUBLIC_API_CURSOR_EXPIRED");
    // Every feature on (writes, details, changes, export): every page renders, the feed's among them.
    configure("all");
    expect(Object.keys(await pages())).toContain("/reference/changes");
  });

  it("details on: the V1 pages other than the index and the nav are unchanged, but for reads by ids", async () => {
    configure("none");
    const off = await pages();
    configure("details");
    const on = await pages();
    // The nav lists more pages; the article of each V1 page is the same but for the parameters of reads by ids
    // (in the parameters' table, marked Preview, and in the try-it form) and the 400's examples that name them.
    const readsByIds = (html: string) =>
      html
        .replace(/<tr id="param-(ids|identifiers)">.*?<\/tr>/g, "")
        .replace(/<div class="field"><label for="[^"]*-p-(ids|identifiers)">.*?<\/p><\/div>/g, "")
        .replace(
          /<details><summary><span class="status-code">400<\/span> tooManyIds:[\s\S]*?<\/details>/g,
          "",
        )
        .replace(/, ids(, identifiers)?\.(?=<\/summary>|&quot;)/g, ".");
    for (const slug of V1_SLUGS) {
      const page = article(on[`/reference/${slug}`]!);
      expect(page).toContain('<tr id="param-ids"><td class="param-name">ids</td>');
      expect(page).toContain("<strong>Preview</strong> (feature <code>details</code>)");
      expect(readsByIds(page)).toBe(article(off[`/reference/${slug}`]!));
    }
  });
});

describe("the reference pages with preview `export` on", () => {
  it("lists the export, marked Preview, its page an NDJSON answer: the resource, the end line, samples that stream", async () => {
    configure("export");
    const p = await pages();
    expect(Object.keys(p)).toEqual([...V1_PAGES, "/reference/export-resource"]);
    const index = p["/reference"]!;
    const row = index.match(/<tr data-testid="endpoint-export-resource">.*?<\/tr>/)![0];
    expect(row).toContain('<span class="tag changed">Preview</span>');
    expect(index).toContain('In preview on this server: <a href="/reference/export-resource">');
    // Without details, nothing points to its guide.
    expect(index).not.toContain("reading-whole-products");
    const page = p["/reference/export-resource"]!;
    expect(page).toMatch(/<p class="endpoint-line">.*<span class="tag changed">Preview<\/span><\/p>/);
    expect(page).toMatch(/<td class="param-name">resource<\/td>/);
    expect(page).toMatch(/<input id="[^"]*-path-resource" type="text" required=""[^>]*name="resource"/);
    expect(page).toContain("<code>application/x-ndjson</code>");
    expect(page).toContain("<h3>ExportEnd (the last line)</h3>");
    expect(page).toContain('aria-label="ExportEnd fields"');
    expect(page).not.toContain("<h3>Pagination</h3>");
    expect(page).toContain("Example lines");
    expect(page).toContain(
      "{&quot;end&quot;:true,&quot;cursor&quot;:&quot;5271&quot;,&quot;count&quot;:3000}",
    );
    // Samples of the example resource, read as a stream (the first tab is rendered; they run in
    // reference-export-samples.test.ts).
    expect(page).toContain(
      "curl -sS --compressed &#x27;https://catalog.example.test/public/v1/export/products&#x27;",
    );
    expect(page).not.toContain("perPage=5");
    // No If-None-Match: an export is never conditional.
    expect(page).not.toContain("If-None-Match");
    // V1's pages are unchanged but the nav.
    configure("none");
    const off = await pages();
    for (const slug of V1_SLUGS)
      expect(article(p[`/reference/${slug}`]!)).toBe(article(off[`/reference/${slug}`]!));
  });
});

describe("the try-it's path", () => {
  it("puts each path parameter percent-encoded as one segment; an empty one stays {name}", async () => {
    const { expandPath } = await import("@/lib/portal/code-samples");
    expect(expandPath("/public/v1/products/{id}", { id: "prd_1" })).toBe("/public/v1/products/prd_1");
    expect(expandPath("/public/v1/products/{id}", { id: " a/b?c#d é " })).toBe(
      "/public/v1/products/a%2Fb%3Fc%23d%20%C3%A9",
    );
    expect(expandPath("/public/v1/products/{id}", {})).toBe("/public/v1/products/{id}");
    expect(expandPath("/public/v1/channels", { id: "x" })).toBe("/public/v1/channels");
  });
});
