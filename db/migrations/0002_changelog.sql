-- Changelog content every deployment has: the first public documentation base (2026-06-07, contract Versioning §3)
-- and the planned items of the roadmap (is_planned = true). Later entries are published from the console.

insert into changelog_entries (id, slug, title, published_on, type, breaking, endpoints, body_md, is_planned)
values
(
  'chg_2026060700000001',
  '2026-06-07-first-public-documentation-base',
  'First public documentation base',
  '2026-06-07',
  'Added',
  false,
  array['/public/v1/products', '/public/v1/families', '/public/v1/attributes', '/public/v1/categories', '/public/v1/media'],
  $md$The first public documentation of the Public Catalog API (V1): five read-only list endpoints over one organization's catalog.

- **API keys and scopes**: every call sends `Authorization: Bearer <API_KEY>`. A key belongs to exactly one organization and carries one or more of the scopes `products:read`, `families:read`, `attributes:read`, `categories:read` and `media:read`. See [Authentication, keys and scopes](/docs/authentication).
- **Business concepts**: organization, product, family, attribute, attribute value, category, media, channel and multi-tenant isolation. See [Concepts](/docs/concepts).
- **Common errors**: the error body `{ statusCode, message, error, code, requestId }`, 401 for a missing, invalid, expired or revoked key (`Clé API invalide.`) and 429 `PUBLIC_API_RATE_LIMIT_EXCEEDED` with `retryAfter`. See [Errors](/docs/errors) and [Rate limits](/docs/rate-limits).
- **Reference preparation**: the [reference](/reference) of `GET /public/v1/products`, `/families`, `/attributes`, `/categories` and `/media`, generated from the OpenAPI 3.1 document at `/public/v1/openapi.json`.
$md$,
  false
),
(
  'chg_2026060700000002',
  'planned-filter-and-pagination-details',
  'Filter and pagination details',
  '2026-06-07',
  'Changed',
  false,
  array['/public/v1/products', '/public/v1/families', '/public/v1/attributes', '/public/v1/categories', '/public/v1/media'],
  $md$Planned: a fuller documentation of filters, sorting and pagination (defaults, limits, sortable and searchable fields) for every list endpoint.$md$,
  true
),
(
  'chg_2026060700000003',
  'planned-detailed-product-endpoints',
  'Detailed product endpoints',
  '2026-06-07',
  'Added',
  false,
  array['/public/v1/products/{id}'],
  $md$Planned: `GET /public/v1/products/{id}`, one product with its attribute values. Not available in V1 (the path answers 404).$md$,
  true
),
(
  'chg_2026060700000004',
  'planned-channel-documentation',
  'Channel documentation',
  '2026-06-07',
  'Added',
  false,
  array['/public/v1/channels'],
  $md$Planned: the documentation of channels and `GET /public/v1/channels`. Until then, `channelId` on `GET /public/v1/products` takes the id of a channel of your organization.$md$,
  true
),
(
  'chg_2026060700000005',
  'planned-public-write-endpoints',
  'Public write endpoints',
  '2026-06-07',
  'Added',
  false,
  array['/public/v1/products'],
  $md$Planned, once the contract is stable: public write endpoints, starting with `POST /public/v1/products` (scope `products:write`), which creates a `draft` product. Not available in V1: the method answers 405. See [Versioning and roadmap](/docs/versioning) for the target contract.$md$,
  true
),
(
  'chg_2026060700000006',
  'planned-webhooks',
  'Webhooks',
  '2026-06-07',
  'Added',
  false,
  array[]::text[],
  $md$Planned: public webhooks to be notified of catalog changes. V1 sends no events.$md$,
  true
)
on conflict (slug) do nothing;
