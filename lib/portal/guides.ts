import "server-only";
import { readFileSync } from "node:fs";
import path from "node:path";
import { getConfig } from "@/lib/config";
import { previewOn, type PreviewFeature } from "@/lib/preview";
import { attributeValueSchemas, currencies } from "@/lib/catalog/create-product-schema";
import { writeIssue } from "@/lib/catalog/write-issues";
import { READ_SCOPES, WRITE_SCOPE } from "@/lib/keys/scopes";
import { CHANGES_ERROR_CODES, ERRORS, WRITE_ERROR_CODES, type ErrorCode } from "@/lib/public-api/api-errors";
import { IDEMPOTENCY_TTL_HOURS } from "@/lib/public-api/idempotency";
import { IF_NONE_MATCH_MAX } from "@/lib/public-api/conditional";
import { WRITE_BODY_LIMIT } from "@/lib/public-api/json-body";
import { attemptWaits, scheduleSummary } from "@/lib/webhooks/schedule";
import { CONSOLE_PATH, KEYS_PLACE } from "./console-keys";
import { getReferenceEndpoints } from "./reference";

// One guide of the portal: its page slug, title, description (meta and lists) and markdown body.
export interface Guide {
  slug: string;
  title: string;
  description: string;
  markdown: string;
}

// Where keys are made, as a markdown link to the console (every guide's mention of that place).
function keysLink(): string {
  return `[${KEYS_PLACE}](${CONSOLE_PATH})`;
}

const SCOPE_GRANTS: Record<string, string> = {
  "products:read": "read the product catalog (`GET /public/v1/products`)",
  "families:read": "read product families (`GET /public/v1/families`)",
  "attributes:read": "read configurable attributes (`GET /public/v1/attributes`)",
  "categories:read": "read the catalog classification (`GET /public/v1/categories`)",
  "media:read": "read publicly exposed media (`GET /public/v1/media`)",
};

// The codes the guides document: those of V1 (the write preview's are not offered here yet).
type ReadErrorCode = Exclude<ErrorCode, (typeof WRITE_ERROR_CODES)[number]>;

const ERROR_CONDITIONS: Record<ReadErrorCode, string> = {
  PUBLIC_API_INVALID_QUERY:
    "A query parameter is unknown, repeated or invalid; the message names it and what is allowed.",
  PUBLIC_API_INVALID_PATH:
    "The path is not valid percent-encoding (`%ZZ`, a cut UTF-8 sequence), under `/public/` or `/media/`.",
  PUBLIC_API_KEY_MISSING:
    "No `Authorization` header, or `Bearer` without a key. A key sent in the query (`?api_key=`, `?key=`, `?access_token=`…) is never read: the message says to send it in the header instead. URLs end up in logs and browser histories, so roll a key that was sent in one.",
  PUBLIC_API_KEY_INVALID:
    "The key is malformed or unknown, or the request has two `Authorization` headers (neither is used).",
  PUBLIC_API_INVALID_HEADER: `A request header is invalid; the message names it: \`If-None-Match\` longer than ${IF_NONE_MATCH_MAX} characters.`,
  PUBLIC_API_KEY_EXPIRED: "The key has passed its expiry date.",
  PUBLIC_API_KEY_REVOKED: `The key was revoked in ${keysLink()}.`,
  PUBLIC_API_INSUFFICIENT_SCOPE: "The key is valid but lacks the endpoint's scope; the message names it.",
  PUBLIC_API_NOT_FOUND: "No such path, including the planned ones (`/products/{id}`, `/channels`).",
  PUBLIC_API_METHOD_NOT_ALLOWED: "A method other than GET, HEAD or OPTIONS (the `Allow` header lists them).",
  PUBLIC_API_CURSOR_EXPIRED:
    "Change feed only (preview `changes`): the events after the cursor `after` are no longer kept; export the resources again and follow the feed from the export's cursor.",
  PUBLIC_API_RANGE_NOT_SATISFIABLE: "Media files only: the `Range` header lies outside the file.",
  PUBLIC_API_REQUEST_TIMEOUT:
    "The request line and headers took longer than 10 seconds to arrive, or the whole request longer than 30; the connection is closed.",
  PUBLIC_API_HEADERS_TOO_LARGE:
    "The request line and headers together exceed 16 KB (a very long query string counts); the connection is closed.",
  PUBLIC_API_RATE_LIMIT_EXCEEDED: "Too many requests in the window; wait `retryAfter` seconds.",
  PUBLIC_API_INTERNAL_ERROR:
    "An unexpected error; nothing internal is disclosed. Quote the `requestId` to support.",
  PUBLIC_API_UNAVAILABLE:
    "The database or the rate limiter cannot be reached; retry after `Retry-After` seconds.",
};

