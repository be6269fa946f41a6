-- Console: the audit log of what organization members (and the product team) do in the console, and
-- the link from a rolled API key to the key that replaced it.
-- Runs on Postgres 15 (Debian) and on PGlite (Postgres 18).

-- One event: who (the user, kept by email once the account is gone), what (`api_key.created`, `api_key.rolled`,
-- `api_key.revoked`; later `changelog.*`), on which target, when. org_id is null for events that belong to no
-- organization (the product team's changelog edits).
create table if not exists audit_events (
  id text primary key,
  org_id text references organizations (id) on delete cascade,
  actor_id text references users (id) on delete set null,
  actor_email text not null,
  action text collate "C" not null,
  target_id text,
  details jsonb not null default '{}',
  created_at timestamptz(3) not null default now()
);
-- An organization's log, newest first (id breaks ties within a millisecond).
create index if not exists audit_events_org_created on audit_events (org_id, created_at desc, id desc);

-- A rolled key points at its successor (same name and scopes); it keeps working until its expiry (the grace).
alter table api_keys add column if not exists rolled_to text references api_keys (id) on delete set null;
