import "server-only";
import { getConfig } from "@/lib/config";
import { READ_SCOPES, WRITE_SCOPE } from "@/lib/keys/scopes";
import { ERRORS, type ErrorCode } from "@/lib/public-api/errors";
import { getReferenceEndpoints } from "./reference";

// One guide of the portal: its page slug, title, description (meta and lists) and markdown body.
export interface Guide {
  slug: string;
  title: string;
  description: string;
  markdown: string;
}

const SCOPE_GRANTS: Record<string, string> = {
  "products:read": "read the product catalog (`GET /public/v1/products`)",
  "families:read": "read product families (`GET /public/v1/families`)",
  "attributes:read": "read configurable attributes (`GET /public/v1/attributes`)",
  "categories:read": "read the catalog classification (`GET /public/v1/categories`)",
  "media:read": "read publicly exposed media (`GET /public/v1/media`)",
};

const ERROR_CONDITIONS: Record<ErrorCode, string> = {
  PUBLIC_API_INVALID_QUERY:
    "A query parameter is unknown, repeated or invalid; the message names it and what is allowed.",
  PUBLIC_API_INVALID_PATH:
    "The path is not valid percent-encoding (`%ZZ`, a cut UTF-8 sequence), under `/public/` or `/media/`.",
  PUBLIC_API_KEY_MISSING: "No `Authorization` header, or `Bearer` without a key.",
  PUBLIC_API_KEY_INVALID: "The key is malformed or unknown.",
  PUBLIC_API_KEY_EXPIRED: "The key has passed its expiry date.",
  PUBLIC_API_KEY_REVOKED: "The key was revoked in the organization settings.",
  PUBLIC_API_INSUFFICIENT_SCOPE: "The key is valid but lacks the endpoint's scope; the message names it.",
  PUBLIC_API_NOT_FOUND: "No such path, including the planned ones (`/products/{id}`, `/channels`).",
  PUBLIC_API_METHOD_NOT_ALLOWED: "A method other than GET, HEAD or OPTIONS (the `Allow` header lists them).",
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

function gettingStarted(baseUrl: string): Guide {
  return {
    slug: "getting-started",
    title: "Getting started",
    description: "Get an API key and make your first request to the Public Catalog API in a minute.",
    markdown: `The Public Catalog API is a read-only HTTP/JSON API over the product catalog of **one organization**: the organization that owns your API key. All paths start with \`/public/v1\`.

## 1. Get an API key

An administrator of your organization creates keys in the console (organization settings → API keys). All read scopes are selected by default; keep only those you need. The key is shown **once**: store it in a secret manager, never in client-side code.

## 2. Make your first request

\`\`\`sh
export PCA_API_KEY='pca_…'
curl -sS '${baseUrl}/public/v1/products?perPage=5' \\
  -H "Authorization: Bearer $PCA_API_KEY"
\`\`\`

The answer is a page of products and the pagination of the whole list:

\`\`\`json
{
  "data": [
    {
      "id": "prd_7Yq2nC4kP0sLx9Ta",
      "identifier": "ACM-CHA-000123",
      "label": "Chaise Oslo en chêne",
      "status": "draft",
      "family": { "id": "fam_1b2C3d4E5f6G7h8I", "label": "Chaises" },
      "category": { "id": "cat_9a8B7c6D5e4F3g2H", "label": "Salle à manger" },
      "updatedAt": "2026-06-07T09:30:12.345Z"
    }
  ],
  "pagination": { "page": 1, "perPage": 5, "total": 1, "totalPages": 1, "hasAny": true }
}
\`\`\`

## 3. Go further

- Every endpoint has a [reference page](/reference) with a **try-it** form: paste your key and send real requests from the browser.
- Read [pagination, sorting, search and filters](/docs/pagination) to walk whole lists.
- Handle [errors](/docs/errors) and [rate limits](/docs/rate-limits) from the first day.
- The machine-readable contract is the OpenAPI 3.1 document at [\`/public/v1/openapi.json\`](/public/v1/openapi.json): generate a client from it.`,
  };
}

function authentication(): Guide {
  const scopes = READ_SCOPES.map((s) => `| \`${s}\` | ${SCOPE_GRANTS[s]} |`).join("\n");
  return {
    slug: "authentication",
    title: "Authentication, keys and scopes",
    description: "How API keys authenticate calls, which organization they read, and what each scope grants.",
    markdown: `## Sending the key

Every call sends the key in the \`Authorization\` header with the \`Bearer\` scheme:

\`\`\`http
GET /public/v1/families HTTP/1.1
Authorization: Bearer pca_…
Accept: application/json
\`\`\`

Keys are never accepted in the query string. The API allows cross-origin calls, but a key in a web page is visible to everyone: call the API from your servers.

## One key, one organization

A key belongs to exactly one organization and the API only ever returns that organization's data. You never send an organization identifier: ids of another organization simply match nothing (an empty list), so data cannot leak between tenants.

## Scopes

A key carries one or more scopes. Each endpoint needs one:

| Scope | Grants |
|---|---|
${scopes}

When a key is created, all scopes are selected by default and may be deselected. A key without the endpoint's scope gets **403** \`PUBLIC_API_INSUFFICIENT_SCOPE\`; the message names the missing scope. \`${WRITE_SCOPE}\` is reserved for the future write endpoints (see [versioning](/docs/versioning)).

## Key lifecycle

- Keys are created, listed and revoked only in the application (console, or the \`keys\` command line tool of the server), never through this API.
- A key may have an expiry date. A missing, invalid, expired or revoked key gets **401** with \`WWW-Authenticate: Bearer\`; the \`code\` tells which (\`PUBLIC_API_KEY_MISSING\`, \`PUBLIC_API_KEY_INVALID\`, \`PUBLIC_API_KEY_EXPIRED\`, \`PUBLIC_API_KEY_REVOKED\`).
- Revocation takes effect within seconds on every server.
- A key gives no access to the user interface, to administration, billing or user permissions.

## Key format

Keys start with \`pca_\` so that secret scanners can recognise them, carry at least 128 random bits and end with a short checksum: a mistyped key is refused at once. The server stores only a SHA-256 hash of each key.`,
  };
}

function pagination(): Guide {
  const rows = getReferenceEndpoints()
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
  return {
    slug: "pagination",
    title: "Pagination, sorting, search and filters",
    description: "Walk whole lists with page and perPage, sort them, search them with q and filter them.",
    markdown: `Every list endpoint answers \`{ "data": [...], "pagination": {...} }\` and takes the same common parameters.

## Pagination

| Parameter | Default | Limits |
|---|---|---|
| \`page\` | 1 | integer ≥ 1 |
| \`perPage\` | 20 | integer from 1 to 100 |

The \`pagination\` object gives \`page\`, \`perPage\`, \`total\` (matching items), \`totalPages\` (\`ceil(total / perPage)\`, 0 when empty) and \`hasAny\` (\`total > 0\`). A page past the last one answers 200 with an empty \`data\` and the true totals. To read everything, request pages 1 to \`totalPages\`:

\`\`\`js
for (let page = 1, totalPages = 1; page <= totalPages; page++) {
  const res = await fetch(\`\${base}/public/v1/products?perPage=100&page=\${page}\`, { headers });
  const body = await res.json();
  totalPages = body.pagination.totalPages;
  for (const product of body.data) handle(product);
}
\`\`\`

## Sorting

\`sort=field.asc\` or \`sort=field.desc\`; several keys separated by commas (\`sort=status.asc,updatedAt.desc\`). The default is \`updatedAt.desc\`. \`id\` is always the last tie-breaker, so consecutive pages never overlap or skip an item.

## Search

\`q\` searches a case- and accent-insensitive substring: \`q=creme\` finds "Crème brûlée". At most 200 characters.

## Filters

Filters combine with each other and with \`q\` (all must match). Booleans are \`true\` or \`false\`. Lists such as \`type\` are comma-separated (\`type=TEXT,NUMBER\`); repeated parameters are merged. An id that matches nothing in your organization gives an empty list.

| Endpoint | Sortable fields | \`q\` searches | Filters |
|---|---|---|---|
${rows}

## Strict parameters

An unknown parameter is refused with **400** naming it: a typo such as \`per_page\` never silently falls back to the defaults. So is an invalid value (\`perPage=1000\`), with the allowed range in the message.`,
  };
}

function errorsGuide(): Guide {
  const codes = Object.keys(ERRORS) as ErrorCode[];
  const table = codes
    .map((c) => `| ${ERRORS[c].status} | \`${c}\` | ${ERRORS[c].error} | ${ERROR_CONDITIONS[c]} |`)
    .join("\n");
  const examples = codes
    .map(
      (c) =>
        `### ${ERRORS[c].status} ${ERRORS[c].error} — \`${c}\`\n\n${ERROR_CONDITIONS[c]}\n\n\`\`\`json\n${errorExample(c)}\n\`\`\``,
    )
    .join("\n\n");
  return {
    slug: "errors",
    title: "Errors",
    description: "Every status and error code of the Public Catalog API, with an example body for each.",
    markdown: `Errors are JSON objects with the same shape on every endpoint:

| Field | Type | Notes |
|---|---|---|
| \`statusCode\` | integer | the HTTP status |
| \`message\` | string | human-readable, **in French** (for example \`Clé API invalide.\`) |
| \`error\` | string | the HTTP reason phrase (\`Unauthorized\`, \`Too Many Requests\`…) |
| \`code\` | string | stable machine-readable code: branch on this, not on \`message\` |
| \`requestId\` | string | also in the \`X-Request-Id\` header; quote it to support |
| \`retryAfter\` | integer | on 429 only: seconds to wait |

## Every status and code

| Status | Code | Error | When |
|---|---|---|---|
${table}

## Example bodies

${examples}

## Handling errors

- **400**: fix the request; retrying the same one will fail again.
- **401**: check the key (or ask an administrator for a new one); do not retry in a loop.
- **403**: the key needs another scope; an administrator creates a key with it.
- **429** and **503**: wait the \`Retry-After\` seconds, then retry (see [rate limits](/docs/rate-limits)).
- **500**: retry later with backoff; report the \`requestId\` if it persists.`,
  };
}

function rateLimits(): Guide {
  const c = getConfig();
  return {
    slug: "rate-limits",
    title: "Rate limits",
    description: "How many requests a key may send, the rate-limit headers, retryAfter and how to back off.",
    markdown: `Each key may send **${c.RATE_LIMIT_REQUESTS} requests per ${c.RATE_LIMIT_WINDOW_SECONDS} seconds** on this server (a sliding window). Failed authentications are limited per client address as well (${c.AUTH_FAILURE_LIMIT} per ${c.AUTH_FAILURE_WINDOW_SECONDS} seconds), so that guessing keys is pointless.

## Headers

Every authenticated answer tells you where you stand:

| Header | Example | Meaning |
|---|---|---|
| \`RateLimit-Policy\` | \`"default";q=${c.RATE_LIMIT_REQUESTS};w=${c.RATE_LIMIT_WINDOW_SECONDS}\` | quota and window in seconds (IETF httpapi draft) |
| \`RateLimit\` | \`"default";r=${c.RATE_LIMIT_REQUESTS - 1};t=${c.RATE_LIMIT_WINDOW_SECONDS}\` | remaining requests and seconds until the quota frees |
| \`X-RateLimit-Limit\` | \`${c.RATE_LIMIT_REQUESTS}\` | requests allowed per window |
| \`X-RateLimit-Remaining\` | \`${c.RATE_LIMIT_REQUESTS - 1}\` | requests left in the window |
| \`X-RateLimit-Reset\` | \`1780824672\` | when the window frees, in seconds since the Unix epoch |
| \`Retry-After\` | \`12\` | on 429 and 503 only: seconds to wait |

These headers are exposed to browsers (\`Access-Control-Expose-Headers\`).

## When the limit is exceeded

The answer is **429** with \`code\` \`PUBLIC_API_RATE_LIMIT_EXCEEDED\` and \`retryAfter\`, in seconds, equal to the \`Retry-After\` header:

\`\`\`json
${errorExample("PUBLIC_API_RATE_LIMIT_EXCEEDED")}
\`\`\`

## How to back off

1. On 429, wait \`retryAfter\` seconds (never less), then retry.
2. On 503 or a network error, retry with exponential backoff and jitter (1 s, 2 s, 4 s… capped), honouring \`Retry-After\` when present.
3. Watch \`X-RateLimit-Remaining\` and slow down before it reaches 0; spread batch jobs over the window.
4. Use \`perPage=100\` to read lists in fewer calls.

\`\`\`python
import time
import requests

def get(url, headers, params=None, attempts=5):
    for attempt in range(attempts):
        response = requests.get(url, headers=headers, params=params, timeout=10)
        if response.status_code not in (429, 503):
            return response
        time.sleep(int(response.headers.get("Retry-After", 2 ** attempt)))
    return response
\`\`\``,
  };
}

function concepts(): Guide {
  return {
    slug: "concepts",
    title: "Concepts",
    description:
      "Organization, product, family, attribute, attribute value, category, media, channel and tenant isolation.",
    markdown: `## Organization

The company whose catalog you read. Every API key belongs to exactly one organization, and every answer contains only that organization's data.

## Product

An item of the catalog: an \`identifier\` (the SKU value), a \`label\`, a \`status\` (\`draft\` for new products), its \`family\` and its \`category\`. Read them with [\`GET /public/v1/products\`](/reference/products).

## Family

A kind of product (chairs, tables…) that decides which attributes its products expect. Read them with [\`GET /public/v1/families\`](/reference/families); list the attributes of one family with \`GET /public/v1/attributes?familyId=…\`.

## Attribute

A configurable property of products: a \`code\`, a \`label\`, a \`type\` (\`TEXT\`, \`NUMBER\`, …), whether its value must be unique (\`uniqueValue\`) and whether it can differ per channel (\`isScopable\`). Read them with [\`GET /public/v1/attributes\`](/reference/attributes).

## Attribute value

The value of one attribute for one product (a name, a description, a price by currency…). A scopable attribute may have one value per channel. In V1, values are not returned by the lists; the product \`label\` is the value of the name attribute.

## Category

The classification of the catalog, as trees: \`parentId\` links a category to its parent (\`null\` at the root) and \`isMaster\` marks the master classification. Read them with [\`GET /public/v1/categories\`](/reference/categories).

## Media

Images, videos and documents published by the organization, with absolute \`mediaUrl\` and \`thumbnailUrl\`. Only public media are listed. Read them with [\`GET /public/v1/media\`](/reference/media).

## Channel

A place where products are sold (a web shop, a marketplace, a print catalog) with its own locale. Scopable attribute values differ per channel: pass \`channelId\` to \`GET /public/v1/products\` to read each product's \`label\` as that channel shows it. Channels themselves are documented later (see the [roadmap](/docs/versioning)).

## Multi-tenant isolation

One service hosts many organizations. Isolation is enforced on every query by the key's organization: you cannot name another organization, and an id that belongs to another one behaves exactly like an id that exists nowhere (an empty list, never its data).`,
  };
}

function versioning(): Guide {
  return {
    slug: "versioning",
    title: "Versioning and roadmap",
    description:
      "How the API is versioned, what V1 contains, what is planned, and the target contract of product creation.",
    markdown: `## Versioning

The version is in the path: \`/public/v1\`. The current version is **V1**; it contains the five read endpoints only. Only stable endpoints are published; detail reads, creation, channels, exports and webhooks are stabilised before they are.

Changes are announced in the [changelog](/changelog), also available as [RSS](/changelog/rss.xml) and [Atom](/changelog/atom.xml) feeds.

## Roadmap

Planned and not available in V1:

- filter and pagination details;
- detailed product endpoints (\`GET /public/v1/products/{id}\`, today 404);
- channel documentation (\`GET /public/v1/channels\`, today 404);
- public write endpoints once the contract is stable (\`POST /public/v1/products\`, today 405);
- dedicated export endpoints and public webhooks.

## Target contract: product creation (not available in V1)

> **Not available in V1.** \`POST /public/v1/products\` answers **405 Method Not Allowed**. The contract below is the target, published so that you can prepare; it may still change.

\`\`\`http
POST /public/v1/products HTTP/1.1
Authorization: Bearer pca_…
Content-Type: application/json

{
  "familyId": "fam_1b2C3d4E5f6G7h8I",
  "categoryId": "cat_9a8B7c6D5e4F3g2H",
  "values": {
    "sku": "ACM-CHA-000124",
    "name": "Chaise Oslo en frêne",
    "description": "Assise en frêne massif.",
    "price": { "EUR": 129.9 }
  }
}
\`\`\`

- **Scope**: a write scope, \`products:write\`.
- **Prerequisites**: an active key with the write scope; an existing family and category of your organization; the attributes the family expects.
- **Body**: \`familyId\` and \`categoryId\` of your organization; \`values\`, a map of public attribute keys to values (a price is an object keyed by currency code). There is no \`organizationId\`: the organization comes from the key.
- **Rules**: keys of \`values\` must be known public attributes; each value must match its attribute's type; the product belongs to the key's organization only.
- **Answer**: \`{ "id", "familyId", "categoryId", "status": "draft", "createdAt" }\`.

| Status | When |
|---|---|
| 400 | invalid JSON body, or a value incompatible with its attribute's type |
| 401 | key missing, invalid, expired or revoked |
| 403 | the write scope is missing |
| 404 | family or category not found in the key's organization |
| 409 | product identifier or SKU already used |
| 422 | technically valid data that violates a business rule |`,
  };
}

// The guides of the portal, in reading order.
export function getGuides(): Guide[] {
  const { baseUrl } = getConfig();
  return [
    gettingStarted(baseUrl),
    authentication(),
    pagination(),
    errorsGuide(),
    rateLimits(),
    concepts(),
    versioning(),
  ];
}

// One guide by slug, or undefined.
export function getGuide(slug: string): Guide | undefined {
  return getGuides().find((g) => g.slug === slug);
}
