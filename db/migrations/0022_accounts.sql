-- Accounts: password reset links issued by an organization's owner, two-factor sign-in (TOTP)
-- with recovery codes, and an organization's requirement of two-factor sign-in.
-- Runs on Postgres 15 (Debian) and on PGlite (Postgres 18).

-- A password reset link: only the SHA-256 of its token is kept. Single use (used_at), valid until expires_at (1 h
-- after it was issued); a newer link for the same account replaces the unused ones.
create table if not exists password_resets (
  token_hash text collate "C" primary key,
  user_id text not null references users (id) on delete cascade,
  org_id text references organizations (id) on delete cascade,
  issued_by text references users (id) on delete set null,
  expires_at timestamptz(3) not null,
  used_at timestamptz(3),
  created_at timestamptz(3) not null default now()
);
create index if not exists password_resets_user on password_resets (user_id);

-- An account's TOTP secret, encrypted (AES-256-GCM, key derived from the sessions' secret). enabled_at is null
-- while the set-up waits for its first code; last_step is the time step of the last code accepted, so that a code
-- is never accepted twice (nor an older one).
create table if not exists user_two_factor (
  user_id text primary key references users (id) on delete cascade,
  secret_encrypted text not null,
  enabled_at timestamptz(3),
  last_step bigint,
  created_at timestamptz(3) not null default now()
);

-- Recovery codes: the SHA-256 of each (80 random bits), single use.
create table if not exists user_recovery_codes (
  user_id text not null references users (id) on delete cascade,
  code_hash text collate "C" not null,
  used_at timestamptz(3),
  primary key (user_id, code_hash)
);

-- An organization whose owner requires two-factor sign-in of its members.
alter table organizations add column if not exists two_factor_required boolean not null default false;
