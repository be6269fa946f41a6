import "server-only";
import { readFileSync } from "node:fs";
import path from "node:path";
import { getConfig } from "@/lib/config";
import { previewOn, type PreviewFeature } from "@/lib/preview";
import { checkPlaceholders, fillPlaceholders } from "./guide-placeholders";

export { fillPlaceholders } from "./guide-placeholders";

// One guide of the portal: its page slug, title, description (meta and lists) and markdown body.
export interface Guide {
  slug: string;
  title: string;
  description: string;
  markdown: string;
}

// A V1 guide rewritten around preview features: while all of them are on, its title, description and body
// (lib/portal/guides/<slug>.preview.md) replace the V1 ones; with any of them off, the V1 guide is shown as it was.
interface PreviewVersion {
  features: readonly PreviewFeature[];
  title: string;
  description: string;
}

// The guides in reading order; each body is lib/portal/guides/<slug>.md (or <file>.md). A guide of a preview feature
// is listed only while that feature is on.
const GUIDES: (Omit<Guide, "markdown"> & {
  preview?: PreviewFeature;
  previewVersion?: PreviewVersion;
  /** The markdown file's name without `.md` when it is not the slug: `<slug>.preview`, a guide that only a preview has. */
  file?: string;
})[] = [
  {
    slug: "getting-started",
    title: "Getting started",
    description: "Get an API key and make your first request to the Public Catalog API in a minute.",
  },
  {
    slug: "authentication",
    title: "Authentication, keys and scopes",
    description: "How API keys authenticate calls, which organization they read, and what each scope grants.",
  },
  {
    slug: "pagination",
    title: "Pagination, sorting, search and filters",
    description: "Walk whole lists with page and perPage, sort them, search them with q and filter them.",
  },
  {
    slug: "errors",
    title: "Errors",
    description: "Every status and error code of the Public Catalog API, with an example body for each.",
  },
  {
    slug: "rate-limits",
    title: "Rate limits",
    description: "How many requests a key may send, the rate-limit headers, retryAfter and how to back off.",
  },
  {
    slug: "keeping-in-sync",
    title: "Keeping a copy in sync",
    description:
      "Keep a copy of a list up to date: a first full walk, then updatedSince, If-None-Match and 304 on polls, back-off, deletions, and what moves updatedAt.",
    previewVersion: {
      features: ["export", "changes"],
      title: "Keeping a copy in sync (preview)",
      description:
        "Keep an exact copy of the catalog: load it once with the NDJSON export and its cursor, then follow the change feed with long polling, deletions included; re-export on 410; what counts against the rate limit.",
    },
  },
  {
    slug: "webhooks",
    title: "Webhooks (preview)",
    description:
      "Receive the change feed as webhooks: endpoints in the console, the event as payload, verifying Standard Webhooks signatures in JavaScript and Python, at-least-once delivery, order per object, the retry schedule, replay, and which URLs are accepted.",
    preview: "webhooks",
    file: "webhooks.preview",
  },
  {
    slug: "reading-whole-products",
    title: "Reading whole products (preview)",
    description:
      "Read a product whole with its values by attribute type, in a channel with channelId, list the channels, read a family's required attributes and an attribute's options, and revalidate with ETag and 304.",
    preview: "details",
  },
  {
    slug: "creating-products",
    title: "Creating products (preview)",
    description:
      "Create draft products with POST /public/v1/products: the products:write scope, values by attribute type, errors with details, dryRun and an idempotent retry loop.",
    preview: "writes",
  },
  {
    slug: "concepts",
    title: "Concepts",
    description:
      "Organization, product, family, attribute, attribute value, category, media, channel and tenant isolation.",
  },
  {
    slug: "versioning",
    title: "Versioning and roadmap",
    description:
      "How the API is versioned, what V1 contains, what is planned, and the target contract of product creation.",
  },
];

// The markdown files of the guides: each guide's, and the preview version's of a guide that has one.
export function guideFiles(): string[] {
  return GUIDES.flatMap(({ slug, previewVersion, file }) => [
    `${file ?? slug}.md`,
    ...(previewVersion ? [`${slug}.preview.md`] : []),
  ]);
}

// The markdown files, read once when the module loads, from the working directory (where the server runs; the
// build's file tracing follows this read: each route's .nft.json lists the files), by file name without `.md`.
// Placeholder names are checked here, so a typo fails `next build` as it collects page data; values are filled on
// each call, from the configuration of the running server.
const SOURCES = new Map(
  guideFiles().map((name) => {
    const file = readFileSync(path.join(process.cwd(), "lib", "portal", "guides", name), "utf8");
    const markdown = file.endsWith("\n") ? file.slice(0, -1) : file;
    const source = name.slice(0, -".md".length);
    checkPlaceholders(source, markdown);
    return [source, markdown];
  }),
);

// The guides of the portal, in reading order (a preview feature's only while it is on; a guide's preview version
// while its features are).
export function getGuides(): Guide[] {
  const config = getConfig();
  return GUIDES.filter((g) => !g.preview || previewOn(g.preview, config)).map(
    ({ slug, title, description, previewVersion, file }) => {
      const version = previewVersion?.features.every((f) => previewOn(f, config))
        ? previewVersion
        : undefined;
      const source = version ? `${slug}.preview` : (file ?? slug);
      return {
        slug,
        title: version?.title ?? title,
        description: version?.description ?? description,
        markdown: fillPlaceholders(source, SOURCES.get(source)!),
      };
    },
  );
}

// One guide by slug, or undefined.
export function getGuide(slug: string): Guide | undefined {
  return getGuides().find((g) => g.slug === slug);
}