const EXAMPLE_MESSAGES: Partial<Record<ErrorCode, string>> = {
  PUBLIC_API_INVALID_QUERY: "Paramètre « perPage » invalide : entier de 1 à 100 attendu (reçu « 1000 »).",
  PUBLIC_API_INSUFFICIENT_SCOPE: "La clé API n'a pas le scope « products:read » requis pour cette ressource.",
};

function errorExample(code: ErrorCode): string {
  const e = ERRORS[code];
  const body: Record<string, unknown> = {
    statusCode: e.status,
    message: EXAMPLE_MESSAGES[code] ?? e.message,
    error: e.error,
    code,
    requestId: "4f7c1a9e-2b7d-4c1e-9a53-0f3d2e6b8c11",
  };
  if (code === "PUBLIC_API_RATE_LIMIT_EXCEEDED") body.retryAfter = 12;
  return JSON.stringify(body, null, 2);
}

// Rows of the scopes table (authentication guide): one per read scope.
function scopeRows(): string {
  return READ_SCOPES.map((s) => `| \`${s}\` | ${SCOPE_GRANTS[s]} |`).join("\n");
}

// Rows of the endpoints table (pagination guide): sortable fields, searched fields and filters of each list (not
// an export's: a stream has no pages).
function endpointRows(): string {
  return getReferenceEndpoints()
    .filter((e) => !e.stream)
    .map((e) => {
      const sort =
        e.params.find((p) => p.name === "sort")?.description.match(/Sortable fields: ([^.]+)\./)?.[1] ?? "";
      const q = e.params.find((p) => p.name === "q")?.description.match(/in: ([^.]+)\./)?.[1] ?? "";
      const filters = e.params
        .filter((p) => !["page", "perPage", "q", "sort"].includes(p.name))
        .map((p) => `\`${p.name}\``)
        .join(", ");
      return `| [\`${e.path}\`](/reference/${e.slug}) | ${sort} | ${q} | ${filters || "—"} |`;
    })
    .join("\n");
}

const READ_CODES = (Object.keys(ERRORS) as ErrorCode[]).filter(
  (c): c is ReadErrorCode => !(WRITE_ERROR_CODES as readonly string[]).includes(c),
);

// The codes of the errors guide: V1's, and the change feed's while it is on.
function errorCodes(): ReadErrorCode[] {
  const changes = previewOn("changes", getConfig());
  return READ_CODES.filter((c) => changes || !(CHANGES_ERROR_CODES as readonly string[]).includes(c));
}

// Rows of the errors table (errors guide): one per error code.
function errorRows(): string {
  return errorCodes()
    .map((c) => `| ${ERRORS[c].status} | \`${c}\` | ${ERRORS[c].error} | ${ERROR_CONDITIONS[c]} |`)
    .join("\n");
}

// One section per error code with its example body (errors guide).
function errorExamples(): string {
  return errorCodes()
    .map(
      (c) =>
        `### ${ERRORS[c].status} ${ERRORS[c].error} — \`${c}\`\n\n${ERROR_CONDITIONS[c]}\n\n\`\`\`json\n${errorExample(c)}\n\`\`\``,
    )
    .join("\n\n");
}

// The codes the creating-products guide lists: the write preview's own, and the invalid header (its Idempotency-Key).
const WRITE_GUIDE_CODES = [...WRITE_ERROR_CODES, "PUBLIC_API_INVALID_HEADER"] as const;
type WriteGuideCode = (typeof WRITE_GUIDE_CODES)[number];

// When each code only the write preview answers is given (creating-products guide).
const WRITE_ERROR_CONDITIONS: Record<WriteGuideCode, string> = {
  PUBLIC_API_INVALID_BODY:
    "the body is not JSON or not an object, has an unknown field or an `organizationId`, names an unknown attribute, channel, option or media, or gives a value of the wrong type.",
  PUBLIC_API_INVALID_HEADER: "the `Idempotency-Key` header is empty, too long or not visible ASCII.",
  PUBLIC_API_FAMILY_NOT_FOUND:
    "the family is not one of your organization (whether it exists elsewhere or nowhere).",
  PUBLIC_API_CATEGORY_NOT_FOUND: "the category is not one of your organization.",
  PUBLIC_API_CONFLICT:
    "the `sku`, or the value of a `uniqueValue` attribute, is used by another product of your organization.",
  PUBLIC_API_IDEMPOTENCY_KEY_IN_USE:
    "a request with the same `Idempotency-Key` is still running; retry after `Retry-After` with the same key.",
  PUBLIC_API_PAYLOAD_TOO_LARGE: `the body is larger than ${WRITE_BODY_LIMIT / 1024} KB.`,
  PUBLIC_API_UNSUPPORTED_MEDIA_TYPE: "no `Content-Type`, or not `application/json`.",
  PUBLIC_API_UNPROCESSABLE:
    "an attribute the family requires is missing, or an attribute is not the family's.",
  PUBLIC_API_IDEMPOTENCY_KEY_REUSED:
    "the `Idempotency-Key` was used with another body in the last 24 hours; a new product needs a new key.",
};

