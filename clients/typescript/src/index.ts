// @public-catalog/client: the TypeScript client of the Public Catalog API (lists, detail reads, the export, the
// change feed with long polling, retries after Retry-After, typed errors) and Standard Webhooks verification.
export { CatalogClient, DetailLists, type CallOptions } from "./client.js";
export type { ClientOptions, RetryInfo } from "./http.js";
export { Lists, type ResourceLists } from "./lists.js";
export { splitLines, type ExportLine, type ExportOptions } from "./export.js";
export type { FollowOptions } from "./changes.js";
export { CatalogApiError, CatalogNetworkError } from "./errors.js";
export {
  verifyWebhook,
  WebhookVerificationError,
  type VerifyOptions,
  type WebhookHeaders,
} from "./webhooks.js";
export type * from "./types.js";
export type { components, operations, paths, webhooks } from "./openapi.js";
