-- Usage and the request log. Counted in memory by the API's pipeline (lib/usage) and
-- written in batches, one statement per flush: never a write per request. Runs on Postgres 15 (Debian) and on PGlite
-- (Postgres 18).

-- Requests per key and hour (UTC): counts per status class, the 429s apart (also in c4xx), and a latency histogram of
-- fixed log-spaced buckets (lib/usage/histogram.ts: element i counts the durations in bucket i), so that p50 and p95
-- of any set of hours and keys come from the sum of their histograms. A flush adds to a row (upsert). Kept
-- USAGE_RETENTION_DAYS (30); a day's figures are the sum of its hours (lib/usage/queries.ts).
create table if not exists usage_hours (
  org_id text not null references organizations (id) on delete cascade,
  key_id text not null,
  hour timestamptz(0) not null,
  c2xx bigint not null default 0,
  c3xx bigint not null default 0,
  c4xx bigint not null default 0,
  c5xx bigint not null default 0,
  c429 bigint not null default 0,
  latency bigint[] not null,
  primary key (org_id, key_id, hour)
);
-- The retention's delete of old hours.
create index if not exists usage_hours_hour on usage_hours (hour);

-- An organization's last requests: at most REQUEST_LOG_MAX_PER_ORG (10,000) rows per organization and
-- REQUEST_LOG_MAX_AGE_DAYS (7) days, pruned in the background. The key is shown by its display prefix only; the path's
-- secret-looking parameters are removed before it is queued (lib/usage/redact.ts).
create table if not exists request_log (
  org_id text not null references organizations (id) on delete cascade,
  request_id text collate "C" not null,
  at timestamptz(3) not null,
  key_id text not null,
  key_prefix text not null,
  method text not null,
  path text not null,
  status smallint not null,
  code text,
  duration_ms real not null,
  primary key (org_id, request_id)
);
-- Newest first, the page's order (and its keyset pagination: at, request_id); the filters by key and by status. A
-- path-prefix filter reads the organization's rows in this order: at most REQUEST_LOG_MAX_PER_ORG of them.
create index if not exists request_log_org_at on request_log (org_id, at desc, request_id desc);
create index if not exists request_log_org_key_at on request_log (org_id, key_id, at desc, request_id desc);
create index if not exists request_log_org_status_at on request_log (org_id, status, at desc, request_id desc);

-- Requests not written to the log, per organization and hour (UTC): over REQUEST_LOG_MAX_PER_SECOND, or the queue full.
create table if not exists request_log_drops (
  org_id text not null references organizations (id) on delete cascade,
  hour timestamptz(0) not null,
  over_rate bigint not null default 0,
  queue_full bigint not null default 0,
  primary key (org_id, hour)
);
