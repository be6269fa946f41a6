-- Webhooks (preview feature `webhooks`): an organization's endpoints, their signing secrets, how far each
-- has taken the change feed, and one row per (endpoint, event) delivery with its attempts. The deliveries' jobs
-- (when the next attempt runs, who holds it, the retry schedule) live in pg-boss's own schema (`pgboss`), which the
-- library installs and migrates itself when the worker starts (lib/webhooks/engine.ts says why pg-boss).
-- Runs on Postgres 15 (Debian) and on PGlite (Postgres 18).

-- An endpoint: where to POST, which events (types of the feed, ops), whether it is on, and why it was switched off
-- (`failing`: its deliveries kept failing; `manual`: someone switched it off).
create table if not exists webhook_endpoints (
  id text primary key,
  org_id text not null references organizations (id) on delete cascade,
  url text not null,
  description text not null default '',
  types text[] not null,
  ops text[] not null,
  enabled boolean not null default true,
  disabled_reason text,
  disabled_at timestamptz,
  -- The feed's cursor up to which events were turned into deliveries.
  position bigint not null default 0,
  -- Bumped by a replay and by switching on again: the deliveries' per-object ordering keys start afresh.
  generation integer not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index if not exists webhook_endpoints_org on webhook_endpoints (org_id, created_at);

-- Signing secrets: several while a roll overlaps (the old one until expires_at), each signature sent for each.
create table if not exists webhook_secrets (
  id text primary key,
  endpoint_id text not null references webhook_endpoints (id) on delete cascade,
  secret text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz
);
create index if not exists webhook_secrets_endpoint on webhook_secrets (endpoint_id, created_at);

-- One event for one endpoint: the body sent (the feed's event JSON, the same at each attempt), where it stands.
-- state: pending (an attempt is due or running), delivered, failed (every attempt failed).
create table if not exists webhook_deliveries (
  id text primary key,
  endpoint_id text not null references webhook_endpoints (id) on delete cascade,
  org_id text not null,
  event_id text not null,
  event_type text not null,
  object_id text not null,
  op text not null,
  body text not null,
  state text not null default 'pending',
  -- The pg-boss job of the attempts under way (its start_after is when the next retry runs).
  job_id text,
  attempts integer not null default 0,
  last_status integer,
  next_attempt_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index if not exists webhook_deliveries_endpoint on webhook_deliveries (endpoint_id, created_at desc, id);

-- One attempt of a delivery: what the endpoint answered (status, first bytes), how long it took, or why it failed.
create table if not exists webhook_attempts (
  id bigint generated always as identity primary key,
  delivery_id text not null references webhook_deliveries (id) on delete cascade,
  endpoint_id text not null,
  attempt integer not null,
  ok boolean not null,
  status integer,
  error text,
  latency_ms integer not null,
  body_start text not null default '',
  at timestamptz not null default now(),
  next_attempt_at timestamptz
);
create index if not exists webhook_attempts_endpoint on webhook_attempts (endpoint_id, id desc);
create index if not exists webhook_attempts_delivery on webhook_attempts (delivery_id, id);
