-- Console sessions: a per-account session version. Every console session (a signed JWT) carries the
-- version its account had at sign-in; sign-out, a password reset, a weaker role and "sign out everywhere" add one,
-- so every earlier session of the account ends on its next request.
-- Runs on Postgres 15 (Debian) and on PGlite (Postgres 18).
alter table users add column if not exists session_version integer not null default 0;
