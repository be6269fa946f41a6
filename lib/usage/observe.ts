// What the API's pipeline hands to usage and to the request log once a request of a known key has its answer
// (errors included: a 429, a 400, a 503, the 401 of a revoked or expired key; any other 401 has no key, so no
// organization, and is not recorded).
import type { KeyRecord } from "@/lib/keys/cache";
import { redactTarget } from "./redact";
import type { RequestLog } from "./request-log";
import type { UsageRecorder } from "./recorder";

// One answered request of a key.
export interface Observed {
  key: KeyRecord;
  requestId: string;
  request: { method: string; url: string };
  status: number;
  /** The error body's `code`, for an error. */
  code: string | null;
  durationMs: number;
  /** When the request began (ms since the epoch). */
  at: number;
}

// Counts the request in usage and queues its log entry (whichever is on): memory only, no I/O. The entry is built
// (its target parsed and redacted) only when the log keeps it: past REQUEST_LOG_MAX_PER_SECOND of an organization,
// a request costs the log a counter.
export function observeRequest(parts: { usage?: UsageRecorder; requestLog?: RequestLog }, o: Observed): void {
  parts.usage?.record(o.key.orgId, o.key.id, o.status, o.durationMs, o.at);
  const log = parts.requestLog;
  if (!log?.admit(o.key.orgId, o.at)) return;
  log.push({
    orgId: o.key.orgId,
    requestId: o.requestId,
    at: o.at,
    keyId: o.key.id,
    keyPrefix: o.key.prefix,
    method: o.request.method,
    path: redactTarget(new URL(o.request.url)),
    status: o.status,
    code: o.code,
    durationMs: o.durationMs,
  });
}
