-- Members: invitations to join an organization with a role, by a single-use link that expires. Only the
-- SHA-256 of the link's secret is stored (hex); the link itself is shown once to whoever invited. A link is used by
-- one `update … where accepted_at is null and revoked_at is null and expires_at > now` (lib/console/members.ts):
-- of two concurrent accepts, one wins.
-- Runs on Postgres 15 (Debian) and on PGlite (Postgres 18).
create table if not exists invitations (
  id text primary key,
  org_id text not null references organizations (id) on delete cascade,
  email text collate "C" not null,
  role text not null check (role in ('owner', 'admin', 'member')),
  token_hash text collate "C" not null unique,
  created_by text references users (id) on delete set null,
  created_at timestamptz(3) not null default now(),
  expires_at timestamptz(3) not null default now() + interval '7 days',
  accepted_at timestamptz(3),
  accepted_by text references users (id) on delete set null,
  revoked_at timestamptz(3),
  check (expires_at > created_at),
  check (accepted_at is null or revoked_at is null)
);
-- The console's list of an organization's open invitations, newest first.
create index if not exists invitations_org on invitations (org_id, created_at desc, id)
  where accepted_at is null and revoked_at is null;