// Rows of the write errors table (creating-products guide): one per write-preview code.
function writeErrorRows(): string {
  return [...WRITE_GUIDE_CODES]
    .sort((a, b) => ERRORS[a].status - ERRORS[b].status)
    .map((c) => {
      const when = WRITE_ERROR_CONDITIONS[c];
      return `| ${ERRORS[c].status} | \`${c}\` | ${when.charAt(0).toUpperCase()}${when.slice(1)} |`;
    })
    .join("\n");
}

// A write refusal with its details (creating-products guide), in the validator's words (WRITE_ISSUES).
function writeErrorExample(): string {
  const e = ERRORS.PUBLIC_API_INVALID_BODY;
  const body = {
    statusCode: e.status,
    message: e.message,
    error: e.error,
    code: "PUBLIC_API_INVALID_BODY",
    requestId: "4f7c1a9e-2b7d-4c1e-9a53-0f3d2e6b8c11",
    details: [
      writeIssue("values.colour", "UNKNOWN_ATTRIBUTE", "attribute", "colour"),
      writeIssue("values.price.EUR", "INVALID_PRECISION", "amount", "EUR", currencies().get("EUR")!),
    ],
  };
  return JSON.stringify(body, null, 2);
}

// Rows of the value types table (creating-products guide), from the request's zod schemas.
function valueTypeRows(): string {
  return Object.entries(attributeValueSchemas)
    .map(([type, schema]) => {
      const meta = schema.meta() ?? {};
      const what = String(meta.description ?? "").replace(/^An? [A-Z_]+ attribute: /, "");
      const text = what.charAt(0).toUpperCase() + what.slice(1);
      return `| \`${type}\` | ${text} | \`${JSON.stringify(meta.example)}\` |`;
    })
    .join("\n");
}

// What a guide's markdown may take from code, written `{{name}}` in lib/portal/guides/<slug>.md.
const PLACEHOLDERS: Record<string, () => string> = {
  baseUrl: () => getConfig().baseUrl,
  keysPlace: keysLink,
  scopeRows,
  writeScope: () => WRITE_SCOPE,
  endpointRows,
  errorRows,
  errorExamples,
  rateLimitRequests: () => String(getConfig().RATE_LIMIT_REQUESTS),
  rateLimitRemaining: () => String(getConfig().RATE_LIMIT_REQUESTS - 1),
  rateLimitWindowSeconds: () => String(getConfig().RATE_LIMIT_WINDOW_SECONDS),
  authFailureLimit: () => String(getConfig().AUTH_FAILURE_LIMIT),
  authFailureWindowSeconds: () => String(getConfig().AUTH_FAILURE_WINDOW_SECONDS),
  rateLimitExceededExample: () => errorExample("PUBLIC_API_RATE_LIMIT_EXCEEDED"),
  writeErrorRows,
  writeErrorExample,
  valueTypeRows,
  writeBodyLimitKb: () => String(WRITE_BODY_LIMIT / 1024),
  idempotencyHours: () => String(IDEMPOTENCY_TTL_HOURS),
  changesRetentionDays: () => String(getConfig().CHANGES_RETENTION_DAYS),
  webhookAttemptRows: () =>
    attemptWaits()
      .map((a) => `| ${a.attempt} | ${a.wait} |`)
      .join("\n"),
  webhookSchedule: scheduleSummary,
  // What POST /public/v1/products does on this server: 405 in V1, the preview when the switch is on.
  writeStatusShort: () => (previewOn("writes", getConfig()) ? "in preview on this server" : "today 405"),
  writeStatusNote: () =>
    previewOn("writes", getConfig())
      ? "> **Preview on this server.** `POST /public/v1/products` is switched on here (`PUBLIC_API_PREVIEW=writes`): see [Creating products (preview)](/docs/creating-products). Elsewhere it answers **405 Method Not Allowed**, as V1 requires; the contract below may still change."
      : "> **Not available in V1.** `POST /public/v1/products` answers **405 Method Not Allowed**. The contract below is the target, published so that you can prepare; it may still change.",
};

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

const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;

function placeholderValue(slug: string, name: string): () => string {
  if (!Object.hasOwn(PLACEHOLDERS, name)) {
    const known = Object.keys(PLACEHOLDERS).join(", ");
    throw new Error(`lib/portal/guides/${slug}.md: unknown placeholder {{${name}}} (known: ${known})`);
  }
  return PLACEHOLDERS[name]!;
}

// A guide's markdown with each `{{name}}` replaced by its value from code; an unknown name throws.
export function fillPlaceholders(slug: string, markdown: string): string {
  return markdown.replace(PLACEHOLDER, (_, name: string) => placeholderValue(slug, name)());
}

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
    for (const [, placeholder] of markdown.matchAll(PLACEHOLDER)) placeholderValue(source, placeholder!);
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
