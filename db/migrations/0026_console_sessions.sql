-- Console sessions, one row each: the session token (a signed JWT) carries the row's id, and every console request
-- reads the row with the account (ended_at null, expires_at ahead), so a session ended on one instance is refused
-- by every instance at its next request. Sign-out ends its own row; "sign out everywhere", a password change
-- (the account's other rows) or reset, a weaker role and a removal end the account's rows. last_seen_at and
-- ip_address follow the session's use (written at most once a minute); expires_at follows its renewals.
-- Ended and expired rows are pruned in batches at sign-in (db/console-sessions.ts).
-- The rows replace the account-wide session version, which goes: tokens issued before carry no session id and
-- are refused, so everyone signs in once more.
-- Runs on Postgres 15 (Debian) and on PGlite (Postgres 18).
create table if not exists console_sessions (
  id text collate "C" primary key,
  user_id text not null references users (id) on delete cascade,
  created_at timestamptz(3) not null default now(),
  last_seen_at timestamptz(3) not null default now(),
  expires_at timestamptz(3) not null,
  ip_address text not null,
  user_agent text not null default '',
  ended_at timestamptz(3)
);
create index if not exists console_sessions_user on console_sessions (user_id) where ended_at is null;
create index if not exists console_sessions_gone on console_sessions ((coalesce(ended_at, expires_at)));

alter table users drop column if exists session_version;
