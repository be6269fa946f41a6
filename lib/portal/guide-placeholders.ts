import "server-only";
import { getConfig } from "@/lib/config";
import { previewOn } from "@/lib/preview";
import { attributeValueSchemas } from "@/lib/catalog/writes/create-product-schema";
import { READ_SCOPES, WRITE_SCOPE } from "@/lib/keys/scopes";
import { IDEMPOTENCY_TTL_HOURS } from "@/lib/public-api/idempotency";
import { WRITE_BODY_LIMIT } from "@/lib/public-api/json-body";
import { attemptWaits, scheduleSummary } from "@/lib/webhooks/schedule";
import { keysLink } from "./console-keys";
import { errorExample, errorExamples, errorRows, writeErrorExample, writeErrorRows } from "./guide-errors";
import { getReferenceEndpoints } from "./reference";

// The values a guide's markdown takes from code (`{{name}}`): the configuration, the scopes, the reference's lists,
// the error tables, the write preview's limits and the webhooks' schedule; filled on each call, checked at load.

const SCOPE_GRANTS: Record<string, string> = {
  "products:read": "read the product catalog (`GET /public/v1/products`)",
  "families:read": "read product families (`GET /public/v1/families`)",
  "attributes:read": "read configurable attributes (`GET /public/v1/attributes`)",
  "categories:read": "read the catalog classification (`GET /public/v1/categories`)",
  "media:read": "read publicly exposed media (`GET /public/v1/media`)",
};

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

// Checks every `{{name}}` of a guide's markdown against the known placeholders; an unknown name throws.
export function checkPlaceholders(slug: string, markdown: string): void {
  for (const [, placeholder] of markdown.matchAll(PLACEHOLDER)) placeholderValue(slug, placeholder!);
}
